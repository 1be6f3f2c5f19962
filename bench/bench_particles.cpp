// bench/bench_particles.cpp — the particle filter (belief/particle_filter.hpp) on the rescue
// world (model/rescue_world.hpp), against the targets of docs/performance.md:
//   * BM_ParticleStep/n: one belief update (predict, reweight, resample below n_eff = n/2)
//     plus φ(b) (bilinear features on 6 x 6 nodes) for n = 10^2 .. 10^5 particles, with the
//     world's own actions and observations (episodes of T = 100); reported per particle-step
//     ("per_particle_step"), with Google Benchmark's linear fit over n (BigO, RMS) and the
//     filter's bytes ("filter_bytes"). The batched fast path (BatchedParticleModel) is taken.
//     Target: <= 20 ns per particle-step at n = 10^4 and 10^5, and at least 3x the numpy peer
//     (bench/particles_numpy.py, run beside it by scripts/bench.sh).
//   * BM_ParticleStepAlwaysResample/n: the same with resampling at every step (threshold 1).
//   * BM_Resample<R>/n: one resampling of n = 10^4 weights by each resampler
//     (belief/resamplers.hpp), per particle.
//   * BM_ParticleFaithfulness: no timing; the statistics bench/particles_numpy.py's filter is
//     checked against (bench/test_particles_numpy.py): over 40 episodes of 99 updates with
//     1,000 particles, the fraction of particle moves blocked by a wall, the mean n_eff / n,
//     the resampling rate, the mean posterior position and its mean distance to the true
//     position, each with its standard error over the episodes (counters <name>, <name>_se);
//     and the posterior mean position (post_x_<t>, post_y_<t>) after each update t = 1..12 of
//     a fixed script of actions and readings (kFaithfulnessScript) with 10^5 particles.
//   * BM_TrainingIteration: one Algorithm 1 iteration (N = 10, T = 100, 1,000 particles,
//     MSE, BA over the features) on one core, with the process's peak RSS. Target: < 50 ms.
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/resamplers.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

using Features = maxent::BilinearGridFeatures<maxent::RescuePosition>;
using Filter = maxent::ParticleFilter<maxent::RescueWorld, maxent::RescueGridBinning, Features>;

Filter make_filter(const maxent::RescueWorld& world, std::size_t n, double threshold) {
    maxent::DefaultRng g = maxent::stream(1);
    return Filter(world, 64, maxent::RescueGridBinning{8}, Features(6, 6, maxent::Box{}, maxent::RescuePosition{}),
                  {.particles = n, .resample_threshold = threshold}, g);
}

void particle_steps(benchmark::State& state, double threshold) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const maxent::RescueWorld world({.horizon = 100});
    Filter filter = make_filter(world, n, threshold);
    maxent::DefaultRng g = maxent::stream(2);
    Eigen::VectorXd b, phi;
    filter.initial(b);
    filter.features(b, phi);
    maxent::RescueState s = world.sample_initial_state(g);
    std::size_t t = 0;
    for (auto _ : state) {
        if (++t == world.horizon()) {  // a new episode
            t = 0;
            filter.initial(b);
            s = world.sample_initial_state(g);
        }
        const auto a = static_cast<std::size_t>(maxent::uniform_index(g, 4));
        s = world.sample_next_state(s, a, g);
        const std::size_t o = world.sample_observation(a, s, g);
        filter.update(b, a, o, g);
        filter.features(b, phi);
        benchmark::DoNotOptimize(phi.data());
    }
    state.SetComplexityN(static_cast<benchmark::IterationCount>(n));
    state.counters["per_particle_step"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(n),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["filter_bytes"] = static_cast<double>(filter.memory_bytes());
    state.counters["resampled_fraction"] =
        static_cast<double>(filter.resamples()) / static_cast<double>(state.iterations());
    state.counters["depletions"] = static_cast<double>(filter.depletions());
}

void BM_ParticleStep(benchmark::State& state) { particle_steps(state, 0.5); }
void BM_ParticleStepAlwaysResample(benchmark::State& state) { particle_steps(state, 1.0); }

BENCHMARK(BM_ParticleStep)->RangeMultiplier(10)->Range(100, 100000)->Complexity(benchmark::oN);
BENCHMARK(BM_ParticleStepAlwaysResample)->RangeMultiplier(10)->Range(100, 100000)->Complexity(benchmark::oN);

/// One resampling of n particles by each resampler (belief/resamplers.hpp), from weights
/// drawn once (uniform on [0, 1), one in ten zero); reported per particle.
template <class R>
void BM_Resample(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    maxent::DefaultRng setup = maxent::stream(3);
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) w[i] = i % 10 == 0 ? 0.0 : maxent::uniform01(setup);
    double total = 0.0;
    for (const double x : w) total += x;
    std::vector<std::size_t> out(n);
    maxent::DefaultRng g = maxent::stream(4);
    for (auto _ : state) {
        R{}.resample(std::span<const double>(w), total, std::span<std::size_t>(out), g);
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["per_particle"] = benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Resample<maxent::SystematicResampler>)->Arg(10000);
BENCHMARK(BM_Resample<maxent::MultinomialResampler>)->Arg(10000);
BENCHMARK(BM_Resample<maxent::ResidualResampler>)->Arg(10000);

