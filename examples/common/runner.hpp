// examples/common/runner.hpp — runs one experiment: Algorithm 1 for every (curve, seed) pair,
// in parallel, with results that do not depend on the number of threads.
//
// Paper, Algorithm 1 with the settings of Section 6 / Appendix D (docs/reference.md, "Algorithm 1
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
// (AnyFeedback here, AnyEstimator and AnyStep in components.hpp; they are called once per
// trajectory or iteration, so dispatch costs nothing measurable); the policy class, called
// at every step, is a template parameter.
//
// Heatmaps (Settings::heatmap_episodes = E > 0): after the last iteration a complete run
// rolls out E episodes of its FINAL policy with its belief updater (the exact filter behind
// the noise, or the learned filter as the last refit left it) and counts the true states of
// the counted steps (count_visits), on streams of their own, so nothing else a run computes
// changes. The counts travel with the run: cache, work area (RunStore), shards.
//
// The belief-state class B (TabularBeliefPolicy) is row-sparse: the trainer combines the
// scores on the rows a batch touched only (the wrappers below declare `entrywise` and
// `apply_rows` for that), and each run records the size of its table (rows, bytes), which
// run_experiment reports on stderr and output.hpp writes to config.json.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <unistd.h>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "components.hpp"
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

static_assert(require_feedback<AnyFeedback>());

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
/// rolled out after the last training iteration (count_visits).
struct VisitCounts {
    std::size_t episodes = 0;             ///< E; 0 = not counted (heatmaps off)
    std::vector<std::uint64_t> counts{};  ///< per true state: its counted steps over the E episodes
    double mean_entropy = 0.0;            ///< mean over the E episodes of H(d(τ_S)) (the true-state entropy)

    friend bool operator==(const VisitCounts&, const VisitCounts&) = default;
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
    VisitCounts visits{};  ///< the final policy's visits (Settings::heatmap_episodes > 0), else empty
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

/// Everything that determines a run apart from the model, as text (part of the cache key).
[[nodiscard]] inline std::string settings_key(const Curve& c, const Settings& s, std::uint64_t seed) {
    std::string k = cat("|", name_of(c.objective), "|", format_number(c.noise), "|", name_of(c.policy));
    k += cat("|K=", std::to_string(s.iterations), "|N=", std::to_string(s.batch), "|alpha=",
             format_number(s.effective_alpha()), "|rho=", format_number(s.rho), "|", name_of(s.estimator), "|",
             name_of(s.step), "|", name_of(s.counting), "|seed=", std::to_string(seed));
    if (c.learned) k += cat("|learned|", s.learning.key());
    return k;
}

/// Everything that determines a run, as text (the cache key).
[[nodiscard]] inline std::string run_key(const EnvironmentSpec& env, const Curve& c, const Settings& s,
                                         std::uint64_t seed) {
    return env.describe() + settings_key(c, s, seed);
}

// ---------------------------------------------------------------------------------------
// Finished runs on disk: the unit of restart (resume)
// ---------------------------------------------------------------------------------------

/// An error reading or writing the work area; the message names the path.
class run_store_error : public maxent::error {
public:
    using maxent::error::error;
};

/// FNV-1a, 64 bits: names a run's file after its key, and digests model files.
[[nodiscard]] inline std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL) {
    for (const char ch : bytes) {
        h ^= static_cast<unsigned char>(ch);
        h *= 0x100000001b3ULL;
    }
    return h;
}

/// The work area of an experiment's folder OUT/<name>: OUT/.<name>.runs, next to the folder
/// (the folder itself is replaced as a whole, output.hpp, so it cannot hold files that must
/// survive a failed run).
[[nodiscard]] inline std::filesystem::path work_area_of(const std::filesystem::path& folder) {
    return folder.parent_path() / cat(".", folder.filename().string(), ".runs");
}

