// examples/rescue/training.hpp — what maxent-rescue's two drivers (main.cpp: the cell sensor,
// range.cpp: the range sensor) share: the agent (a particle filter of the world, its belief a
// grid histogram, the belief-averaged policy over bilinear features of the particles), the
// training constants, and one (curve, seed) run of Algorithm 1 through the runtime's
// run_algorithm1 (runtime/algorithm_rescue.hpp compiles the two worlds' trainers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "maxent/core/random.hpp"
#include "maxent/model/rescue_world.hpp"

#include "runtime/algorithm_rescue.hpp"
#include "runtime/components.hpp"
#include "runtime/runner.hpp"
#include "runtime/signals.hpp"

namespace maxent::rescue {

inline constexpr std::size_t true_bins_per_side = 10;     // MSE's and the plot's bins
inline constexpr std::size_t belief_bins_per_side = 8;    // the agent's belief b (MBE, Reg-MBE)
inline constexpr std::size_t feature_nodes_per_side = 6;  // φ(b): bilinear features
inline constexpr std::size_t num_features = feature_nodes_per_side * feature_nodes_per_side;
inline constexpr std::size_t heat_per_side = 40;          // heatmap resolution
inline constexpr std::size_t batch = 10;
inline constexpr double rho = 0.02, alpha = 0.3;
inline constexpr std::uint64_t prior_stream = ~std::uint64_t{0} - 1;  // (seed, this): the filter's b_1 particles
inline constexpr std::uint64_t heat_stream = ~std::uint64_t{0};       // (seed, this, e): heatmap episodes

template <class W>
using Filter = programs::RescueFilter<W>;

/// The agent's filter on `world` with `particles` particles, b_1 drawn from stream(seed, prior_stream).
template <class W>
Filter<W> make_filter(const W& world, std::size_t particles, std::uint64_t seed) {
    DefaultRng g = stream(seed, prior_stream);
    return Filter<W>(world, belief_bins_per_side * belief_bins_per_side, RescueGridBinning{belief_bins_per_side},
                     BilinearGridFeatures<RescuePosition>(feature_nodes_per_side, feature_nodes_per_side, Box{},
                                                          RescuePosition{}),
                     {.particles = particles}, g);
}

/// One (curve, seed) run: K = `iterations` iterations of N = batch episodes with `feedback`,
/// the batch-mean baseline and a constant step α, true states counted in 10 x 10 bins; stops
/// between iterations on SIGINT / SIGTERM. The run's records and its final policy (complete only).
struct TrainedSeed {
    programs::SeedRun run;
    BeliefAveragedPolicy policy{1, 1};
};

template <class W>
TrainedSeed train_seed(const W& world, const Filter<W>& filter, programs::AnyFeedback feedback, std::size_t iterations,
                       std::uint64_t seed) {
    const auto binned =
        with_state_binning(world, true_bins_per_side * true_bins_per_side, RescueGridBinning{true_bins_per_side});
    TrainerConfig config;
    config.iterations = iterations;
    config.batch = batch;
    config.seed = seed;
    const programs::RunChoices choices{BeliefAveragedPolicy(num_features, world.num_actions()),
                                       std::move(feedback),
                                       programs::AnyEstimator(programs::EstimatorKind::batch_mean),
                                       programs::AnyStep(programs::StepKind::constant, alpha),
                                       config};
    programs::RunControl control;
    control.after_iteration = [](const IterationMetrics&) { return !programs::stop_requested(); };
    programs::Algorithm1Run r = programs::run_algorithm1(binned, filter, choices, control);
    TrainedSeed out;
    out.run.seed = seed;
    out.run.records.reserve(r.trained.history.size());
    for (const IterationMetrics& m : r.trained.history)
        out.run.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
    out.run.complete = r.complete(config);
    if (out.run.complete) out.policy = std::get<BeliefAveragedPolicy>(std::move(*r.policy));
    return out;
}

}  // namespace maxent::rescue
