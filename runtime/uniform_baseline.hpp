// runtime/uniform_baseline.hpp — the uniformly random policy on a paper experiment's world,
// per seed of the study: its mean true-state entropy (uniform.csv and the plot's line;
// uniform.hpp uniform_entropy) and, with heatmap episodes, its visits (the heatmaps' "uniform"
// panel; count_visits on the runs' heatmap streams). These rollouts run in parallel with
// results that do not depend on the thread count, and are compiled once
// (uniform_baseline.cpp); output.hpp writes what they return.
#pragma once

#include <cstddef>
#include <vector>

#include "experiments.hpp"
#include "results.hpp"
#include "settings.hpp"

namespace maxent::programs {

/// Episodes per seed of maxent-paper's uniform baseline: the per-seed means then vary by
/// about 0.3 / sqrt(1000) ≈ 0.01 nats on the paper's grids, well below the curves' bands.
inline constexpr std::size_t paper_uniform_episodes = 1000;

/// The uniform policy's mean true-state entropy on experiment `e`'s world under the
/// counting of `s`, per seed of `s.seeds` (paper_uniform_episodes episodes each), on
/// `threads` threads (0 = all hardware threads).
[[nodiscard]] std::vector<double> uniform_baseline(const Experiment& e, const Settings& s, std::size_t threads);

/// The uniform policy's visits per seed of `s` on experiment `e`'s world: heatmap_episodes
/// episodes each on the runs' streams (count_visits), on `threads` threads.
[[nodiscard]] std::vector<VisitCounts> uniform_visits(const Experiment& e, const Settings& s, std::size_t threads);

/// What an experiment's files need of the uniform policy (write_experiment): per seed of the
/// study, its mean true-state entropy and, when Settings::heatmap_episodes > 0, its visits.
struct UniformRuns {
    std::vector<double> entropy;       ///< uniform_baseline
    std::vector<VisitCounts> visits;   ///< uniform_visits; empty without heatmap episodes
};

/// The uniform runs for `r`'s experiment and settings on `threads` threads; nothing when `r`
/// has no complete run (then no file is written).
[[nodiscard]] UniformRuns uniform_runs(const ExperimentResult& r, std::size_t threads);

}  // namespace maxent::programs