/// Every finished run of a study, one file per run in the work area, written as soon as the
/// run finishes: a study interrupted (Ctrl-C, SIGTERM, a killed job, an error in another run)
/// and started again with the same settings reruns only the runs that have no file. A file is
/// reused only when its key (everything that determines the run: run_key) and the build
/// fingerprint (shards.hpp: version, commit, compiler, floating-point flags, Eigen's vector
/// width) are those of the rerun; anything else is trained again. Numbers are stored as
/// %.17g, which reads back as the same double, so a resumed study writes the same bytes as
/// one run without interruption. The programs remove the work area once the study's set is
/// committed with every run complete.
///
/// A run's file <16 hex digits of fnv1a64(key)>.run:
///   maxent-run 1 / key <key> / build <fingerprint> / seed <seed> / table <rows> <bytes> /
///   records <K>, then K lines "<true_entropy> <feedback> <belief_entropy_sum>"; then, for
///   learned-belief runs, "fits <n> <truth_heldout>" and n lines of fits; then, for runs with
///   heatmap counts, "visits <E> <mean_entropy> <S>" and one line of the S counts. A run
///   whose counts are not those the rerun asks for (another E, or none) is trained again
///   (run_experiment).
class RunStore {
public:
    RunStore() = default;
    RunStore(std::filesystem::path dir, std::string build) : dir_(std::move(dir)), build_(std::move(build)) {}

    [[nodiscard]] bool enabled() const noexcept { return !dir_.empty(); }
    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

    [[nodiscard]] std::filesystem::path file_of(const std::string& key) const {
        char name[32];
        std::snprintf(name, sizeof name, "%016llx.run", static_cast<unsigned long long>(fnv1a64(key)));
        return dir_ / name;
    }

