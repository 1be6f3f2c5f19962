// examples/rescue/training.hpp — what maxent-rescue's two sensors (main.cpp: cells; range.cpp:
// ranges) share: the named experiments, the agent (a particle filter of the world, its belief
// a grid histogram, the belief-averaged policy over bilinear features of the particles), the
// training constants, one run of a curve through the runtime's run_algorithm1
// (runtime/algorithm_rescue.hpp compiles the two worlds' trainers), and Study, what a sensor
// gives the one driver (main.cpp: flags, the job loop through the runtime's queue with resume,
// the files).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "maxent/core/entropy.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/policy/belief_averaged.hpp"

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

/// A named experiment: the world's horizon T, the filter's particles, the defaults of
/// --iterations and --seeds, the final policies' episodes per seed; `range`: the range sensor.
struct RescueExperiment {
    std::string name;
    std::size_t horizon, particles, iterations, seeds, heatmap_episodes;
    bool range;
};

/// What a sensor gives the driver for one experiment: its curves (objective and label), the
/// run of curve c on a seed (c = curves.size(): the uniform policy, untrained; a SeedRun whose
/// visits are the final policy's 40 x 40 counts over its episodes, mean_entropy its true-state
/// entropy over 10 x 10 bins, finals the sensor's other measures; incomplete when stopped),
/// config.json, the plots' texts and the door, and the printout of the final policies (panels[p]:
/// panel p's runs, 0 the uniform policy), which returns final.csv's text ("" for none).
using Panels = std::vector<std::vector<const programs::SeedRun*>>;
struct Study {
    std::vector<programs::Curve> curves;
    std::function<programs::SeedRun(std::size_t c, std::uint64_t seed, std::size_t iterations)> run;
    std::function<std::string(std::size_t iterations, std::size_t seeds, std::size_t threads)> config_json;
    std::string subject, heatmap_title;
    double door = 0.0;
    std::function<std::string(const std::vector<std::string>& labels, const Panels& panels, std::size_t iterations,
                              std::size_t seeds, double seconds)>
        report;
};

Study cell_study(const RescueExperiment& x);   // main.cpp
Study range_study(const RescueExperiment& x);  // range.cpp

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

/// Rolls out `episodes` episodes of a final `policy`, episode e on stream(seed, heat_stream, e):
/// run.visits gets their counted true states in a 40 x 40 grid and their mean entropy over the
/// 10 x 10 bins; each episode also goes to more(t), the sensor's own measures.
template <class W, class More>
void visit(const W& world, const Filter<W>& filter, const BeliefAveragedPolicy& policy, const RolloutOptions& options,
           std::size_t episodes, programs::SeedRun& run, More more) {
    const auto fine = with_state_binning(world, heat_per_side * heat_per_side, RescueGridBinning{heat_per_side});
    VisitCounts& v = run.visits;
    v.episodes = episodes;
    v.counts.assign(heat_per_side * heat_per_side, 0);
    EmpiricalCounter coarse(true_bins_per_side * true_bins_per_side);
    rollout_fixed_policy(fine, filter, policy, options, run.seed, heat_stream, 0, episodes,
                         [&](std::size_t, const Trajectory& t, DefaultRng&) {
                             coarse.clear();
                             for (const std::size_t s : t.counted_states()) {
                                 ++v.counts[s];
                                 const std::size_t ix = (s % heat_per_side) * true_bins_per_side / heat_per_side;
                                 const std::size_t iy = (s / heat_per_side) * true_bins_per_side / heat_per_side;
                                 coarse.add(ix + true_bins_per_side * iy);
                             }
                             v.mean_entropy += coarse.entropy();
                             more(t);
                         });
    v.mean_entropy /= static_cast<double>(episodes);
}

/// One run on `seed`: with a feedback, K = `iterations` iterations of N = batch episodes, the
/// batch-mean baseline and a constant step α, true states counted in 10 x 10 bins, stopping
/// between iterations on SIGINT / SIGTERM; without, the uniform policy. A complete run's final
/// policy then goes to evaluate(filter, policy, run), which fills the run's visits and finals.
template <class W, class Evaluate>
programs::SeedRun train_seed(const W& world, std::size_t particles, std::optional<programs::AnyFeedback> feedback,
                             std::size_t iterations, std::uint64_t seed, Evaluate evaluate) {
    const Filter<W> filter = make_filter(world, particles, seed);
    programs::SeedRun out;
    out.seed = seed;
    if (!feedback) {
        evaluate(filter, BeliefAveragedPolicy(num_features, world.num_actions()), out);
        out.complete = true;
        return out;
    }
    const auto binned =
        with_state_binning(world, true_bins_per_side * true_bins_per_side, RescueGridBinning{true_bins_per_side});
    TrainerConfig config;
    config.iterations = iterations;
    config.batch = batch;
    config.seed = seed;
    const programs::RunChoices choices{BeliefAveragedPolicy(num_features, world.num_actions()),
                                       std::move(*feedback),
                                       programs::AnyEstimator(programs::EstimatorKind::batch_mean),
                                       programs::AnyStep(programs::StepKind::constant, alpha),
                                       config};
    programs::RunControl control;
    control.after_iteration = [](const IterationMetrics&) { return !programs::stop_requested(); };
    programs::Algorithm1Run r = programs::run_algorithm1(binned, filter, choices, control);
    out.records.reserve(r.trained.history.size());
    for (const IterationMetrics& m : r.trained.history)
        out.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
    out.complete = r.complete(config);
    if (out.complete) evaluate(filter, std::get<BeliefAveragedPolicy>(*r.policy), out);
    return out;
}

}  // namespace maxent::rescue
