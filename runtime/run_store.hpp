// runtime/run_store.hpp — finished runs kept for reuse: in memory between the
// experiments of one process (RunCache: fig2f plots the regulariser of fig2e's runs), and on
// disk in the work area of a study (RunStore: the unit of restart after an interruption).
// Both are keyed by run_key, everything that determines a run.
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>


#include "maxent/core/error.hpp"

#include "experiments.hpp"
#include "files.hpp"
#include "results.hpp"
#include "settings.hpp"
#include "text.hpp"

namespace maxent::programs {

/// Complete runs keyed by everything that determines them, shared between experiments.
class RunCache {
public:
    [[nodiscard]] const SeedRun* find(const std::string& key) const;
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
[[nodiscard]] std::string settings_key(const Curve& c, const Settings& s, std::uint64_t seed);

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

/// What a kept run (and a shard's files, merge.hpp) may hold: entropies (nats) and feedbacks
/// of magnitude at most max_run_value (far above any real one, log 2^64 = 44.4, and small
/// enough that sums over every iteration and seed stay finite), log-likelihoods at most
/// max_run_log_likelihood, heatmap episodes at most the largest count flag, visit counts
/// summing to at most 2^46 per run (sums over 10^5 seeds fit 64 bits), table sizes at most
/// 2^53 (their means stay exact).
inline constexpr double max_run_value = 1e12;
inline constexpr double max_run_log_likelihood = 1e15;
inline constexpr std::uint64_t max_kept_heatmap_episodes = 100'000'000;
inline constexpr std::uint64_t max_kept_run_visits = std::uint64_t{1} << 46;
inline constexpr std::uint64_t max_kept_table_size = std::uint64_t{1} << 53;

/// FNV-1a, 64 bits: names a run's file after its key, and digests model files.
[[nodiscard]] std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL);

/// Throws maxent::parse_error (its message starting with `name`) unless `text` reads as a POMDP
/// file (model/pomdp_file.hpp; compiled once, run_store.cpp): a learned model is checked so before
/// a merge or a resume copies it.
void check_learned_model_text(std::string_view text, std::string_view name);

/// `x` as 16 hex digits (file digests in a shard's config.json, shards.hpp).
[[nodiscard]] std::string hex64(std::uint64_t x);

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
///   learned-belief runs, "fits <n> <truth_heldout>" and n lines of fits; then, for runs of a
///   learner that selects its size, "selected <L> <pseudo-count> <allocation> <candidates>"; then, for runs with
///   heatmap counts, "visits <E> <mean_entropy> <S>" and one line of the S counts; then, for
///   runs with measures of their final policy (SeedRun::finals), "finals <n>" and one line of
///   the n numbers; then, for
///   learned-belief runs, "model <bytes>" and the final learned model's POMDP text (0 bytes
///   where the format cannot hold the model), which must read as a POMDP file. A run
///   whose counts are not those the rerun asks for (another E, or none) is trained again
///   (run_experiment).
class RunStore {
public:
    RunStore() = default;
    RunStore(std::filesystem::path dir, std::string build) : dir_(std::move(dir)), build_(std::move(build)) {}

    [[nodiscard]] bool enabled() const noexcept { return !dir_.empty(); }
    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

    [[nodiscard]] std::filesystem::path file_of(const std::string& key) const;

    /// The finished run stored under `key` by a build with this fingerprint, if any. A file of
    /// another key or build is ignored silently (the run is trained again); a file that cannot
    /// be read as a kept run (not a regular file, too large, counts that are not the run's K or
    /// do not match the data, values that are not finite or out of range) is ignored too, and
    /// said once on stderr, naming the file and why.
    [[nodiscard]] std::optional<SeedRun> load(const std::string& key) const;

    /// The run a kept file's `text` holds, std::nullopt when it is of another key or build;
    /// throws run_store_error saying what is wrong with it (see load).
    [[nodiscard]] static std::optional<SeedRun> parse_run(std::string_view text, const std::string& key,
                                                          const std::string& build);

    /// Stores a complete run (atomically: a temporary file named after this process, then a
    /// rename). Safe to call from several threads for different keys. Throws run_store_error.
    void save(const std::string& key, const SeedRun& run) const;

    /// Removes the work area (after the study's set was committed complete). Never throws.
    void clear() const noexcept;

private:
    /// K of a run key ("...|K=1500|..."), if it has one.
    static std::optional<std::uint64_t> iterations_of(std::string_view key);
    /// Throws bad(why) unless x is finite and in [lo, hi] (or nan, where `nan_is_none`: a
    /// held-out value of a study without held-out episodes).
    template <class Bad>
    static void check_value(double x, double lo, double hi, std::string_view what, Bad& bad, bool nan_is_none = false) {
        if (nan_is_none && std::isnan(x)) return;
        if (!std::isfinite(x) || x < lo || x > hi)
            throw bad(cat(what, " ", format_number(x), " is not a finite number in [", format_number(lo), ", ",
                          format_number(hi), "]"));
    }
    /// Says once per file that a kept run is ignored.
    void warn(const std::filesystem::path& file, std::string_view why) const;
    struct Warned {
        std::mutex mutex;
        std::set<std::string> files;
    };

    static bool parse_uint(std::string_view s, std::uint64_t& out);
    /// A double as written by save (%.17g; from_chars also reads "nan", "inf", "-inf").
    static bool parse_double(std::string_view s, double& out);

    std::filesystem::path dir_;
    std::string build_;
    std::shared_ptr<Warned> warned_ = std::make_shared<Warned>();
};

}  // namespace maxent::programs