    /// The finished run stored under `key` by a build with this fingerprint, if any (a file
    /// that does not match or does not parse is ignored: the run is trained again).
    [[nodiscard]] std::optional<SeedRun> load(const std::string& key) const {
        if (!enabled()) return std::nullopt;
        std::ifstream in(file_of(key), std::ios::binary);
        if (!in) return std::nullopt;
        std::string line;
        auto expect = [&](std::string_view prefix) -> std::optional<std::string> {
            if (!std::getline(in, line) || line.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
            return line.substr(prefix.size());
        };
        const auto magic = expect("maxent-run 1");
        const auto k = expect("key ");
        const auto b = expect("build ");
        const auto seed = expect("seed ");
        const auto table = expect("table ");
        const auto records = expect("records ");
        if (!magic || !k || !b || !seed || !table || !records || *k != key || *b != build_) return std::nullopt;
        SeedRun run;
        std::size_t count = 0;
        std::istringstream t(*table);
        if (!parse_uint(*seed, run.seed) || !(t >> run.table_rows >> run.table_bytes) || !parse_size(*records, count))
            return std::nullopt;
        run.records.reserve(count);
        for (std::size_t i = 0; i < count; ++i) {
            if (!std::getline(in, line)) return std::nullopt;
            IterationRecord r;
            double* fields[3] = {&r.true_entropy, &r.feedback, &r.belief_entropy_sum};
            const char* p = line.data();
            const char* end = line.data() + line.size();
            for (int f = 0; f < 3; ++f) {
                const auto res = std::from_chars(p, end, *fields[f]);
                if (res.ec != std::errc()) return std::nullopt;
                p = res.ptr;
                if (f < 2) {
                    if (p == end || *p != ' ') return std::nullopt;
                    ++p;
                }
            }
            if (p != end) return std::nullopt;
            run.records.push_back(r);
        }
        bool more = static_cast<bool>(std::getline(in, line));
        if (more && line.compare(0, 5, "fits ") == 0) {  // learned-belief runs
            std::istringstream h(line.substr(5));
            std::size_t n = 0;
            std::string truth;
            if (!(h >> n >> truth) || !parse_double(truth, run.truth_heldout)) return std::nullopt;
            for (std::size_t i = 0; i < n; ++i) {
                if (!std::getline(in, line)) return std::nullopt;
                std::istringstream f(line);
                FitRecord r;
                int converged = 0;
                std::string train, heldout;
                if (!(f >> r.iteration >> r.episodes >> r.em_iterations >> converged >> train >> heldout) ||
                    !parse_double(train, r.train_log_likelihood) || !parse_double(heldout, r.heldout_log_likelihood))
                    return std::nullopt;
                r.converged = converged != 0;
                run.fits.push_back(r);
            }
            more = static_cast<bool>(std::getline(in, line));
        }
        if (more && line.compare(0, 7, "visits ") == 0) {  // heatmap counts
            std::istringstream h(line.substr(7));
            std::string entropy;
            std::size_t states = 0;
            if (!(h >> run.visits.episodes >> entropy >> states) || !parse_double(entropy, run.visits.mean_entropy) ||
                !std::getline(in, line))
                return std::nullopt;
            std::istringstream c(line);
            run.visits.counts.resize(states);
            for (std::uint64_t& x : run.visits.counts)
                if (!(c >> x)) return std::nullopt;
            std::string rest;
            if (c >> rest) return std::nullopt;
        }
        run.complete = true;
        return run;
    }

    /// Stores a complete run (atomically: a temporary file named after this process, then a
    /// rename). Safe to call from several threads for different keys. Throws run_store_error.
    void save(const std::string& key, const SeedRun& run) const {
        if (!enabled() || !run.complete) return;
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        if (ec) throw run_store_error(cat("cannot create the work area '", dir_.string(), "': ", ec.message()));
        std::string text = cat("maxent-run 1\nkey ", key, "\nbuild ", build_, "\nseed ", std::to_string(run.seed),
                               "\ntable ", std::to_string(run.table_rows), " ", std::to_string(run.table_bytes),
                               "\nrecords ", std::to_string(run.records.size()), "\n");
        char buf[64];
        for (const IterationRecord& r : run.records) {
            const double v[3] = {r.true_entropy, r.feedback, r.belief_entropy_sum};
            for (int f = 0; f < 3; ++f) {
                const auto res = std::to_chars(buf, buf + sizeof buf, v[f], std::chars_format::general, 17);
                text.append(buf, res.ptr);
                text += f < 2 ? ' ' : '\n';
            }
        }
        if (!run.fits.empty()) {  // learned-belief runs only
            auto number = [&](double v) {
                const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
                return std::string(buf, res.ptr);
            };
            text += cat("fits ", std::to_string(run.fits.size()), " ", number(run.truth_heldout), "\n");
            for (const FitRecord& f : run.fits)
                text += cat(std::to_string(f.iteration), " ", std::to_string(f.episodes), " ",
                            std::to_string(f.em_iterations), " ", f.converged ? "1" : "0", " ",
                            number(f.train_log_likelihood), " ", number(f.heldout_log_likelihood), "\n");
        }
        if (run.visits.episodes > 0) {  // heatmap counts
            const auto res = std::to_chars(buf, buf + sizeof buf, run.visits.mean_entropy, std::chars_format::general, 17);
            text += cat("visits ", std::to_string(run.visits.episodes), " ", std::string_view(buf, res.ptr), " ",
                        std::to_string(run.visits.counts.size()), "\n");
            for (std::size_t i = 0; i < run.visits.counts.size(); ++i)
                text += cat(i ? " " : "", std::to_string(run.visits.counts[i]));
            text += "\n";
        }
        const std::filesystem::path file = file_of(key);
        const std::filesystem::path tmp = cat(file.string(), ".tmp-", std::to_string(::getpid()));
        std::FILE* f = std::fopen(tmp.c_str(), "wb");
        if (f == nullptr) throw run_store_error(cat("cannot open ", tmp.string(), " for writing: ", std::strerror(errno)));
        const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
        const bool closed = std::fclose(f) == 0;
        if (!written || !closed || std::rename(tmp.c_str(), file.c_str()) != 0) {
            const int err = errno;
            std::remove(tmp.c_str());
            throw run_store_error(cat("cannot write ", file.string(), ": ", std::strerror(err)));
        }
    }

    /// Removes the work area (after the study's set was committed complete). Never throws.
    void clear() const noexcept {
        if (!enabled()) return;
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }

private:
    static bool parse_uint(std::string_view s, std::uint64_t& out) {
        const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
        return r.ec == std::errc() && r.ptr == s.data() + s.size();
    }
    /// A double as written by save (%.17g; from_chars also reads "nan", "inf", "-inf").
    static bool parse_double(std::string_view s, double& out) {
        const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
        return r.ec == std::errc() && r.ptr == s.data() + s.size();
    }
    static bool parse_size(std::string_view s, std::size_t& out) {
        std::uint64_t v = 0;
        if (!parse_uint(s, v)) return false;
        out = static_cast<std::size_t>(v);
        return true;
    }

    std::filesystem::path dir_;
    std::string build_;
};

// ---------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------

/// The `run` of the heatmap streams: episode e of seed `seed` draws from
/// stream(seed, heatmap_stream_run, e), disjoint from the training's (seed, k, n) for any
/// iteration k a run reaches, from the uniform baseline's and the learned model's data, so
/// counting changes nothing else a run computes.
inline constexpr std::uint64_t heatmap_stream_run = 0x686561746d6170ULL;  // "heatmap"

/// The true states visited by `episodes` episodes of `policy` (copied: class B adds rows for
/// new beliefs) acting with `updater` (copied) on `model`, counted as `counting` says (the
/// steps MSE counts: T per episode), episode e drawn from stream(seed, heatmap_stream_run, e).
/// A pure function of its arguments. Also the mean true-state entropy of those episodes.
template <class M, class U, class P>
[[nodiscard]] VisitCounts count_visits(const M& model, const U& updater, const P& policy, StateCounting counting,
                                       std::uint64_t seed, std::size_t episodes) {
    VisitCounts v;
    v.episodes = episodes;
    v.counts.assign(state_bins(model), 0);
    if (episodes == 0) return v;
    Sampler<M, U> sampler(model, updater, RolloutOptions{counting, {}});
    P local = policy;
    Eigen::MatrixXd score;  // stays 0 x 0 for a policy without parameters
    if constexpr (requires { local.parameters(); })
        score.setZero(local.parameters().rows(), local.parameters().cols());
    EmpiricalCounter counter(state_bins(model));
    double entropy = 0.0;
    for (std::size_t e = 0; e < episodes; ++e) {
        DefaultRng g = stream(seed, heatmap_stream_run, e);
        const Trajectory& t = sampler.run(local, g, score);
        for (const std::size_t s : t.counted_states()) ++v.counts[s];
        entropy += true_state_entropy(t, counter);
    }
    v.mean_entropy = entropy / static_cast<double>(episodes);
    return v;
}

namespace detail {

/// The trainer's settings for one (curve, seed) run.
inline TrainerConfig trainer_config(const Settings& s, std::uint64_t seed) {
    TrainerConfig config;
    config.iterations = s.iterations;
    config.batch = s.batch;
    config.seed = seed;
    config.counting = s.counting;
    config.track_belief_entropy = true;
    return config;
}

/// The learned-belief trainer's options for the settings' LearningSettings; L = 0 there means
/// the world's `num_states` (also used by the Python bindings, python/src/train.cpp).
inline LearnedBeliefOptions learned_options(const LearningSettings& ls, std::size_t num_states) {
    LearnedBeliefOptions o;
    o.fit.latent_states = ls.latent_states == 0 ? num_states : ls.latent_states;
    o.fit.smoothing = ls.smoothing;
    o.fit.restarts = ls.restarts;
    o.fit.max_iterations = ls.em_iterations;
    o.warmup_episodes = ls.warmup;
    o.heldout_episodes = ls.heldout;
    o.refit_every = ls.refit_every;
    o.refit_iterations = ls.refit_iterations;
    o.window = ls.window;
    o.learned_prior = ls.learned_prior;
    return o;
}

/// Runs the K iterations of `trainer` (anything with iterate() -> IterationMetrics) into
/// run.records, polling `stop` before each and counting each in `iterations` (both may be
/// null); marks the run complete unless stopped.
template <class T>
void record_iterations(T& trainer, const Settings& s, const std::atomic<bool>* stop,
                       std::atomic<std::uint64_t>* iterations, SeedRun& run) {
    run.records.reserve(s.iterations);
    for (std::size_t k = 0; k < s.iterations; ++k) {
        if (stop != nullptr && stop->load(std::memory_order_relaxed)) return;
        const IterationMetrics m = trainer.iterate();
        run.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
        if (iterations != nullptr) iterations->fetch_add(1, std::memory_order_relaxed);
    }
    run.complete = true;
}

template <class P, class M>
SeedRun train_seed(const M& model, std::size_t policy_rows, const Curve& c, const Settings& s,
                   std::uint64_t seed, const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    using Updater = NoisyBelief<BayesFilter<M>>;
    Trainer<M, Updater, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
        model, Updater(BayesFilter<M>(model), c.noise), P(policy_rows, model.num_actions()),
        AnyFeedback(c.objective, s.rho), AnyEstimator(s.estimator), AnyStep(s.step, s.effective_alpha()),
        trainer_config(s, seed));
    SeedRun run;
    run.seed = seed;
    record_iterations(trainer, s, stop, iterations, run);
    if (!run.complete) return run;
    if (s.heatmap_episodes > 0)
        run.visits = count_visits(model, trainer.updater(), trainer.policy(), s.counting, seed, s.heatmap_episodes);
    if constexpr (std::is_same_v<P, TabularBeliefPolicy>) {
        const TableMemory mem = trainer.policy().memory();
        run.table_rows = mem.rows;
        run.table_bytes = mem.bytes();
    }
    return run;
}

/// A learned-belief curve (Curve::learned) on one seed: LearnedBeliefTrainer with the
/// settings' LearningSettings; the world model is used by the environment only (and, after
/// training, to score the held-out episodes under the truth for learning.csv).
template <class P, class M>
SeedRun train_seed_learned(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                           const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    const LearnedBeliefOptions o = learned_options(s.learning, model.num_states());
    const std::size_t L = o.fit.latent_states;
    const std::size_t rows = c.policy == PolicyClass::observation ? model.num_observations() : L;
    SeedRun run;
    run.seed = seed;
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return run;
    LearnedBeliefTrainer<M, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
        model, P(rows, model.num_actions()), AnyFeedback(c.objective, s.rho), AnyEstimator(s.estimator),
        AnyStep(s.step, s.effective_alpha()), trainer_config(s, seed), o);
    record_iterations(trainer, s, stop, iterations, run);
    if (!run.complete) return run;
    run.fits = trainer.fits();
    // The agent's filter as training left it: the last refit's learned model.
    if (s.heatmap_episodes > 0)
        run.visits = count_visits(model, trainer.trainer().updater(), trainer.policy(), s.counting, seed,
                                  s.heatmap_episodes);
    if (o.heldout_episodes > 0) {
        const auto held = trainer.heldout_episodes();
        std::size_t n = 0;
        for (const auto& q : held) n += q.observations.size();
        run.truth_heldout = iohmm_log_likelihood(to_iohmm(model), held) / static_cast<double>(n);
    }
    return run;
}

}  // namespace detail

