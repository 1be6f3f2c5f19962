// examples/common/runner.hpp — runs one experiment: Algorithm 1 for every (curve, seed) pair,
// in parallel, with results that do not depend on the number of threads.
//
// Paper, Algorithm 1 with the settings of Section 6 / Appendix D (REFERENCE.md, "Algorithm 1
// as run for the figures"). Every (curve, seed) pair is one job of maxent::run_parallel; a
// job builds its own belief updater (the exact Bayes filter behind the noisy oracle of
// Figure 3: NoisyBelief with σ = 0 is the exact filter bit for bit), policy and trainer from
// the shared const model, and seeds the trainer with the seed (the same seeds for every
// objective). The trainer's streams depend only on (seed, iteration, trajectory), so a job's
// result is a pure function of its curve and seed, and results are collected in job order.
//
// Per iteration a job stores three doubles (IterationRecord: the batch means of the true-state
// entropy, of the feedback and of Σ_t H(b_t)). Before every iteration it polls the stop flag
// (set by the SIGINT handler): a stopped job returns its run marked incomplete, and only
// complete runs are ever written. Runs can be shared between experiments through a RunCache
// (fig2f plots the regulariser of fig2e's runs, fig2h that of fig2g).
//
// The objective, estimator and step rule are chosen at run time through small variant
// wrappers that satisfy the library's Feedback, GradientEstimator and StepRule concepts
// (they are called once per trajectory or iteration, so dispatch costs nothing measurable);
// the policy class, called at every step, is a template parameter.
//
// The belief-state class B (TabularBeliefPolicy) is row-sparse: the trainer combines the
// scores on the rows a batch touched only (the wrappers below declare `entrywise` and
// `apply_rows` for that), and each run records the size of its table (rows, bytes), which
// run_experiment reports on stderr and output.hpp writes to config.json.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/parallel.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "experiments.hpp"

namespace maxent::programs {

// ---------------------------------------------------------------------------------------
// Run-time choice of feedback, estimator and step rule
// ---------------------------------------------------------------------------------------

/// A Feedback holding one of the paper's four feedbacks.
class AnyFeedback {
public:
    AnyFeedback(Objective o, double rho) {
        switch (o) {
            case Objective::mse: f_.emplace<MSE>(); break;
            case Objective::moe: f_.emplace<MOE>(); break;
            case Objective::mbe: f_.emplace<MBE>(); break;
            case Objective::reg_mbe: f_.emplace<RegMBE>(rho); break;
        }
    }
    template <class G>
    double operator()(const Trajectory& t, G& g) const {
        return std::visit([&](const auto& f) { return static_cast<double>(f(t, g)); }, f_);
    }
    [[nodiscard]] RolloutNeeds needs() const {
        return std::visit([](const auto& f) { return f.needs(); }, f_);
    }

private:
    std::variant<MSE, MOE, MBE, RegMBE> f_;
};

/// A GradientEstimator holding one of the four estimators.
class AnyEstimator {
public:
    explicit AnyEstimator(EstimatorKind k) {
        switch (k) {
            case EstimatorKind::reinforce: e_.emplace<Reinforce>(); break;
            case EstimatorKind::batch_mean: e_.emplace<BatchMeanBaseline>(); break;
            case EstimatorKind::leave_one_out: e_.emplace<LeaveOneOutBaseline>(); break;
            case EstimatorKind::optimal: e_.emplace<OptimalBaseline>(); break;
        }
    }
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) {
        std::visit([&](auto& e) { e.estimate(f, s, out); }, e_);
    }
    /// All four alternatives are entry-wise (optim/estimators.hpp).
    static constexpr bool entrywise = estimator_is_entrywise<Reinforce> && estimator_is_entrywise<BatchMeanBaseline> &&
                                      estimator_is_entrywise<LeaveOneOutBaseline> &&
                                      estimator_is_entrywise<OptimalBaseline>;

private:
    std::variant<Reinforce, BatchMeanBaseline, LeaveOneOutBaseline, OptimalBaseline> e_;
};

/// A StepRule holding ConstantStep or Adam.
class AnyStep {
public:
    AnyStep(StepKind k, double alpha) : r_(make(k, alpha)) {}
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) {
        std::visit([&](auto& r) { r.apply(theta, g); }, r_);
    }
    /// Row-sparse step (optim/step_rules.hpp): ConstantStep's own, Adam's through a dense scratch.
    void apply_rows(Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows, const Eigen::MatrixXd& c) {
        std::visit([&](auto& r) { apply_step_rows(r, theta, rows, c, scratch_); }, r_);
    }
    void reset() {
        std::visit([](auto& r) { r.reset(); }, r_);
    }

