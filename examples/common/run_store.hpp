// examples/common/run_store.hpp — finished runs kept for reuse: in memory between the
// experiments of one process (RunCache: fig2f plots the regulariser of fig2e's runs), and on
// disk in the work area of a study (RunStore: the unit of restart after an interruption).
// Both are keyed by run_key, everything that determines a run.
#pragma once

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include "maxent/core/error.hpp"

#include "experiments.hpp"
#include "runner.hpp"

namespace maxent::programs {

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

}  // namespace maxent::programs