/// Why a learned-belief curve cannot use the belief-state class B.
inline constexpr std::string_view learned_class_b_refusal =
    "learned beliefs: the belief-state class B is not offered with a learned model (its table rows are beliefs, "
    "which change meaning at every refit)";

/// Trains one curve on one seed. Polls `stop` (may be null) before every iteration and
/// adds one to `iterations` (may be null) after every iteration. `model` is a grid world of
/// the paper or any other tabular POMDP with its horizon set (maxent-explore trains on a
/// model file's FinitePomdp<std::string, std::string, std::string>).
template <class M>
[[nodiscard]] SeedRun run_curve_seed(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                                     const std::atomic<bool>* stop = nullptr,
                                     std::atomic<std::uint64_t>* iterations = nullptr) {
    static_assert(require_tabular_pomdp<M>());
    if (c.learned) {
        switch (c.policy) {
            case PolicyClass::observation:
                return detail::train_seed_learned<ObservationPolicy>(model, c, s, seed, stop, iterations);
            case PolicyClass::belief_averaged:
                return detail::train_seed_learned<BeliefAveragedPolicy>(model, c, s, seed, stop, iterations);
            case PolicyClass::believed_state:
                return detail::train_seed_learned<BelievedStatePolicy>(model, c, s, seed, stop, iterations);
            case PolicyClass::belief_mixture:
                return detail::train_seed_learned<BeliefMixturePolicy>(model, c, s, seed, stop, iterations);
            case PolicyClass::belief_state:
                throw config_error(std::string(learned_class_b_refusal));
        }
    }
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

/// Whether a kept run (cache or work area) serves settings `s`: it has the heatmap counts
/// asked for (trained again otherwise).
[[nodiscard]] inline bool kept_run_serves(const SeedRun& r, const Settings& s) {
    return s.heatmap_episodes == 0 || r.visits.episodes == s.heatmap_episodes;
}

/// Number of (curve, seed) runs of `e` under `s` that run_experiment would train: among the
/// `selected` jobs (null or empty: all; see ExperimentResult::selected), those not kept in
/// `cache` (may be null) or `store` (may be null) in a form that serves `s`
/// (kept_run_serves; a stored run is read, as run_experiment reads it).
[[nodiscard]] inline std::size_t pending_runs(const Experiment& e, const Settings& s, const RunCache* cache,
                                              const std::vector<char>* selected = nullptr,
                                              const RunStore* store = nullptr) {
    std::size_t n = 0, j = 0;
    for (const Curve& c : make_curves(e, s))
        for (const std::uint64_t seed : s.seeds) {
            const bool wanted = selected == nullptr || selected->empty() || (*selected)[j] != 0;
            ++j;
            if (!wanted) continue;
            const std::string key = run_key(e.env, c, s, seed);
            const SeedRun* hit = cache != nullptr ? cache->find(key) : nullptr;
            if (hit != nullptr && kept_run_serves(*hit, s)) continue;
            if (store != nullptr && store->enabled()) {
                const std::optional<SeedRun> stored = store->load(key);
                if (stored && kept_run_serves(*stored, s)) continue;
            }
            ++n;
        }
    return n;
}

/// Runs every (curve, seed) job of experiment `e` under settings `s` on `threads` threads
/// (0 = all hardware threads). Runs found in `cache` (may be null) are reused, and complete
/// new runs are added to it. `stop` and `progress` may be null. Only the `selected` jobs run
/// (null or empty: all; a shard's slice, shards.hpp). Runs found in `store` (may be null: the
/// work area, RunStore) are reused, and every complete new run is saved there as soon as it
/// finishes.
[[nodiscard]] inline ExperimentResult run_experiment(const Experiment& e, const Settings& s, std::size_t threads,
                                                     const std::atomic<bool>* stop = nullptr,
                                                     ProgressCounters* progress = nullptr,
                                                     RunCache* cache = nullptr,
                                                     const std::vector<char>* selected = nullptr,
                                                     const RunStore* store = nullptr) {
    ExperimentResult result;
    result.experiment = &e;
    result.settings = s;
    if (selected != nullptr) result.selected = *selected;
    const std::vector<Curve> curves = make_curves(e, s);
    // Refused before any run starts (run_curve_seed would throw the same from its job).
    for (const Curve& c : curves) {
        if (c.policy != PolicyClass::belief_state) continue;
        if (c.learned)
            throw config_error(cat("curve '", c.label, "': ", learned_class_b_refusal));
        if (s.estimator == EstimatorKind::per_step)
            throw config_error(cat("curve '", c.label, "': the per-step estimator needs per-step scores, which the "
                                   "belief-state class B (row-sparse table) does not record; choose another "
                                   "estimator or policy class"));
    }
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
            result.curves[c].runs[i].seed = s.seeds[i];
            if (!result.is_selected(c, i)) continue;
            const std::string key = run_key(e.env, curves[c], s, s.seeds[i]);
            const SeedRun* hit = cache ? cache->find(key) : nullptr;
            if (hit != nullptr && !kept_run_serves(*hit, s)) hit = nullptr;
            std::optional<SeedRun> stored;
            if (hit == nullptr && store != nullptr) stored = store->load(key);
            if (stored && !kept_run_serves(*stored, s)) stored.reset();
            if (hit != nullptr || stored) {
                result.curves[c].runs[i] = hit != nullptr ? *hit : *stored;
                if (stored) {
                    ++result.reused;
                    if (cache) cache->insert(key, *stored);
                }
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
        if (store != nullptr && run.complete)
            store->save(run_key(e.env, curves[job.curve], s, s.seeds[job.seed_index]), run);
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
    for (std::size_t c = 0; c < result.curves.size(); ++c)
        for (std::size_t i = 0; i < seeds; ++i)
            if (result.is_selected(c, i) && !result.curves[c].runs[i].complete) result.interrupted = true;
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
