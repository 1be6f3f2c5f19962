// runtime/runner.hpp — runs one experiment: Algorithm 1 for every (curve, seed) pair,
// in parallel, with results that do not depend on the number of threads (runner.cpp).
//
// Paper, Algorithm 1 with the settings of Section 6 / Appendix D (docs/reference.md,
// "Algorithm 1 as run for the figures"). Every (curve, seed) pair is one job of
// maxent::run_parallel; a job builds its own belief updater (the exact Bayes filter behind
// the noisy oracle of Figure 3: NoisyBelief with σ = 0 is the exact filter bit for bit),
// policy and trainer from the shared const model, seeded with the seed; the trainer's streams
// depend only on (seed, iteration, trajectory), so a job's result is a pure function of its
// curve and seed, and results are collected in job order. The objective, estimator and step
// rule are run-time boxes (components.hpp), the policy class a run-time value (AnyPolicy), and
// every run goes through run_algorithm1 (algorithm.hpp), compiled once for the finite worlds
// over indices (algorithm_index.cpp): a grid world or a model file's world is copied into one
// (index_pomdp, algorithm_finite.hpp; the same matrices, so the same bits).
//
// The results (results.hpp): per iteration a run stores three doubles (IterationRecord).
// Before every iteration a job polls the stop flag: a stopped job returns its run incomplete,
// and only complete runs are written. Heatmaps (Settings::heatmap_episodes = E > 0): a
// complete run then rolls out E episodes of its final policy on streams of its own
// (count_visits), so nothing else changes.
// Class B (TabularBeliefPolicy) records the size of its table (rows, bytes).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/belief/learned_model.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "maxent/optim/trainer.hpp"

#include "algorithm_finite.hpp"
#include "experiments.hpp"
#include "results.hpp"
#include "settings.hpp"

namespace maxent {
struct SelectionReport;  // belief/learned/select.hpp
}

