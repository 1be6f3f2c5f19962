// bench/bench_range_particles.cpp — the particle filter (belief/particle_filter.hpp) on the
// rescue robot with a range sensor (model/rescue_world.hpp, RescueRangeWorld: 4 beams in
// metres, Gaussian noise, weighed by the log-density):
//   * BM_RangeParticleStep/n: one belief update (predict, log-weigh by the 4 beams, resample
//     below n_eff = n/2) plus φ(b) (bilinear features on 6 x 6 nodes) for n = 10^2 .. 10^5,
//     with the world's own actions and readings (episodes of T = 100); reported per
//     particle-step ("per_particle_step"). The batched fast path (BatchedParticleModel) is
//     taken. Target: <= 150 ns per particle-step on one core; reported beside the cell
//     sensor's (bench_particles.cpp, target 20 ns) in docs/performance.md.
#include "common.hpp"

#include <cstddef>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/rescue_world.hpp"

namespace {

using Features = maxent::BilinearGridFeatures<maxent::RescuePosition>;
using Filter = maxent::ParticleFilter<maxent::RescueRangeWorld, maxent::RescueGridBinning, Features>;

void BM_RangeParticleStep(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    maxent::RescueRangeOptions options;
    options.motion.horizon = 100;
    const maxent::RescueRangeWorld world(options);
    maxent::DefaultRng g = maxent::stream(1);
    Filter filter(world, 64, maxent::RescueGridBinning{8}, Features(6, 6, maxent::Box{}, maxent::RescuePosition{}),
                  {.particles = n}, g);
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
        const maxent::RescueRangeWorld::observation_type o = world.sample_observation(a, s, g);
        filter.update(b, a, o, g);
        filter.features(b, phi);
        benchmark::DoNotOptimize(phi.data());
    }
    state.counters["per_particle_step"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(n),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["resampled_fraction"] =
        static_cast<double>(filter.resamples()) / static_cast<double>(state.iterations());
    state.counters["depletions"] = static_cast<double>(filter.depletions());
}
BENCHMARK(BM_RangeParticleStep)->RangeMultiplier(10)->Range(100, 100000);

}  // namespace
