// bench/bench_particles.cpp — the particle filter (belief/particle_filter.hpp) on the rescue
// world (model/rescue_world.hpp), against the targets of docs/performance.md:
//   * BM_ParticleStep/n: one belief update (predict, reweight, resample below n_eff = n/2)
//     plus φ(b) (bilinear features on 6 x 6 nodes) for n = 10^2 .. 10^5 particles, with the
//     world's own actions and observations (episodes of T = 100); reported per particle-step
//     ("per_particle_step"), with Google Benchmark's linear fit over n (BigO, RMS) and the
//     filter's bytes ("filter_bytes"). Target: <= 100 ns per particle-step.
//   * BM_ParticleStepAlwaysResample/n: the same with resampling at every step (threshold 1).
//   * BM_TrainingIteration: one Algorithm 1 iteration (N = 10, T = 100, 1,000 particles,
//     MSE, BA over the features) on one core, with the process's peak RSS. Target: < 50 ms.
#include "common.hpp"

#include <cstddef>
#include <cstdint>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/rescue_world.hpp"
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
