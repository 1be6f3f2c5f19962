// runtime/results.hpp — what the runner returns and the store, the tables, the plots, the
// shards and the merge read: per iteration three doubles (IterationRecord), per (curve, seed)
// run its records and extras (SeedRun), the runs of a curve (CurveRuns) and of an experiment
// (ExperimentResult); the progress counters the jobs update; and how a run's heatmap counts
// are drawn (count_visits, on streams of their own: heatmap_stream_run).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "maxent/core/trajectory.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/learned_belief.hpp"

#include "experiments.hpp"
#include "settings.hpp"

namespace maxent::programs {

// ---------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------

/// The metrics of one iteration, as written to runs.csv.
struct IterationRecord {
    double true_entropy = 0.0;        ///< batch mean of H(d(τ_S))
    double feedback = 0.0;            ///< batch mean of the feedback
    double belief_entropy_sum = 0.0;  ///< batch mean of Σ_t H(b_t)
};

/// Where one run's final policy takes the true state (the heatmaps, output.hpp): E episodes
/// rolled out after the last training iteration (count_visits); optim/evaluate.hpp.
using maxent::VisitCounts;

/// What a selection learner chose for one run (runner.hpp select_learned_model): L (a cloned
/// HMM's clone total), the Dirichlet pseudo-count, the clone allocation ("none" for an IOHMM)
/// and how many candidates it compared.
struct SelectedModel {
    std::size_t latent_states = 0;
    double pseudo_count = 0.0;
    std::string allocation{};
    std::size_t candidates = 0;
};

/// One training run (a curve and a seed).
struct SeedRun {
    std::uint64_t seed = 0;
    std::vector<IterationRecord> records;  ///< one per iteration run
    bool complete = false;                 ///< all K iterations ran (not interrupted)
    std::size_t table_rows = 0;            ///< class B: distinct beliefs with a row at the end (else 0)
    std::size_t table_bytes = 0;           ///< class B: bytes of its table (θ capacity + belief index)
    /// Learned-belief curves: every fit of the belief model (FitRecord), and the true model's
    /// held-out log-likelihood per observation on the same held-out episodes (else empty, NaN).
    std::vector<FitRecord> fits{};
    double truth_heldout = std::numeric_limits<double>::quiet_NaN();
    /// Learned-belief curves: the final learned model as a POMDP file's text (write_pomdp_file;
    /// output.hpp writes it to learned/), empty when the format cannot hold it (per-action
    /// emissions) or for other curves.
    std::string learned_model{};
    /// Learned curves whose learner selects its size (LearnerKind::selects): what it chose on
    /// the warm-up episodes (select_learned_model); latent_states 0 for the others.
    SelectedModel selected{};
    VisitCounts visits{};  ///< the final policy's visits (Settings::heatmap_episodes > 0), else empty
    std::vector<double> finals{};  ///< a program's own measures of the final policy (maxent-rescue), else empty
    double seconds = 0.0;  ///< CPU time of its training here (0 when kept); written to no file
};

/// The runs of one curve, in the order of Settings::seeds.
struct CurveRuns {
    Curve curve;
    std::vector<SeedRun> runs;

    [[nodiscard]] std::size_t complete_runs() const {
        std::size_t n = 0;
        for (const SeedRun& r : runs) n += r.complete ? 1 : 0;
        return n;
    }
};

struct ExperimentResult {
    const Experiment* experiment = nullptr;
    Settings settings;
    std::vector<CurveRuns> curves;
    bool interrupted = false;       ///< some run did not complete
    double seconds = 0.0;           ///< wall time of the training
    std::uint64_t iterations_run = 0;  ///< iterations trained here (not taken from the cache)
    /// Per job (curve-major, seed-minor): whether this process runs it (a shard runs a slice
    /// of the study, shards.hpp); empty = every job. Unselected runs stay incomplete and do
    /// not count as interrupted.
    std::vector<char> selected;
    std::size_t reused = 0;  ///< runs taken from the work area (RunStore) instead of trained
    std::size_t shared = 0;  ///< runs trained for an earlier experiment of the same queue (run_experiments)

    [[nodiscard]] bool is_selected(std::size_t curve, std::size_t seed_index) const {
        return selected.empty() || selected.at(curve * settings.seeds.size() + seed_index) != 0;
    }
    [[nodiscard]] std::size_t selected_runs() const {
        if (selected.empty()) return total_runs();
        std::size_t n = 0;
        for (const char x : selected) n += x != 0 ? 1 : 0;
        return n;
    }

    [[nodiscard]] std::size_t complete_runs() const {
        std::size_t n = 0;
        for (const CurveRuns& c : curves) n += c.complete_runs();
        return n;
    }
    [[nodiscard]] std::size_t total_runs() const { return curves.size() * settings.seeds.size(); }
};

/// Shared progress counters, updated by the jobs and read by a progress reporter.
struct ProgressCounters {
    explicit ProgressCounters(std::size_t curves) : runs_done(curves) {}
    std::atomic<std::uint64_t> iterations{0};          ///< iterations trained so far
    std::vector<std::atomic<std::size_t>> runs_done;   ///< per curve, runs finished (or cached)
};

/// Table sizes of a class-B curve over its complete runs.
struct TableStats {
    std::size_t runs = 0;
    double mean_rows = 0.0;
    std::size_t max_rows = 0;
    double mean_bytes = 0.0;
    std::size_t max_bytes = 0;
};
[[nodiscard]] inline TableStats table_stats(const CurveRuns& c) {
    TableStats t;
    for (const SeedRun& r : c.runs) {
        if (!r.complete) continue;
        ++t.runs;
        t.mean_rows += static_cast<double>(r.table_rows);
        t.mean_bytes += static_cast<double>(r.table_bytes);
        t.max_rows = std::max(t.max_rows, r.table_rows);
        t.max_bytes = std::max(t.max_bytes, r.table_bytes);
    }
    if (t.runs > 0) {
        t.mean_rows /= static_cast<double>(t.runs);
        t.mean_bytes /= static_cast<double>(t.runs);
    }
    return t;
}

// ---------------------------------------------------------------------------------------
// Heatmap counts
// ---------------------------------------------------------------------------------------


/// The true states visited by `episodes` episodes of `policy` (copied: class B adds rows for
/// new beliefs) acting with `updater` (copied) on `model`, counted as `counting` says,
/// episode e drawn from stream(seed, heatmap_stream_run, e) (optim/evaluate.hpp visit_counts).
template <class M, class U, class P>
[[nodiscard]] VisitCounts count_visits(const M& model, const U& updater, const P& policy, StateCounting counting,
                                       std::uint64_t seed, std::size_t episodes) {
    return visit_counts(model, updater, policy, counting, seed, heatmap_stream_run, episodes);
}

}  // namespace maxent::programs