private:
    static std::variant<ConstantStep, Adam> make(StepKind k, double alpha) {
        if (k == StepKind::adam) return Adam(alpha);
        return ConstantStep(alpha);
    }
    std::variant<ConstantStep, Adam> r_;
    Eigen::MatrixXd scratch_;
};

static_assert(require_feedback<AnyFeedback>());
static_assert(require_gradient_estimator<AnyEstimator>());
static_assert(require_step_rule<AnyStep>());

// ---------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------

/// The metrics of one iteration, as written to runs.csv.
struct IterationRecord {
    double true_entropy = 0.0;        ///< batch mean of H(d(τ_S))
    double feedback = 0.0;            ///< batch mean of the feedback
    double belief_entropy_sum = 0.0;  ///< batch mean of Σ_t H(b_t)
};

/// One training run (a curve and a seed).
struct SeedRun {
    std::uint64_t seed = 0;
    std::vector<IterationRecord> records;  ///< one per iteration run
    bool complete = false;                 ///< all K iterations ran (not interrupted)
    std::size_t table_rows = 0;            ///< class B: distinct beliefs with a row at the end (else 0)
    std::size_t table_bytes = 0;           ///< class B: bytes of its table (θ capacity + belief index)
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

/// Complete runs keyed by everything that determines them, shared between experiments.
class RunCache {
public:
    [[nodiscard]] const SeedRun* find(const std::string& key) const {
        const auto it = runs_.find(key);
        return it == runs_.end() ? nullptr : &it->second;
    }
    void insert(const std::string& key, const SeedRun& run) {
        if (run.complete) runs_.insert_or_assign(key, run);
    }
    [[nodiscard]] std::size_t size() const noexcept { return runs_.size(); }
    /// Drops every run whose key `keep(key)` rejects.
    template <class Keep>
    void retain(Keep keep) {
        std::erase_if(runs_, [&](const auto& entry) { return !keep(entry.first); });
    }

private:
    std::map<std::string, SeedRun> runs_;
};

/// Everything that determines a run, as text (the cache key).
[[nodiscard]] inline std::string run_key(const EnvironmentSpec& env, const Curve& c, const Settings& s,
                                         std::uint64_t seed) {
    std::string k = env.describe();
    k += cat("|", name_of(c.objective), "|", format_number(c.noise), "|", name_of(c.policy));
    k += cat("|K=", std::to_string(s.iterations), "|N=", std::to_string(s.batch), "|alpha=",
             format_number(s.effective_alpha()), "|rho=", format_number(s.rho), "|", name_of(s.estimator), "|",
             name_of(s.step), "|", name_of(s.counting), "|seed=", std::to_string(seed));
    return k;
}

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

namespace detail {

template <class P, class M>
SeedRun train_seed(const M& model, std::size_t policy_rows, const Curve& c, const Settings& s,
                   std::uint64_t seed, const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    using Updater = NoisyBelief<BayesFilter<M>>;
    TrainerConfig config;
    config.iterations = s.iterations;
    config.batch = s.batch;
    config.seed = seed;
    config.counting = s.counting;
    config.track_belief_entropy = true;
    Trainer<M, Updater, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
        model, Updater(BayesFilter<M>(model), c.noise), P(policy_rows, model.num_actions()),
        AnyFeedback(c.objective, s.rho), AnyEstimator(s.estimator), AnyStep(s.step, s.effective_alpha()), config);
    SeedRun run;
    run.seed = seed;
    run.records.reserve(s.iterations);
    for (std::size_t k = 0; k < s.iterations; ++k) {
        if (stop != nullptr && stop->load(std::memory_order_relaxed)) return run;
        const IterationMetrics m = trainer.iterate();
        run.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
        if (iterations != nullptr) iterations->fetch_add(1, std::memory_order_relaxed);
    }
    run.complete = true;
    if constexpr (std::is_same_v<P, TabularBeliefPolicy>) {
        const TableMemory mem = trainer.policy().memory();
        run.table_rows = mem.rows;
        run.table_bytes = mem.bytes();
    }
    return run;
}

}  // namespace detail

