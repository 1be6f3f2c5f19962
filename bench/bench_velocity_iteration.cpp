// bench/bench_velocity_iteration.cpp — one Algorithm 1 iteration of the rescue robot steered
// by a velocity vector (model/rescue_velocity.hpp: continuous actions in [-1, 1]², the 4-beam
// range sensor), against the index-action rescue iterations it is compared with.
//   * BM_VelocityIteration: N = 10 episodes of T = 100, 1,000 particles (log-density
//     weights, 8 x 8 belief bins, φ(b) bilinear on 6 x 6 nodes), MSE over 10 x 10 bins, the
//     Gaussian policy (tanh into the box, mean linear in (1, φ(b))), batch-mean baseline,
//     constant step 0.3. Target: within 1.5x of the index-action rescue iteration
//     (bench_particles.cpp, BM_TrainingIteration: the cell sensor, BA over the same features;
//     run it beside this one, interleaved).
//   * BM_RangeIndexIteration: the same iteration on the index-action range-sensor world
//     (RescueRangeWorld, BA over the same features, 4 actions): what the sensor costs apart
//     from the action type.
// Both on one core; counters as bench_particles' (steps per second, time per step).
#include "common.hpp"

#include <cstddef>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/rescue_velocity.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/gaussian.hpp"

namespace {

using Features = maxent::BilinearGridFeatures<maxent::RescuePosition>;

template <class W>
maxent::ParticleFilter<W, maxent::RescueGridBinning, Features> make_filter(const W& world) {
    maxent::DefaultRng g = maxent::stream(1);
    return {world, 64, maxent::RescueGridBinning{8}, Features(6, 6, maxent::Box{}, maxent::RescuePosition{}),
            {.particles = 1000}, g};
}

maxent::TrainerConfig config() {
    maxent::TrainerConfig c;
    c.iterations = 1000000;
    c.batch = 10;
    c.seed = 3;
    return c;
}

void BM_VelocityIteration(benchmark::State& state) {
    maxent::RescueVelocityOptions o;
    o.world.motion.horizon = 100;
    o.bins_per_side = 10;
    const maxent::RescueVelocityWorld world(o);
    const auto filter = make_filter(world);
    maxent::Trainer trainer(world, filter, maxent::GaussianPolicy<>(world.action_box(), filter.feature_dimension()),
                            maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config());
    (void)trainer.iterate();  // the first iteration sizes the buffers
    for (auto _ : state) benchmark::DoNotOptimize(trainer.iterate());
    maxent_bench::set_step_counters(state, 10.0 * 99.0);
}
BENCHMARK(BM_VelocityIteration)->Unit(benchmark::kMillisecond);

void BM_RangeIndexIteration(benchmark::State& state) {
    maxent::RescueRangeOptions o;
    o.motion.horizon = 100;
    const maxent::RescueRangeWorld range(o);
    const auto world = maxent::with_state_binning(range, 100, maxent::RescueGridBinning{10});
    maxent::Trainer trainer(world, make_filter(range), maxent::BeliefAveragedPolicy(36, 4), maxent::MSE{},
                            maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config());
    (void)trainer.iterate();
    for (auto _ : state) benchmark::DoNotOptimize(trainer.iterate());
    maxent_bench::set_step_counters(state, 10.0 * 99.0);
}
BENCHMARK(BM_RangeIndexIteration)->Unit(benchmark::kMillisecond);

}  // namespace