namespace maxent::programs {

class RunCache;  // run_store.hpp
class RunStore;  // run_store.hpp

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/// The trainer's settings for one (curve, seed) run.
[[nodiscard]] TrainerConfig trainer_config(const Settings& s, std::uint64_t seed);

/// The learned-belief trainer's options for the settings' LearningSettings; L = 0 there means
/// the world's `num_states`.
[[nodiscard]] LearnedBeliefOptions learned_options(const LearningSettings& ls, std::size_t num_states);

/// Sets `o` up for the learner called `learner` (learner_kinds); `truth` is the world as an
/// IOHMM (to_iohmm), read only by the learners that know part of it. Throws config_error for
/// an unknown learner, or a known-part learner whose L is not the world's S.
void apply_learner(LearnedBeliefOptions& o, const std::string& learner, const IohmmModel& truth);

/// For a learner that selects its size (learner_selects): chooses L (em-select,
/// em-spectral-select: 1, 2, 4, ... up to ls.select_max_states, each with the pseudo-counts
/// 0.001, 0.01, 0.1 as smoothing) or the clone total and allocation (cloned-hmm-select: O,
/// 2 O, ... up to the bound, even and by frequency, pseudo-count 0.001) on `warmup` (a fifth held
/// out, split by o.fit.seed; one restart per candidate; the one-standard-error rule,
/// select.hpp) and sets `o` to the winner (o.fit.latent_states, smoothing or prior, o.clones),
/// to be fitted by the trainer with o.fit.restarts on all of `warmup`. o.fit must have its
/// actions, observations, seed and stop set (apply_learner first). Returns what was chosen;
/// `stopped` when o.fit.stop ended the selection (then `o` is unchanged). `report`, when
/// given, receives every candidate's scores (maxent-learned-diagnosis prints them).
[[nodiscard]] SelectedModel select_learned_model(LearnedBeliefOptions& o, const std::string& learner,
                                                 std::span<const ActionObservationSequence> warmup,
                                                 const LearningSettings& ls, bool& stopped,
                                                 SelectionReport* report = nullptr);

/// select_learned_model for run `config` of a learned-belief trainer on `model`: on the warm-up
/// episodes that trainer fits first (learned_belief_episodes, the same streams), with o.fit's
/// actions, observations, seed (learned_belief_fit_seed) and stop (`stop`, may be null) set as
/// the trainer sets them. maxent-paper's and maxent-explore's runs (train_seed.hpp) and the
/// Python module's train_learned choose through this one call, so they choose the same.
template <class M>
[[nodiscard]] SelectedModel select_learned_model_for_run(const M& model, LearnedBeliefOptions& o,
                                                         const std::string& learner, const LearningSettings& ls,
                                                         const TrainerConfig& config, const std::atomic<bool>* stop,
                                                         bool& stopped) {
    o.fit.num_actions = model.num_actions();
    o.fit.num_observations = model.num_observations();
    o.fit.seed = learned_belief_fit_seed(config);
    o.fit.stop = stop;
    return select_learned_model(o, learner, learned_belief_episodes(model, config, o.warmup_episodes, 0), ls, stopped);
}

/// Trains one curve on one seed. Polls `stop` (may be null) before every iteration and
/// adds one to `iterations` (may be null) after every iteration. `model` is a grid world of
/// the paper or a model file's world, with its horizon set.
[[nodiscard]] SeedRun run_curve_seed(const GridPomdp& model, const Curve& c, const Settings& s, std::uint64_t seed,
                                     const std::atomic<bool>* stop = nullptr,
                                     std::atomic<std::uint64_t>* iterations = nullptr);
[[nodiscard]] SeedRun run_curve_seed(const FileModel& model, const Curve& c, const Settings& s, std::uint64_t seed,
                                     const std::atomic<bool>* stop = nullptr,
                                     std::atomic<std::uint64_t>* iterations = nullptr);

/// Whether a kept run (cache or work area) serves settings `s`: it has the heatmap counts
/// asked for (trained again otherwise).
[[nodiscard]] inline bool kept_run_serves(const SeedRun& r, const Settings& s) {
    return s.heatmap_episodes == 0 || r.visits.episodes == s.heatmap_episodes;
}

/// Number of (curve, seed) runs of `e` under `s` that run_experiment would train: among the
/// `selected` jobs (null or empty: all; see ExperimentResult::selected), those not kept in
/// `cache` (may be null) or `store` (may be null) in a form that serves `s`
/// (kept_run_serves; a stored run is read, as run_experiment reads it).
[[nodiscard]] std::size_t pending_runs(const Experiment& e, const Settings& s, const RunCache* cache,
                                              const std::vector<char>* selected = nullptr,
                                              const RunStore* store = nullptr);

/// The estimated relative duration of one run of curve `c` on `model` under `s`, for ordering
/// a work queue longest first: run_cost (settings.hpp: the policy class) x K x N x T x S (a step
/// of the belief filter and of the policy's features costs about S). Measured per run in
/// docs/performance.md ("One work queue").
[[nodiscard]] std::uint64_t estimated_run_cost(const GridPomdp& model, const Curve& c, const Settings& s);

/// A run of a work queue (run_longest_first) and when it finished: seconds from the pool's start.
struct QueuedRun {
    SeedRun run;
    double finished = 0.0;
};

/// The work queue every program's runs go through: job(j) for every j < costs.size() in ONE
/// pool of `threads` threads (0 = all hardware threads), longest first (costs[j]; equal costs
/// in job order), so that no thread idles while a long job waits; each run's SeedRun::seconds
/// is the CPU time of its job. Results in job order: a run is a pure function of its job, so
/// the order changes nothing but the time. run_experiments and maxent-rescue are built on it.
[[nodiscard]] std::vector<QueuedRun> run_longest_first(const std::vector<std::uint64_t>& costs, std::size_t threads,
                                                       const std::function<SeedRun(std::size_t)>& job);

/// The runs of a study whose run j is keyed keys[j] (everything that determines it, as
/// run_key): a run kept in `store` (its work area, RunStore) is read back and counted in
/// `reused`; the others are trained by job(j) through run_longest_first, each complete one
/// saved in `store` as soon as it finishes, so that the same command after an interruption
/// trains only the rest. Results in job order (maxent-rescue's queue).
[[nodiscard]] std::vector<SeedRun> run_or_resume(const std::vector<std::string>& keys,
                                                 const std::vector<std::uint64_t>& costs, const RunStore& store,
                                                 std::size_t threads, const std::function<SeedRun(std::size_t)>& job,
                                                 std::size_t& reused);

/// One experiment of a command's work queue (run_experiments): what run_experiment takes.
struct ExperimentPlan {
    const Experiment* experiment = nullptr;
    Settings settings;
    std::vector<char> selected;               ///< a shard's slice (ExperimentResult::selected); empty = all
    const RunStore* store = nullptr;          ///< its work area (may be null)
    ProgressCounters* progress = nullptr;     ///< may be null; may be shared by several plans
    std::size_t progress_curve_offset = 0;    ///< index of its first curve in progress->runs_done
};

/// The runs of all `plans` in ONE pool of `threads` threads, longest first
/// (estimated_run_cost; equal costs in plan and job order), so that no thread idles while
/// another experiment still has work. Each experiment's result is what run_experiment would
/// give it: runs are pure functions of (curve, settings, seed), so the order changes nothing
/// but the time. A run several plans need (same run_key) is trained once, for the first,
/// and counted as `shared` by the others; kept runs come from `cache` (may be null) or the
/// plan's store as in run_experiment, and each new complete run is saved in the store of
/// every plan that needs it. Results in plan order; `seconds` is each plan's time from the
/// pool's start until its last run finished.
[[nodiscard]] std::vector<ExperimentResult> run_experiments(const std::vector<ExperimentPlan>& plans,
                                                            std::size_t threads,
                                                            const std::atomic<bool>* stop = nullptr,
                                                            RunCache* cache = nullptr);

/// Appends to file `path` one line "experiment,curve,seed,estimated_cost,seconds" per run
/// trained in `results` (SeedRun::seconds > 0; results[p] is plans[p]'s): the inputs of
/// docs/performance.md's makespan model (scripts/makespan.py; maxent-paper writes them when
/// the environment variable MAXENT_RUN_TIMES names a file).
void append_run_times(const std::string& path, const std::vector<ExperimentPlan>& plans,
                      const std::vector<ExperimentResult>& results);

/// config_error "<who>: <what> lists <show(x)> twice<why>" unless the list `xs` holds no value
/// twice (the settings' lists; the Python module's seeds).
template <class T, class Show>
void require_no_repeats(const char* who, const char* what, const std::vector<T>& xs, Show show,
                        std::string_view why = {}) {
    std::vector<T> sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end()) throw config_error(cat(who, ": ", what, " lists ", show(*twice), " twice", why));
}