/// Trains one curve on one seed. Polls `stop` (may be null) before every iteration and
/// adds one to `iterations` (may be null) after every iteration. `model` is a grid world of
/// the paper or any other tabular POMDP with its horizon set (maxent-explore trains on a
/// model file's FinitePomdp<std::string, std::string, std::string>).
template <class M>
[[nodiscard]] SeedRun run_curve_seed(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                                     const std::atomic<bool>* stop = nullptr,
                                     std::atomic<std::uint64_t>* iterations = nullptr) {
    static_assert(require_tabular_pomdp<M>());
    switch (c.policy) {
        case PolicyClass::observation:
            return detail::train_seed<ObservationPolicy>(model, model.num_observations(), c, s, seed, stop,
                                                         iterations);
        case PolicyClass::belief_averaged:
            return detail::train_seed<BeliefAveragedPolicy>(model, model.num_states(), c, s, seed, stop, iterations);
        case PolicyClass::believed_state:
            return detail::train_seed<BelievedStatePolicy>(model, model.num_states(), c, s, seed, stop, iterations);
        case PolicyClass::belief_mixture:
            return detail::train_seed<BeliefMixturePolicy>(model, model.num_states(), c, s, seed, stop, iterations);
        case PolicyClass::belief_state:
            return detail::train_seed<TabularBeliefPolicy>(model, model.num_states(), c, s, seed, stop, iterations);
    }
    throw config_error("run_curve_seed: unknown policy class");
}

/// Number of (curve, seed) runs of `e` under `s` that are not in `cache` (may be null).
[[nodiscard]] inline std::size_t pending_runs(const Experiment& e, const Settings& s, const RunCache* cache) {
    std::size_t n = 0;
    for (const Curve& c : make_curves(e, s))
        for (const std::uint64_t seed : s.seeds)
            if (cache == nullptr || cache->find(run_key(e.env, c, s, seed)) == nullptr) ++n;
    return n;
}

/// Runs every (curve, seed) job of experiment `e` under settings `s` on `threads` threads
/// (0 = all hardware threads). Runs found in `cache` (may be null) are reused, and complete
/// new runs are added to it. `stop` and `progress` may be null.
[[nodiscard]] inline ExperimentResult run_experiment(const Experiment& e, const Settings& s, std::size_t threads,
                                                     const std::atomic<bool>* stop = nullptr,
                                                     ProgressCounters* progress = nullptr,
                                                     RunCache* cache = nullptr) {
    ExperimentResult result;
    result.experiment = &e;
    result.settings = s;
    const std::vector<Curve> curves = make_curves(e, s);
    const GridPomdp model = e.env.build();
    const std::size_t seeds = s.seeds.size();

    // Jobs (curve-major, seed-minor); cached runs are not jobs.
    struct Job {
        std::size_t curve;
        std::size_t seed_index;
    };
    std::vector<Job> jobs;
    result.curves.resize(curves.size());
    for (std::size_t c = 0; c < curves.size(); ++c) {
        result.curves[c].curve = curves[c];
        result.curves[c].runs.resize(seeds);
        for (std::size_t i = 0; i < seeds; ++i) {
            const SeedRun* hit = cache ? cache->find(run_key(e.env, curves[c], s, s.seeds[i])) : nullptr;
            if (hit != nullptr) {
                result.curves[c].runs[i] = *hit;
                if (progress) progress->runs_done[c].fetch_add(1);
            } else {
                jobs.push_back({c, i});
            }
        }
    }

    const auto start = std::chrono::steady_clock::now();
    std::vector<SeedRun> fresh = run_parallel(jobs.size(), threads, [&](std::size_t j) {
        const Job& job = jobs[j];
        SeedRun run = run_curve_seed(model, curves[job.curve], s, s.seeds[job.seed_index], stop,
                                     progress ? &progress->iterations : nullptr);
        if (progress && run.complete) progress->runs_done[job.curve].fetch_add(1);
        return run;
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    for (std::size_t j = 0; j < jobs.size(); ++j) {
        SeedRun& run = fresh[j];
        result.iterations_run += run.records.size();
        if (cache) cache->insert(run_key(e.env, curves[jobs[j].curve], s, run.seed), run);
        result.curves[jobs[j].curve].runs[jobs[j].seed_index] = std::move(run);
    }
    for (const CurveRuns& c : result.curves)
        for (const SeedRun& r : c.runs)
            if (!r.complete) result.interrupted = true;
    for (const CurveRuns& c : result.curves)
        if (c.curve.policy == PolicyClass::belief_state) {
            const TableStats t = table_stats(c);
            if (t.runs > 0)
                std::fprintf(stderr,
                             "%s: %s: class B table per run: %.0f rows on average (max %zu), max %.2f MiB "
                             "(%zu runs)\n",
                             e.name.c_str(), c.curve.label.c_str(), t.mean_rows, t.max_rows,
                             static_cast<double>(t.max_bytes) / (1024.0 * 1024.0), t.runs);
        }
    return result;
}

}  // namespace maxent::programs