/// Actions and sensor cells of a walk right, up to the doorway, through it and up.
constexpr std::size_t kFaithfulnessScript[12][2] = {{3, 0}, {3, 0}, {3, 1}, {3, 1}, {0, 1}, {0, 1},
                                                   {0, 1}, {3, 1}, {3, 2}, {3, 2}, {0, 2}, {0, 6}};

void BM_ParticleFaithfulness(benchmark::State& state) {
    const std::size_t n = 1000, episodes = 40;
    const maxent::RescueWorld world({.horizon = 100});
    const double step = world.options().step, noise = world.options().noise;
    std::map<std::string, std::vector<double>> per_episode;
    for (auto _ : state) {
        per_episode.clear();
        Filter filter = make_filter(world, n, 0.5);
        maxent::DefaultRng g = maxent::stream(5), moves = maxent::stream(6);
        Eigen::VectorXd b;
        for (std::size_t e = 0; e < episodes; ++e) {
            filter.initial(b);
            const std::size_t resamples = filter.resamples();
            std::map<std::string, double> sum;
            maxent::RescueState s = world.sample_initial_state(g);
            for (std::size_t t = 0; t + 1 < world.horizon(); ++t) {
                const auto a = static_cast<std::size_t>(maxent::uniform_index(g, 4));
                // The move model on the filter's current cloud (what its prediction does).
                double blocked = 0.0;
                for (const maxent::RescueState& x : filter.particles()) {
                    const auto [nx, ny] = maxent::detail::normal_pair(moves);
                    const double dx = (a == 3 ? step : a == 2 ? -step : 0.0) + noise * nx;
                    const double dy = (a == 0 ? step : a == 1 ? -step : 0.0) + noise * ny;
                    blocked += world.blocked(x, {std::clamp(x.x + dx, 0.0, 1.0), std::clamp(x.y + dy, 0.0, 1.0)}) ? 1.0 : 0.0;
                }
                s = world.sample_next_state(s, a, g);
                filter.update(b, a, world.sample_observation(a, s, g), g);
                double mx = 0.0, my = 0.0;
                for (std::size_t i = 0; i < n; ++i) {
                    mx += filter.weights()[i] * filter.particles()[i].x;
                    my += filter.weights()[i] * filter.particles()[i].y;
                }
                sum["blocked"] += blocked / static_cast<double>(n);
                sum["ess"] += filter.effective_sample_size() / static_cast<double>(n);
                sum["mean_x"] += mx;
                sum["mean_y"] += my;
                sum["error"] += std::hypot(mx - s.x, my - s.y);
            }
            const auto steps = static_cast<double>(world.horizon() - 1);
            for (const auto& [k, v] : sum) per_episode[k].push_back(v / steps);
            per_episode["resampled"].push_back(static_cast<double>(filter.resamples() - resamples) / steps);
        }
    }
    {
        Filter filter = make_filter(world, 100000, 0.5);
        maxent::DefaultRng g = maxent::stream(7);
        Eigen::VectorXd b;
        filter.initial(b);
        for (std::size_t t = 0; t < 12; ++t) {
            filter.update(b, kFaithfulnessScript[t][0], kFaithfulnessScript[t][1], g);
            double mx = 0.0, my = 0.0;
            for (std::size_t i = 0; i < filter.particle_count(); ++i) {
                mx += filter.weights()[i] * filter.particles()[i].x;
                my += filter.weights()[i] * filter.particles()[i].y;
            }
            state.counters["post_x_" + std::to_string(t + 1)] = mx;
            state.counters["post_y_" + std::to_string(t + 1)] = my;
        }
    }
    for (const auto& [k, v] : per_episode) {
        double m = 0.0, m2 = 0.0;
        for (const double x : v) m += x;
        m /= static_cast<double>(v.size());
        for (const double x : v) m2 += (x - m) * (x - m);
        state.counters[k] = m;
        state.counters[k + "_se"] = std::sqrt(m2 / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
    }
}
BENCHMARK(BM_ParticleFaithfulness)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_TrainingIteration(benchmark::State& state) {
    maxent_bench::reset_peak_rss();
    const maxent::RescueWorld rescue({.horizon = 100});
    const auto world = maxent::with_state_binning(rescue, 100, maxent::RescueGridBinning{10});
    maxent::TrainerConfig config;
    config.iterations = 1000000;
    config.batch = 10;
    config.seed = 3;
    maxent::Trainer trainer(world, make_filter(rescue, 1000, 0.5), maxent::BeliefAveragedPolicy(36, 4), maxent::MSE{},
                            maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    (void)trainer.iterate();  // the first iteration sizes the buffers
    for (auto _ : state) benchmark::DoNotOptimize(trainer.iterate());
    maxent_bench::set_step_counters(state, 10.0 * 99.0);
    state.counters["peak_rss_MB"] = maxent_bench::peak_rss_mb();
}
BENCHMARK(BM_TrainingIteration)->Unit(benchmark::kMillisecond);

}  // namespace