/// The checks of settings `s` for experiment `e` that the programs' flags make when parsed, for
/// callers that build Settings otherwise (the Python module): iterations, batch and seeds
/// (>= 1, no seed twice), alpha and rho, the override lists (nothing twice; noises in [0, 1];
/// noises and policies not empty), at least one curve, with distinct labels, and the
/// learned-belief options (LearnedBeliefOptions::validate). Throws config_error naming the
/// setting and its value. run_experiment and run_experiments call it first, for each experiment.
void validate_settings(const Experiment& e, const Settings& s);

/// Runs every (curve, seed) job of experiment `e` under settings `s` on `threads` threads
/// (0 = all hardware threads; run_experiments with one plan). Runs found in `cache` (may be null) are reused, and complete
/// new runs are added to it. `stop` and `progress` may be null. Only the `selected` jobs run
/// (null or empty: all; a shard's slice, shards.hpp). Runs found in `store` (may be null: the
/// work area, RunStore) are reused, and every complete new run is saved there as soon as it
/// finishes.
[[nodiscard]] ExperimentResult run_experiment(const Experiment& e, const Settings& s, std::size_t threads,
                                                     const std::atomic<bool>* stop = nullptr,
                                                     ProgressCounters* progress = nullptr,
                                                     RunCache* cache = nullptr,
                                                     const std::vector<char>* selected = nullptr,
                                                     const RunStore* store = nullptr);

}  // namespace maxent::programs
