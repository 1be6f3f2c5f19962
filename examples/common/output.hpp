// examples/common/output.hpp — the files of one experiment: runs.csv, summary.csv,
// config.json, curves.gp and curves.png, written and replaced as one set.
//
// Paper, Section 6 / Appendix D: every figure shows, per curve and iteration, the mean and
// the 95% confidence interval over the seeds of the true-state entropy (Figures 2f and 2h:
// of the regulariser Σ_t H(b_t)). In the experiment's folder (e.g. out/fig2a/):
//   runs.csv     objective,seed,iteration,true_entropy,feedback,belief_entropy_sum
//                one row per (curve, seed, iteration) of every COMPLETE run, in curve order,
//                then seed order (as given), then iteration (0-based k); doubles as %.17g,
//                so the file is exact and byte-identical for any number of threads.
//                The `objective` column is the curve label ("mse", "mbe@0.01", "mse/BA").
//   summary.csv  objective,iteration,mean,ci_low,ci_high,n — across the complete runs of a
//                curve, of the plotted quantity; Student-t bounds with n - 1 degrees of
//                freedom (stats.hpp); with n = 1 the bounds equal the mean.
//   config.json  every setting, the seed list, the curves, the maxent version and the build
//                fingerprint ("build", shards.hpp: what must match for runs to be merged or
//                reused); a shard's also has a "shard" section (shards.hpp).
//   curves.gp    the gnuplot script, with the plotted data inline (re-run it inside the
//                folder: `gnuplot curves.gp && mv curves.png.tmp curves.png`).
//   uniform.csv  seed,episodes,true_entropy — the uniformly random policy's mean true-state
//                entropy per seed of the study (common/uniform.hpp), over
//                paper_uniform_episodes episodes each (maxent-paper only).
//   curves.png   the learning curves with shaded 95% bands, the line log S (Σ_t H(b_t)
//                plots show T log S instead) and the uniform policy's mean over the seeds
//                (true-entropy plots), drawn by gnuplot when it is installed. With
//                --smooth W each curve and band is a centred moving average over W
//                iterations; for K > 400 each plotted point is then the mean over a bin of
//                ceil(K / 400) iterations (of the mean and of both bounds; both said in the
//                title). Colours are Paul Tol's "muted" colour-blind-safe palette (nine
//                distinct colours, with dash types by noise level or class as a second cue).
//   gnuplot.log  gnuplot's messages, only when it printed any.
//   learning.csv only with learned-belief curves (experiments without a simulator, nosim*):
//                objective,seed,fit,iteration,episodes,em_iterations,converged,
//                train_ll_per_obs,heldout_ll_per_obs,truth_heldout_ll_per_obs — one row per
//                fit of the belief model of every complete run (optim/learned_belief.hpp);
//                the last column scores the same held-out episodes under the true model.
//   heatmap.csv  maxent-paper with --heatmap-episodes E > 0 (default 100): where the FINAL
//                policies take the true state. objective,x,y,fraction — per panel ("uniform",
//                the uniformly random policy, then every curve) and grid cell (x column,
//                y row, y = 0 the top row; cells in index order x + width·y): the counted steps
//                (those MSE counts, T per episode) spent in the cell by E episodes of the
//                final policy of every complete run of the curve, divided by all their
//                counted steps = the mean over seeds and episodes of the fraction of an
//                episode's counted steps in the cell (sums to 1 per panel). Episode e of seed
//                s draws from stream(s, heatmap_stream_run, e) (runner.hpp count_visits).
//   heatmap.gp, heatmap.png  those fractions as images, one panel each (one colour scale from
//                0 to the largest fraction), the grid's thin walls in black, each panel's
//                mean true-state entropy of those episodes in its title.
//   visits.csv   shards only (shards.hpp): the raw counts of each run, for the merge.
// (maxent-proxy-gaps writes bounds.csv and samples.csv instead of the CSV files above;
// maxent-rescue writes heatmap.csv (columns ix,iy) and its plot with the same code.)
//
// One consistent set (OutputFolder). The files in a folder always come from one run:
//   - a run first checks OUT and creates a hidden staging folder OUT/.<name>.partial-<pid>
//     before any work, so a bad --out fails at once, with the system's reason;
//   - it writes the whole set into the staging folder, renders the plot there (so a
//     curves.png is present only when gnuplot drew it from these CSV files: never a plot of
//     an earlier run after --no-plot or a failed gnuplot), and only then puts it in place:
//     renameat2(RENAME_EXCHANGE) swaps the two folders in one atomic step (where the file
//     system lacks it: OUT/<name> -> OUT/.<name>.old-<pid>, then staging -> OUT/<name>), and
//     the previous set is removed;
//   - so a kill (even SIGKILL) or an error at any moment leaves OUT/<name> holding the
//     complete previous set or the complete new one (after the fallback's first rename, no
//     folder), never a mix. Staging and old folders of killed runs (their process is gone)
//     are removed by the next run that writes the same OUT/<name>.
// Resume (runner.hpp RunStore): each finished run is also written, as soon as it finishes, to
// its own file in the work area OUT/.<name>.runs/, beside the folder and never inside it (the
// folder is only ever replaced as a whole, as above); a rerun reuses those files and the
// program removes the work area once the set is committed with every run complete. Shards
// (shards.hpp) write OUT/<name>.shard-I-of-N/ the same way, with runs.csv and config.json only.
// The folder belongs to the program: an existing OUT/<name> holding anything but the files
// listed above (or their "<file>.tmp" left by older versions) is refused, not replaced.
// Folder names come from safe_folder_name (no '.', '..', path separators or control
// characters). Each file is also written to "<file>.tmp" and renamed (write_file_atomically).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <cerrno>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiments.hpp"
#include "runner.hpp"
#include "stats.hpp"
#include "uniform.hpp"

namespace maxent::programs {

/// An error writing an output file; the message names the path.
class output_error : public maxent::error {
public:
    using maxent::error::error;
};

// ---------------------------------------------------------------------------------------
// Atomic files
// ---------------------------------------------------------------------------------------

/// Writes `path` through `write(FILE*)` into "<path>.tmp", then renames it over `path`
/// (atomic on POSIX file systems). Throws output_error naming the path on any failure
/// (and removes the temporary file).
inline void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::FILE*)>& write) {
    const std::filesystem::path tmp = path.string() + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) throw output_error(cat("cannot open ", tmp.string(), " for writing: ", std::strerror(errno)));
    static thread_local std::vector<char> buffer(1 << 20);
    std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
    try {
        write(f);
    } catch (...) {
        std::fclose(f);
        std::remove(tmp.c_str());
        throw;
    }
    errno = 0;
    bool ok = std::fflush(f) == 0 && std::ferror(f) == 0;
    int err = errno;
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        std::remove(tmp.c_str());
        throw output_error(cat("error while writing ", tmp.string(), ": ", err != 0 ? std::strerror(err) : "write error"));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        err = errno;
        std::remove(tmp.c_str());
        throw output_error(cat("cannot rename ", tmp.string(), " to ", path.string(), ": ", std::strerror(err)));
    }
}

inline void write_string_atomically(const std::filesystem::path& path, const std::string& text) {
    write_file_atomically(path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

// ---------------------------------------------------------------------------------------
// The experiment's folder, replaced as a whole (see the header comment)
// ---------------------------------------------------------------------------------------

/// The names a program writes into an experiment's folder; "<name>.tmp" of each is also ours.
inline constexpr std::string_view output_file_names[] = {"config.json", "runs.csv",    "summary.csv",
                                                         "curves.gp",   "curves.png",  "gnuplot.log",
                                                         "bounds.csv",  "samples.csv", "learning.csv",
                                                         "heatmap.csv", "heatmap.gp",  "heatmap.png",
                                                         "uniform.csv", "visits.csv"};

/// A folder name for `name` (e.g. a model file's stem): every '/', '\\' and control character
/// becomes '_', leading dots are dropped (so never ".", ".." or a hidden name), and an empty
/// result becomes `fallback`. "...pomdp"'s stem ".." gives `fallback`; "tiger.95" stays.
[[nodiscard]] inline std::string safe_folder_name(std::string_view name, std::string_view fallback = "model") {
    std::string out;
    for (const char ch : name) {
        const auto c = static_cast<unsigned char>(ch);
        if (out.empty() && ch == '.') continue;
        out += (ch == '/' || ch == '\\' || c < 0x20 || c == 0x7f) ? '_' : ch;
    }
    return out.empty() ? std::string(fallback) : out;
}

/// Creates the output directory `out` (and its parents) or throws output_error saying why
/// (e.g. "'runs.txt' exists and is not a directory", "Permission denied").
inline void create_output_directory(const std::filesystem::path& out) {
    std::error_code ec;
    if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec))
        throw output_error(cat("cannot use '", out.string(), "' as the output directory: ", std::strerror(ENOTDIR),
                               " (it exists and is not a directory)"));
    std::filesystem::create_directories(out, ec);
    if (ec) throw output_error(cat("cannot create the directory '", out.string(), "': ", ec.message()));
}

/// One experiment's folder OUT/<name>, replaced as a whole: files are written into
/// staging() and commit() puts the set in place; a folder never committed is removed
/// (discard(), also by the destructor), leaving OUT/<name> as it was.
class OutputFolder {
public:
    OutputFolder() = default;

    /// Creates `final_dir`'s parent, checks `final_dir` (absent, or a folder holding only
    /// output_file_names), removes the staging and old folders of dead processes, and
    /// creates the staging folder, all before any work. Throws output_error naming the path
    /// and the system's reason.
    explicit OutputFolder(std::filesystem::path final_dir) : final_(std::move(final_dir)) {
        namespace fs = std::filesystem;
        const fs::path parent = final_.parent_path().empty() ? fs::path(".") : final_.parent_path();
        create_output_directory(parent);
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(final_, ec);
        if (fs::exists(st) || fs::is_symlink(st)) {
            if (fs::is_symlink(st))
                throw output_error(cat("cannot use '", final_.string(), "' as the experiment's folder: it is a "
                                       "symbolic link, and a run replaces the folder itself; give --out the "
                                       "directory it points into"));
            if (!fs::is_directory(st))
                throw output_error(cat("cannot use '", final_.string(), "' as the experiment's folder: ",
                                       std::strerror(ENOTDIR), " (it exists and is not a directory)"));
            for (fs::directory_iterator it(final_, ec), end; !ec && it != end; it.increment(ec)) {
                const std::string f = it->path().filename().string();
                if (!owned(f) || !it->is_regular_file())
                    throw output_error(cat("'", final_.string(), "' holds '", f,
                                           "', which is not one of maxent's output files; a run replaces the "
                                           "folder as a whole, so move it away or choose another --out"));
            }
            if (ec) throw output_error(cat("cannot read the directory '", final_.string(), "': ", ec.message()));
        }
        remove_stale(parent);
        staging_ = parent / cat(".", final_.filename().string(), ".partial-", std::to_string(::getpid()));
        fs::remove_all(staging_, ec);  // a leftover of an earlier process with our pid
        if (!fs::create_directory(staging_, ec) || ec)
            throw output_error(cat("cannot create the directory '", staging_.string(), "': ",
                                   ec ? ec.message() : std::string("it exists")));
        active_ = true;
    }
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;
    OutputFolder(OutputFolder&& o) noexcept
        : final_(std::move(o.final_)), staging_(std::move(o.staging_)), active_(std::exchange(o.active_, false)) {}
    OutputFolder& operator=(OutputFolder&& o) noexcept {
        if (this != &o) {
            discard();
            final_ = std::move(o.final_);
            staging_ = std::move(o.staging_);
            active_ = std::exchange(o.active_, false);
        }
        return *this;
    }
    ~OutputFolder() { discard(); }

    /// Where the files go until commit().
    [[nodiscard]] const std::filesystem::path& staging() const noexcept { return staging_; }
    /// OUT/<name>, where they are after commit() (the path to show the user).
    [[nodiscard]] const std::filesystem::path& path() const noexcept { return final_; }

    /// Puts the staged set in place of OUT/<name> and removes the previous set. Throws
    /// output_error (OUT/<name> then still holds the previous set, except after a failed
    /// second rename of the fallback, said in the message).
    void commit() {
        namespace fs = std::filesystem;
        if (!active_) throw output_error(cat("OutputFolder: nothing staged for '", final_.string(), "'"));
        std::error_code ec;
        if (::rename(staging_.c_str(), final_.c_str()) == 0) {  // no previous set (or an empty folder)
            active_ = false;
            return;
        }
        int err = errno;
        if (err == ENOTEMPTY || err == EEXIST) {
            if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
                active_ = false;
                fs::remove_all(staging_, ec);  // the previous set; if this fails, the next run removes it
                return;
            }
            err = errno;
            if (err == EINVAL || err == ENOSYS) {  // no RENAME_EXCHANGE on this file system: two renames
                const fs::path old = staging_.parent_path() /
                                     cat(".", final_.filename().string(), ".old-", std::to_string(::getpid()));
                fs::remove_all(old, ec);
                if (::rename(final_.c_str(), old.c_str()) != 0) {
                    err = errno;
                } else if (::rename(staging_.c_str(), final_.c_str()) != 0) {
                    err = errno;
                    if (::rename(old.c_str(), final_.c_str()) != 0)
                        throw output_error(cat("cannot rename '", staging_.string(), "' to '", final_.string(),
                                               "': ", std::strerror(err), "; the previous set is in '",
                                               old.string(), "'"));
                } else {
                    active_ = false;
                    fs::remove_all(old, ec);
                    return;
                }
            }
        }
        throw output_error(
            cat("cannot rename '", staging_.string(), "' to '", final_.string(), "': ", std::strerror(err)));
    }

    /// Removes the staging folder (nothing committed). Never throws.
    void discard() noexcept {
        if (!active_) return;
        active_ = false;
        std::error_code ec;
        std::filesystem::remove_all(staging_, ec);
    }

private:
    static bool owned(std::string_view f) {
        for (const std::string_view n : output_file_names)
            if (f == n || (f.size() == n.size() + 4 && f.substr(0, n.size()) == n && f.substr(n.size()) == ".tmp"))
                return true;
        return false;
    }

    /// Removes parent/.<name>.partial-<pid> and parent/.<name>.old-<pid> of processes that
    /// no longer exist (a concurrent run's folders are left alone).
    void remove_stale(const std::filesystem::path& parent) const {
        namespace fs = std::filesystem;
        const std::string name = final_.filename().string();
        std::error_code ec;
        std::vector<fs::path> stale;
        for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string f = it->path().filename().string();
            for (const std::string_view kind : {".partial-", ".old-"}) {
                const std::string prefix = cat(".", name, kind);
                if (f.size() <= prefix.size() || f.compare(0, prefix.size(), prefix) != 0) continue;
                const std::string digits = f.substr(prefix.size());
                if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
                const auto pid = static_cast<pid_t>(std::stol(digits));
                if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(it->path());
            }
        }
        for (const fs::path& p : stale) fs::remove_all(p, ec);
    }

    std::filesystem::path final_;
    std::filesystem::path staging_;
    bool active_ = false;
};

// ---------------------------------------------------------------------------------------
// runs.csv
// ---------------------------------------------------------------------------------------

inline constexpr std::string_view runs_csv_header = "objective,seed,iteration,true_entropy,feedback,belief_entropy_sum";

namespace detail {
/// Appends x as printf("%.17g") would (std::to_chars with a precision is specified that way,
/// and is much faster than printf).
inline void append_g17(std::string& out, double x) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 17);
    out.append(buf, r.ptr);
}
inline void append_uint(std::string& out, std::uint64_t x) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    out.append(buf, r.ptr);
}
/// Writes `chunk` to f and clears it once it holds more than 1 MiB (or when `force`).
inline void flush_chunk(std::FILE* f, std::string& chunk, bool force = false) {
    if (!force && chunk.size() < (1u << 20)) return;
    std::fwrite(chunk.data(), 1, chunk.size(), f);
    chunk.clear();
}
}  // namespace detail

/// Writes the rows of every complete run of `r` to `f` (header first).
inline void write_runs_csv(std::FILE* f, const ExperimentResult& r) {
    std::string chunk;
    chunk.reserve((1u << 20) + 256);
    chunk.append(runs_csv_header).append("\n");
    for (const CurveRuns& c : r.curves)
        for (const SeedRun& run : c.runs) {
            if (!run.complete) continue;
            for (std::size_t k = 0; k < run.records.size(); ++k) {
                const IterationRecord& x = run.records[k];
                chunk.append(c.curve.label).append(",");
                detail::append_uint(chunk, run.seed);
                chunk.append(",");
                detail::append_uint(chunk, k);
                chunk.append(",");
                detail::append_g17(chunk, x.true_entropy);
                chunk.append(",");
                detail::append_g17(chunk, x.feedback);
                chunk.append(",");
                detail::append_g17(chunk, x.belief_entropy_sum);
                chunk.append("\n");
                detail::flush_chunk(f, chunk);
            }
        }
    detail::flush_chunk(f, chunk, true);
}

/// Whether any curve of the result learns its belief model (learning.csv is written).
[[nodiscard]] inline bool has_learned_curves(const ExperimentResult& r) {
    for (const CurveRuns& c : r.curves)
        if (c.curve.learned) return true;
    return false;
}

inline constexpr std::string_view learning_csv_header =
    "objective,seed,fit,iteration,episodes,em_iterations,converged,train_ll_per_obs,heldout_ll_per_obs,"
    "truth_heldout_ll_per_obs";

/// learning.csv (see the header): every fit of every complete learned-belief run.
inline void write_learning_csv(std::FILE* f, const ExperimentResult& r) {
    std::string chunk;
    chunk.append(learning_csv_header).append("\n");
    for (const CurveRuns& c : r.curves) {
        if (!c.curve.learned) continue;
        for (const SeedRun& run : c.runs) {
            if (!run.complete) continue;
            for (std::size_t i = 0; i < run.fits.size(); ++i) {
                const FitRecord& x = run.fits[i];
                chunk.append(c.curve.label).append(",");
                detail::append_uint(chunk, run.seed);
                chunk.append(",");
                detail::append_uint(chunk, i);
                chunk.append(",");
                detail::append_uint(chunk, x.iteration);
                chunk.append(",");
                detail::append_uint(chunk, x.episodes);
                chunk.append(",");
                detail::append_uint(chunk, x.em_iterations);
                chunk.append(x.converged ? ",1," : ",0,");
                detail::append_g17(chunk, x.train_log_likelihood);
                chunk.append(",");
                detail::append_g17(chunk, x.heldout_log_likelihood);
                chunk.append(",");
                detail::append_g17(chunk, run.truth_heldout);
                chunk.append("\n");
            }
        }
    }
    detail::flush_chunk(f, chunk, true);
}

// ---------------------------------------------------------------------------------------
// summary.csv
// ---------------------------------------------------------------------------------------

struct SummaryRow {
    std::size_t iteration = 0;
    ConfidenceInterval ci;
};

/// Per-curve summaries of the plotted quantity: one row per iteration, across the complete
/// runs of the curve (no rows for a curve without complete runs).
struct CurveSummary {
    std::string label;
    std::vector<SummaryRow> rows;
};

[[nodiscard]] inline double plotted_value(const IterationRecord& x, Plotted p) {
    return p == Plotted::true_entropy ? x.true_entropy : x.belief_entropy_sum;
}

[[nodiscard]] inline std::vector<CurveSummary> summarize(const ExperimentResult& r, Plotted plotted) {
    std::vector<CurveSummary> out;
    std::vector<double> values;
    std::map<std::size_t, double> t975;  // t_{0.975, n-1} by n: one quantile per seed count
    auto quantile = [&](std::size_t n) {
        auto it = t975.find(n);
        if (it == t975.end()) it = t975.emplace(n, student_t_quantile(0.975, static_cast<double>(n - 1))).first;
        return it->second;
    };
    for (const CurveRuns& c : r.curves) {
        CurveSummary s{c.curve.label, {}};
        std::vector<const SeedRun*> done;
        for (const SeedRun& run : c.runs)
            if (run.complete) done.push_back(&run);
        if (!done.empty()) {
            const std::size_t K = done.front()->records.size();
            s.rows.reserve(K);
            for (std::size_t k = 0; k < K; ++k) {
                values.clear();
                for (const SeedRun* run : done) values.push_back(plotted_value(run->records.at(k), plotted));
                s.rows.push_back({k, values.size() > 1 ? mean_confidence_interval_t(values, quantile(values.size()))
                                                       : mean_confidence_interval(values, 0.95)});
            }
        }
        out.push_back(std::move(s));
    }
    return out;
}

inline constexpr std::string_view summary_csv_header = "objective,iteration,mean,ci_low,ci_high,n";

inline void write_summary_csv(std::FILE* f, const std::vector<CurveSummary>& summary) {
    std::string chunk;
    chunk.reserve((1u << 20) + 256);
    chunk.append(summary_csv_header).append("\n");
    for (const CurveSummary& c : summary)
        for (const SummaryRow& row : c.rows) {
            chunk.append(c.label).append(",");
            detail::append_uint(chunk, row.iteration);
            for (const double x : {row.ci.mean, row.ci.low, row.ci.high}) {
                chunk.append(",");
                detail::append_g17(chunk, x);
            }
            chunk.append(",");
            detail::append_uint(chunk, row.ci.n);
            chunk.append("\n");
            detail::flush_chunk(f, chunk);
        }
    detail::flush_chunk(f, chunk, true);
}

// ---------------------------------------------------------------------------------------
// config.json
// ---------------------------------------------------------------------------------------

[[nodiscard]] inline std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out + "\"";
}

/// How the experiment was run (not a setting of the algorithm).
struct RunInfo {
    std::string version = "unknown";  ///< the maxent version (MAXENT_VERSION)
    std::size_t threads = 1;
    std::string command_line;
    /// The build fingerprint as a JSON object (shards.hpp build_fingerprint_json): written as
    /// "build" after "maxent_version" when not empty.
    std::string build;
    /// Further fields (name, raw JSON value) written last, e.g. a shard's "shard" section.
    std::vector<std::pair<std::string, std::string>> extra_fields;
};

[[nodiscard]] inline std::string config_json(const ExperimentResult& r, const RunInfo& info) {
    const Experiment& e = *r.experiment;
    const Settings& s = r.settings;
    const GridPomdp model = e.env.build();
    std::string j = "{\n";
    auto field = [&](std::string_view name, const std::string& value, bool last = false) {
        j += cat("  ", json_string(name), ": ", value, last ? "\n" : ",\n");
    };
    auto num = [](double x) { return format_number(x); };
    auto str = [](std::string_view x) { return json_string(x); };
    field("experiment", str(e.name));
    field("paper_figure", str(e.figure));
    field("description", str(e.what));
    field("maxent_version", str(info.version));
    if (!info.build.empty()) field("build", info.build);
    std::string env = "{";
    env += cat("\"name\": ", str(e.env.describe()));
    env += cat(", \"layout\": ",
               str(e.env.layout == EnvironmentSpec::Layout::single_room ? "single_room" : "four_rooms"));
    env += cat(", \"width\": ", std::to_string(e.env.width), ", \"height\": ", std::to_string(e.env.height));
    env += cat(", \"states\": ", std::to_string(model.num_states()), ", \"actions\": ",
               std::to_string(model.num_actions()), ", \"observations\": ", std::to_string(model.num_observations()));
    env += cat(", \"slip\": ", num(e.env.slip));
    switch (e.env.observation) {
        case EnvironmentSpec::Observation::gaussian:
            env += cat(", \"observation_model\": \"gaussian\", \"observation_variance\": ", num(e.env.variance),
                       ", \"observation_precision_k\": ", num(1.0 / e.env.variance));
            break;
        case EnvironmentSpec::Observation::room_id: env += ", \"observation_model\": \"room_id\""; break;
        case EnvironmentSpec::Observation::side: env += ", \"observation_model\": \"side\""; break;
    }
    env += cat(", \"horizon\": ", std::to_string(model.horizon()), ", \"start\": [0, 0]");
    env += ", \"initial_belief\": \"uniform\"}";
    field("environment", env);
    std::string curves = "[";
    for (std::size_t i = 0; i < r.curves.size(); ++i) {
        const Curve& c = r.curves[i].curve;
        if (i) curves += ", ";
        curves += cat("{\"label\": ", str(c.label), ", \"objective\": ", str(name_of(c.objective)),
                      ", \"policy_class\": ", str(name_of(c.policy)), ", \"belief_noise_sigma\": ", num(c.noise),
                      ", \"complete_runs\": ", std::to_string(r.curves[i].complete_runs()));
        if (c.policy == PolicyClass::belief_state) {  // the lazy table's size per run
            const TableStats t = table_stats(r.curves[i]);
            curves += cat(", \"table_rows_mean\": ", num(t.mean_rows), ", \"table_rows_max\": ",
                          std::to_string(t.max_rows), ", \"table_bytes_mean\": ", num(t.mean_bytes),
                          ", \"table_bytes_max\": ", std::to_string(t.max_bytes));
        }
        curves += "}";
    }
    field("curves", cat(curves, "]"));
    std::string seeds = "[";
    for (std::size_t i = 0; i < s.seeds.size(); ++i) seeds += cat(i ? ", " : "", std::to_string(s.seeds[i]));
    field("seeds", cat(seeds, "]"));
    field("iterations", std::to_string(s.iterations));
    field("batch", std::to_string(s.batch));
    field("alpha", num(s.effective_alpha()));
    field("step", str(name_of(s.step)));
    field("estimator", str(name_of(s.estimator)));
    field("rho", num(s.rho));
    field("counting", str(name_of(s.counting)));
    field("horizon", std::to_string(model.horizon()));
    field("initial_parameters", str("zero"));
    field("belief_noise", str("standard deviation sigma of the Gaussian noise added to every belief entry after "
                              "each exact update (the paper's s^2 labels; the authors' code uses them as sigma)"));
    field("plotted", str(name_of(e.plotted)));
    field("confidence", str("95% Student t across seeds, n - 1 degrees of freedom; n = 1: bounds = mean"));
    field("threads", std::to_string(info.threads));
    field("complete_runs", std::to_string(r.complete_runs()));
    field("total_runs", std::to_string(r.total_runs()));
    field("interrupted", r.interrupted ? "true" : "false");
    if (has_learned_curves(r)) {
        const LearningSettings& l = s.learning;
        field("learning",
              cat("{\"latent_states\": ", std::to_string(l.latent_states == 0 ? model.num_states() : l.latent_states),
                  ", \"warmup_episodes\": ", std::to_string(l.warmup), ", \"heldout_episodes\": ",
                  std::to_string(l.heldout), ", \"refit_every\": ", std::to_string(l.refit_every),
                  ", \"refit_em_iterations\": ", std::to_string(l.refit_iterations), ", \"window\": ",
                  std::to_string(l.window), ", \"restarts\": ", std::to_string(l.restarts),
                  ", \"first_fit_em_iterations\": ", std::to_string(l.em_iterations), ", \"smoothing\": ",
                  num(l.smoothing), ", \"emission\": \"shared\", \"initial_belief\": ",
                  l.learned_prior ? "\"learned\"}" : "\"uniform\"}"));
    }
    if (s.heatmap_episodes > 0) {
        char streams[64];
        std::snprintf(streams, sizeof streams, "(seed, 0x%llx, episode)",
                      static_cast<unsigned long long>(heatmap_stream_run));
        field("heatmap", cat("{\"episodes_per_run\": ", std::to_string(s.heatmap_episodes),
                             ", \"policy\": \"final\", \"streams\": \"", streams, "\", "
                             "\"fraction\": \"per curve and cell, the counted steps in the cell over all counted steps "
                             "of the curve's runs: the mean over seeds and episodes of the fraction of an episode's "
                             "counted steps spent there\", \"files\": [\"heatmap.csv\", \"heatmap.gp\", "
                             "\"heatmap.png\"]}"));
    }
    field("command_line", str(info.command_line));
    field("note", str(e.note), info.extra_fields.empty());
    for (std::size_t i = 0; i < info.extra_fields.size(); ++i)
        field(info.extra_fields[i].first, info.extra_fields[i].second, i + 1 == info.extra_fields.size());
    return j + "}\n";
}

// ---------------------------------------------------------------------------------------
// Plot
// ---------------------------------------------------------------------------------------

/// The settings of a run for titles: "BA policy; α = 0.3 (constant), N = 10, K = 12000,
/// ρ = 0.02, 16 seeds" and, after `separator`, "batch-mean baseline, paper counting".
[[nodiscard]] inline std::string settings_line(const ExperimentResult& r, std::string_view separator = ", ") {
    const Settings& s = r.settings;
    std::string classes;
    std::vector<PolicyClass> seen;
    for (const CurveRuns& c : r.curves) {
        bool dup = false;
        for (const PolicyClass p : seen) dup = dup || p == c.curve.policy;
        if (dup) continue;
        seen.push_back(c.curve.policy);
        classes += cat(classes.empty() ? "" : "/", name_of(c.curve.policy));
    }
    const std::string seeds = cat(std::to_string(s.seeds.size()), s.seeds.size() == 1 ? " seed" : " seeds");
    return cat(classes, " policy; α = ", format_number(s.effective_alpha()), " (", name_of(s.step),
               " step), N = ", std::to_string(s.batch), ", K = ", std::to_string(s.iterations), ", ρ = ",
               format_number(s.rho), ", ", seeds, separator, name_of(s.estimator), " baseline, ", name_of(s.counting),
               " state counting");
}

/// Iterations per plotted point: the plot draws the means over consecutive bins of this
/// many iterations (of the mean and of both bounds), so that at most about 400 points per
/// curve are drawn; 1 (every iteration) for K <= 400. summary.csv keeps every iteration.
[[nodiscard]] inline std::size_t plot_bin_width(std::size_t iterations) {
    return iterations <= 400 ? 1 : (iterations + 399) / 400;
}

/// What the plot says about the model, apart from the curves and settings: the script's
/// first comment, the first title line, and the reference line log S (or T log S for
/// Σ_t H(b_t) plots). plot_spec(experiment) gives maxent-paper's; maxent-explore fills
/// its own for a model file.
struct PlotSpec {
    std::string generator;   ///< "maxent-paper: fig2a" (after "# Generated by ")
    std::string subject;     ///< "fig2a (Figure 2(a)): Env. i: 5x5 single room, ..."
    std::size_t states = 0;  ///< S
    std::size_t horizon = 0; ///< T (the paper's grid worlds: T = S)
    Plotted plotted = Plotted::true_entropy;
    std::size_t smooth = 1;  ///< centred moving average over this many iterations (1: none)
    /// Further horizontal lines drawn after the log S line (grey, dotted), e.g. a baseline.
    struct Line {
        double value = 0.0;
        std::string title;
        int dash = 3;  ///< gnuplot dash type
    };
    std::vector<Line> extra_lines;
};

[[nodiscard]] inline PlotSpec plot_spec(const Experiment& e) {
    PlotSpec p;
    p.generator = cat("maxent-paper: ", e.name);
    p.subject = cat(e.name, " (", e.figure, "): ", e.env.describe());
    p.states = e.env.num_states();
    p.horizon = e.env.num_states();  // the grid worlds' horizon T = S
    p.plotted = e.plotted;
    return p;
}

/// `s` as a gnuplot string expression that is taken literally: single-quoted pieces (no
/// escapes, no `command` substitution, which gnuplot performs inside double quotes; a quote
/// is doubled) joined by "\n" for each line break; other control characters become '?'.
/// E.g. a"b`c`<newline>d gives 'a"b`c`'."\n".'d'.
[[nodiscard]] inline std::string gnuplot_string(std::string_view s) {
    std::string out = "'";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == '\n')
            out += "'.\"\\n\".'";
        else if (ch == '\'')
            out += "''";
        else
            out += (c < 0x20 || c == 0x7f) ? '?' : ch;
    }
    return out + "'";
}

/// `s` for a '#' comment line of a gnuplot script: control characters become '?' (a line
/// break would end the comment, and the caller never ends the line with `s`, since a
/// trailing backslash continues a gnuplot comment onto the next line).
[[nodiscard]] inline std::string gnuplot_comment_text(std::string_view s) {
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        out += (c < 0x20 || c == 0x7f) ? '?' : ch;
    }
    return out;
}

/// `rows` with the mean and both bounds replaced by their centred moving average over `w`
/// consecutive iterations (k - (w - 1) / 2 .. k + w / 2, cut at both ends, so the first and
/// last points average fewer); the iterations and n are kept. Only the plot is smoothed.
[[nodiscard]] inline std::vector<SummaryRow> moving_average(const std::vector<SummaryRow>& rows, std::size_t w) {
    const std::size_t n = rows.size();
    std::vector<SummaryRow> out = rows;
    if (w <= 1 || n == 0) return out;
    // Running sums of (mean, low, high): sum[k] holds rows 0 .. k-1.
    std::vector<double> m(n + 1, 0.0), lo(n + 1, 0.0), hi(n + 1, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
        m[k + 1] = m[k] + rows[k].ci.mean;
        lo[k + 1] = lo[k] + rows[k].ci.low;
        hi[k + 1] = hi[k] + rows[k].ci.high;
    }
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t a = k >= (w - 1) / 2 ? k - (w - 1) / 2 : 0;
        const std::size_t b = std::min(n, k + w / 2 + 1);
        const auto count = static_cast<double>(b - a);
        out[k].ci.mean = (m[b] - m[a]) / count;
        out[k].ci.low = (lo[b] - lo[a]) / count;
        out[k].ci.high = (hi[b] - hi[a]) / count;
    }
    return out;
}

/// The gnuplot script that draws the curves (run it inside the experiment's folder). The
/// binned data are inline datablocks, so the script is self-contained. It writes
/// "curves.png.tmp"; write_plot renames it. Empty when no curve has a complete run.
/// Uses r.curves and r.settings only (r.experiment may be null); `p` says the rest.
[[nodiscard]] inline std::string gnuplot_script(const PlotSpec& p, const ExperimentResult& r,
                                                const std::vector<CurveSummary>& summary) {
    const std::size_t S = p.states;
    const auto quote = gnuplot_string;
    // Colour: Paul Tol's colour-blind-safe "muted" palette, nine colours distinguishable from
    // each other. With one curve per objective the colour is the objective's (mse, moe, mbe,
    // reg-mbe: the same in every figure; with learned beliefs, four colours further and
    // dashed); otherwise curve i takes colour i, and curves of one objective that differ in
    // noise σ or policy class also differ in dash type.
    static constexpr const char* palette[9] = {"#332288", "#CC6677", "#117733", "#DDCC77", "#88CCEE",
                                               "#882255", "#44AA99", "#999933", "#AA4499"};
    std::size_t per_objective = 0;  // curves per objective (noise levels x policy classes)
    for (const CurveRuns& c : r.curves)
        if (!c.curve.learned && c.curve.objective == r.curves.front().curve.objective) ++per_objective;
    const char* band_alpha = r.curves.size() > 4 ? "0.12" : "0.2";
    const std::size_t W = std::max<std::size_t>(1, p.smooth);

    std::string data, plots;
    std::size_t drawn = 0, bin = 1;
    for (std::size_t i = 0; i < summary.size(); ++i) {
        const CurveSummary& c = summary[i];
        if (c.rows.empty()) continue;
        bin = plot_bin_width(c.rows.size());
        const std::vector<SummaryRow> rows = W == 1 ? c.rows : moving_average(c.rows, W);
        const std::string block = cat("$curve", std::to_string(i));
        data += cat(block, " << EOD\n");
        for (std::size_t b = 0; b < rows.size(); b += bin) {
            const std::size_t end = std::min(rows.size(), b + bin);
            double x = 0, y = 0, lo = 0, hi = 0;
            for (std::size_t k = b; k < end; ++k) {
                x += static_cast<double>(rows[k].iteration);
                y += rows[k].ci.mean;
                lo += rows[k].ci.low;
                hi += rows[k].ci.high;
            }
            const auto n = static_cast<double>(end - b);
            char line[128];
            std::snprintf(line, sizeof line, "%.10g %.10g %.10g %.10g\n", x / n, y / n, lo / n, hi / n);
            data += line;
        }
        data += "EOD\n";
        const std::size_t secondary = per_objective == 0 ? 0 : i % per_objective;
        const Curve& curve = r.curves[i].curve;
        // A learned-belief curve takes the colour four places after its objective's, dashed.
        const std::size_t slot = static_cast<std::size_t>(curve.objective) + (curve.learned ? 4 : 0);
        const char* rgb = per_objective == 1 ? palette[slot % 9] : palette[i % 9];
        const std::string color = cat("rgb \"", rgb, "\"");
        const std::string dash = cat(" dt ", std::to_string(curve.learned ? 2 : 1 + secondary % 5));
        plots += cat(drawn ? ", \\\n     " : "plot ", block, " using 1:3:4 with filledcurves lc ", color, " notitle");
        plots += cat(", \\\n     ", block, " using 1:2 with lines lw 1.8 lc ", color, dash, " title ",
                     quote(cat(c.label, "  (n = ", std::to_string(c.rows.front().ci.n), ")")));
        ++drawn;
    }
    if (drawn == 0) return {};

    const double logS = std::log(static_cast<double>(S));
    std::string ref_value, ref_title;
    char buf[96];
    if (p.plotted == Plotted::true_entropy) {
        ref_value = format_number(logS);
        std::snprintf(buf, sizeof buf, "log S = log %zu = %.3f", S, logS);
    } else {
        const double T = static_cast<double>(p.horizon);
        ref_value = format_number(T * logS);
        std::snprintf(buf, sizeof buf, "T log S = %zu log %zu = %.1f", p.horizon, S, T * logS);
    }
    ref_title = buf;
    plots += cat(", \\\n     ", ref_value, " with lines dt 2 lw 1.5 lc rgb \"black\" title ", quote(ref_title));
    for (const PlotSpec::Line& line : p.extra_lines)
        plots += cat(", \\\n     ", format_number(line.value), " with lines dt ", std::to_string(line.dash),
                     " lw 1.5 lc rgb \"#555555\" title ", quote(line.title));

    std::string g;
    g += cat("# Generated by ", gnuplot_comment_text(p.generator), ". Run inside this folder: gnuplot curves.gp\n");
    g += "# Data: per curve, bins of iterations: mean iteration, mean, ci_low, ci_high (means over the bin)\n";
    g += data;
    g += "set encoding utf8\n";
    g += "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
         "  set terminal pngcairo size 1200,760 enhanced font \"Sans,11\"\n"
         "} else {\n"
         "  set terminal png size 1200,760 enhanced\n"
         "}\n";
    g += "set output \"curves.png.tmp\"\n";
    std::string binning =
        bin == 1 ? std::string("every iteration")
                 : cat("each point the mean of ", std::to_string(bin), " iterations (all in summary.csv)");
    if (W > 1) binning = cat("moving average over ", std::to_string(W), " iterations, ", binning);
    const std::string title =
        cat(p.subject, "\n", settings_line(r, ",\n"), ";\nmean and 95% CI over seeds; ", binning);
    g += cat("set title ", quote(title), " noenhanced\n");
    g += "set xlabel \"iteration k\"\n";
    g += p.plotted == Plotted::true_entropy ? "set ylabel \"true-state entropy\"\n" : "set ylabel \"Σ_t H(b_t)\"\n";
    g += "set grid\n";
    // Inside the frame, where the curves are not: learning curves rise (bottom right is free),
    // Σ_t H(b_t) curves fall (top right); an opaque box keeps it readable over the bands.
    g += p.plotted == Plotted::true_entropy ? "set key inside right bottom vertical noenhanced opaque box\n"
                                            : "set key inside right top vertical noenhanced opaque box\n";
    g += cat("set style fill transparent solid ", band_alpha, " noborder\n");
    g += cat("set xrange [0:", std::to_string(r.settings.iterations > 1 ? r.settings.iterations - 1 : 1), "]\n");
    g += cat(plots, "\n");
    g += "set output\n";
    return g;
}

/// maxent-paper's script for an experiment's result (r.experiment must be set).
[[nodiscard]] inline std::string gnuplot_script(const ExperimentResult& r, const std::vector<CurveSummary>& summary) {
    return gnuplot_script(plot_spec(*r.experiment), r, summary);
}

/// What happened to the plot.
struct PlotOutcome {
    bool drawn = false;
    bool failed = false;  ///< gnuplot ran but drew nothing (a failed run of the program)
    std::string message;  ///< for the user: where the PNG is, or why there is none and how to get it
};

/// Whether `gnuplot` can be run (found on PATH).
[[nodiscard]] inline bool gnuplot_available() {
    return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/// '...' for a POSIX shell.
[[nodiscard]] inline std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (const char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

/// Runs `gnuplot <stem>.gp` inside `dir` when `render` and gnuplot is installed; the script
/// writes <stem>.png.tmp, renamed to <stem>.png (atomically). gnuplot's messages go to
/// gnuplot.log (appended to with `append_log`; removed when empty). `shown` is the folder
/// named in the messages (the final folder when `dir` is a staging folder; empty: `dir`).
/// Only a PNG gnuplot finished with exit status 0 counts as drawn.
inline PlotOutcome render_gnuplot(const std::filesystem::path& dir, std::string_view stem, bool render,
                                  const std::filesystem::path& shown = {}, bool append_log = false) {
    const std::filesystem::path named = shown.empty() ? dir : shown;
    const std::string gp = cat(stem, ".gp"), png_name = cat(stem, ".png"), tmp_name = cat(stem, ".png.tmp");
    const std::filesystem::path png = dir / png_name;
    const std::string how = cat("cd ", shell_quote(named.string()), " && gnuplot ", gp, " && mv ", tmp_name, " ", png_name);
    if (!render) return {false, false, cat("plot skipped (--no-plot); draw it with: ", how)};
    if (!gnuplot_available())
        return {false, false,
                cat("gnuplot not found, so no ", png_name, " (the CSV files are written). Install it with "
                    "`apt-get install gnuplot-nox`, then run: ",
                    how)};
    const std::string cmd =
        cat("cd ", shell_quote(dir.string()), " && gnuplot ", gp, append_log ? " 2>>gnuplot.log" : " 2>gnuplot.log");
    const int status = std::system(cmd.c_str());
    const std::filesystem::path tmp = dir / tmp_name;
    std::error_code ec;
    if (status != 0 || !std::filesystem::exists(tmp, ec)) {
        std::filesystem::remove(tmp, ec);
        const std::string how_failed =
            status == -1 ? std::string("could not be started")
            : WIFEXITED(status) ? cat("exited with status ", std::to_string(WEXITSTATUS(status)))
            : WIFSIGNALED(status) ? cat("was killed by signal ", std::to_string(WTERMSIG(status)))
                                  : cat("failed (status ", std::to_string(status), ")");
        return {false, true,
                cat("gnuplot ", how_failed, ", so there is no ", png_name, "; see ", (named / "gnuplot.log").string())};
    }
    std::filesystem::rename(tmp, png, ec);
    if (ec) return {false, true, cat("cannot rename ", tmp.string(), " to ", png.string(), ": ", ec.message())};
    const std::filesystem::path log = dir / "gnuplot.log";
    if (std::filesystem::exists(log, ec) && std::filesystem::file_size(log, ec) == 0) std::filesystem::remove(log, ec);
    return {true, false, (named / png_name).string()};
}

/// Writes `script` (from gnuplot_script) to dir/curves.gp and renders curves.png
/// (render_gnuplot). An empty script: nothing is written.
inline PlotOutcome write_plot_script(const std::filesystem::path& dir, const std::string& script, bool render,
                                     const std::filesystem::path& shown = {}) {
    if (script.empty()) return {false, false, "no complete run: nothing to plot"};
    write_string_atomically(dir / "curves.gp", script);
    return render_gnuplot(dir, "curves", render, shown);
}

// ---------------------------------------------------------------------------------------
// Heatmaps: where the final policies take the true state (maxent-paper, maxent-rescue)
// ---------------------------------------------------------------------------------------

/// One panel: a label (the curve, or "uniform") and per cell (index ix + width * iy) the
/// fraction of all counted steps spent there.
struct HeatmapPanel {
    std::string label;
    std::vector<double> fraction;
    std::string note;  ///< after the label in the panel's title (e.g. the true-state entropy)
};

/// The geometry and words of a heatmap plot.
struct HeatmapSpec {
    std::string generator;               ///< "maxent-paper: fig2a" (after "# Generated by ")
    std::string title;                   ///< the plot's title
    std::size_t width = 0, height = 0;   ///< cells per row, rows
    double x0 = 0.0, y0 = 0.0;           ///< the corner of cell (0, 0)
    double cell = 1.0;                   ///< the side of a cell in plot units
    bool y_down = false;                 ///< row 0 at the top (grid worlds) rather than the bottom
    struct Segment {
        double x1, y1, x2, y2;
    };
    std::vector<Segment> walls;  ///< drawn in black over the cells
    /// Each panel coloured from 0 to its own largest fraction (its own colour box) instead of
    /// one scale for all: where one panel's peak (often the uniform policy's start cell) would
    /// leave the others faint. The fractions written are the same either way.
    bool own_scales = false;
};

/// heatmap.csv: `<label column>,<x_name>,<y_name>,fraction`, one row per panel and cell, cells
/// in index order (x fastest), fractions as %.17g.
inline void write_heatmap_csv(std::FILE* f, const std::vector<HeatmapPanel>& panels, std::size_t width,
                              std::string_view x_name, std::string_view y_name) {
    std::string chunk = cat("objective,", x_name, ",", y_name, ",fraction\n");
    for (const HeatmapPanel& p : panels)
        for (std::size_t k = 0; k < p.fraction.size(); ++k) {
            chunk.append(p.label).append(",");
            detail::append_uint(chunk, k % width);
            chunk.append(",");
            detail::append_uint(chunk, k / width);
            chunk.append(",");
            detail::append_g17(chunk, p.fraction[k]);
            chunk.append("\n");
            detail::flush_chunk(f, chunk);
        }
    detail::flush_chunk(f, chunk, true);
}

/// The gnuplot script drawing the panels as images (one colour scale for all, from 0 to the
/// largest fraction, or each panel's own with spec.own_scales), the walls over them, in a grid
/// of at most 4 columns; it writes heatmap.png.tmp (render_gnuplot renames it).
[[nodiscard]] inline std::string heatmap_script(const HeatmapSpec& spec, const std::vector<HeatmapPanel>& panels) {
    const auto num = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", x);
        return std::string(buf);
    };
    std::string g = cat("# Generated by ", gnuplot_comment_text(spec.generator),
                        ". Run inside this folder: gnuplot heatmap.gp\n");
    g += "# Data: per panel, the centre x y of every cell and its fraction of the counted steps\n";
    double top = 0.0;
    std::vector<double> tops(panels.size(), 0.0);
    for (std::size_t p = 0; p < panels.size(); ++p) {
        g += cat("$heat", std::to_string(p), " << EOD\n");
        for (std::size_t iy = 0; iy < spec.height; ++iy) {
            for (std::size_t ix = 0; ix < spec.width; ++ix) {
                const double f = panels[p].fraction.at(ix + spec.width * iy);
                top = std::max(top, f);
                tops[p] = std::max(tops[p], f);
                g += cat(num(spec.x0 + (static_cast<double>(ix) + 0.5) * spec.cell), " ",
                         num(spec.y0 + (static_cast<double>(iy) + 0.5) * spec.cell), " ", num(f), "\n");
            }
            g += "\n";
        }
        g += "EOD\n";
    }
    const std::size_t n = std::max<std::size_t>(1, panels.size());
    const std::size_t cols = n <= 3 ? n : n <= 6 ? 3 : 4, rows = (n + cols - 1) / cols;
    const std::string size = cat(std::to_string(80 + 420 * cols), ",", std::to_string(60 + 380 * rows));
    g += "set encoding utf8\n";
    g += cat("if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n  set terminal pngcairo size ", size,
             " font \"Sans,10\"\n} else {\n  set terminal png size ", size, "\n}\n");
    g += "set output \"heatmap.png.tmp\"\n";
    const double x1 = spec.x0 + static_cast<double>(spec.width) * spec.cell;
    const double y1 = spec.y0 + static_cast<double>(spec.height) * spec.cell;
    g += cat("set size ratio -1\nset xrange [", num(spec.x0), ":", num(x1), "]\n");
    g += spec.y_down ? cat("set yrange [", num(y1), ":", num(spec.y0), "]\n")
                     : cat("set yrange [", num(spec.y0), ":", num(y1), "]\n");
    g += "unset key\nset tics out\n";
    g += "set palette defined (0 \"white\", 1 \"#fdd49e\", 2 \"#fc8d59\", 3 \"#d7301f\", 4 \"#7f0000\")\n";
    if (!spec.own_scales) g += cat("set cbrange [0:", num(top > 0.0 ? top : 1.0), "]\n");
    std::size_t arrow = 1;
    for (const HeatmapSpec::Segment& w : spec.walls)
        g += cat("set arrow ", std::to_string(arrow++), " from ", num(w.x1), ",", num(w.y1), " to ", num(w.x2), ",",
                 num(w.y2), " nohead front lw 3 lc rgb \"black\"\n");
    g += cat("set multiplot layout ", std::to_string(rows), ",", std::to_string(cols), " title ",
             gnuplot_string(spec.own_scales ? cat(spec.title, "; each panel on its own colour scale") : spec.title),
             " noenhanced\n");
    for (std::size_t p = 0; p < panels.size(); ++p) {
        const std::string t = panels[p].note.empty() ? panels[p].label : cat(panels[p].label, "  (", panels[p].note, ")");
        if (spec.own_scales) g += cat("set cbrange [0:", num(tops[p] > 0.0 ? tops[p] : 1.0), "]\n");
        g += cat("set title ", gnuplot_string(t), " noenhanced\n");
        g += cat("plot $heat", std::to_string(p), " using 1:2:3 with image\n");
    }
    g += "unset multiplot\nset output\n";
    return g;
}

/// Writes heatmap.csv and heatmap.gp into `dir` and renders heatmap.png (render_gnuplot,
/// appending to gnuplot.log after the curves' plot).
inline PlotOutcome write_heatmaps(const std::filesystem::path& dir, const HeatmapSpec& spec,
                                  const std::vector<HeatmapPanel>& panels, std::string_view x_name,
                                  std::string_view y_name, bool render, const std::filesystem::path& shown = {}) {
    write_file_atomically(dir / "heatmap.csv",
                          [&](std::FILE* f) { write_heatmap_csv(f, panels, spec.width, x_name, y_name); });
    write_string_atomically(dir / "heatmap.gp", heatmap_script(spec, panels));
    return render_gnuplot(dir, "heatmap", render, shown, true);
}

// ---------------------------------------------------------------------------------------
// The uniform policy's baseline (maxent-paper)
// ---------------------------------------------------------------------------------------

/// Episodes per seed of maxent-paper's uniform baseline: the per-seed means then vary by
/// about 0.3 / sqrt(1000) ≈ 0.01 nats on the paper's grids, well below the curves' bands.
inline constexpr std::size_t paper_uniform_episodes = 1000;

/// The uniform policy's mean true-state entropy on experiment `e`'s world under the
/// counting of `s`, per seed of `s.seeds` (common/uniform.hpp), on `threads` threads; the
/// values do not depend on the thread count.
[[nodiscard]] inline std::vector<double> uniform_baseline(const Experiment& e, const Settings& s,
                                                          std::size_t threads) {
    const GridPomdp model = e.env.build();
    return run_parallel(s.seeds.size(), threads, [&](std::size_t i) {
        return uniform_entropy(model, s.counting, s.seeds[i], paper_uniform_episodes);
    });
}

inline void write_uniform_csv(std::FILE* f, const std::vector<std::uint64_t>& seeds,
                              const std::vector<double>& values) {
    std::string text = "seed,episodes,true_entropy\n";
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        text += cat(std::to_string(seeds[i]), ",", std::to_string(paper_uniform_episodes), ",");
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g\n", values[i]);
        text += buf;
    }
    std::fwrite(text.data(), 1, text.size(), f);
}

// ---------------------------------------------------------------------------------------
// maxent-paper's heatmaps (grid worlds)
// ---------------------------------------------------------------------------------------

/// The uniform policy's visits per seed of `s` on experiment `e`'s world: heatmap_episodes
/// episodes each on the runs' streams (count_visits), on `threads` threads; the values do
/// not depend on the thread count.
[[nodiscard]] inline std::vector<VisitCounts> uniform_visits(const Experiment& e, const Settings& s,
                                                             std::size_t threads) {
    const GridPomdp model = e.env.build();
    return run_parallel(s.seeds.size(), threads, [&](std::size_t i) {
        return count_visits(model, BayesFilter<GridPomdp>(model), UniformPolicy(model.num_actions()), s.counting,
                            s.seeds[i], s.heatmap_episodes);
    });
}

/// A panel of the visits of `runs` on a world of `cells` true states: a cell's fraction is
/// its counts summed over the runs divided by all their counts, i.e. (every episode has the
/// same T counted steps) the mean over runs and episodes of the fraction of an episode's
/// counted steps spent in the cell. The note gives the runs' mean true-state entropy.
[[nodiscard]] inline HeatmapPanel visits_panel(const std::string& label, const std::vector<const VisitCounts*>& runs,
                                               std::size_t cells) {
    HeatmapPanel p{label, std::vector<double>(cells, 0.0), {}};
    std::vector<std::uint64_t> sum(cells, 0);
    std::uint64_t total = 0;
    double entropy = 0.0;
    for (const VisitCounts* v : runs) {
        if (v->counts.size() != cells)
            throw output_error(cat("heatmap of '", label, "': a run has visit counts of ", std::to_string(v->counts.size()),
                                   " states, the world has ", std::to_string(cells)));
        for (std::size_t k = 0; k < cells; ++k) {
            sum[k] += v->counts[k];
            total += v->counts[k];
        }
        entropy += v->mean_entropy;
    }
    if (total > 0)
        for (std::size_t k = 0; k < cells; ++k) p.fraction[k] = static_cast<double>(sum[k]) / static_cast<double>(total);
    if (!runs.empty()) {
        char note[96];
        std::snprintf(note, sizeof note, "true-state entropy %.3f, %zu seed%s",
                      entropy / static_cast<double>(runs.size()), runs.size(), runs.size() == 1 ? "" : "s");
        p.note = note;
    }
    return p;
}

/// The panels of `r` (Settings::heatmap_episodes > 0): "uniform" first (uniform_visits, on
/// `threads` threads), then every curve with complete runs, in curve order.
[[nodiscard]] inline std::vector<HeatmapPanel> grid_heatmap_panels(const ExperimentResult& r, std::size_t threads) {
    const std::size_t cells = r.experiment->env.num_states();
    std::vector<HeatmapPanel> panels;
    const std::vector<VisitCounts> uniform = uniform_visits(*r.experiment, r.settings, threads);
    std::vector<const VisitCounts*> runs;
    for (const VisitCounts& v : uniform) runs.push_back(&v);
    panels.push_back(visits_panel("uniform", runs, cells));
    for (const CurveRuns& c : r.curves) {
        runs.clear();
        for (const SeedRun& run : c.runs)
            if (run.complete) runs.push_back(&run.visits);
        if (!runs.empty()) panels.push_back(visits_panel(c.curve.label, runs, cells));
    }
    return panels;
}

/// The grid of experiment `e` for heatmap_script: cell (x, y) centred at (x, y), row 0 at the
/// top, its thin walls as black segments.
[[nodiscard]] inline HeatmapSpec grid_heatmap_spec(const ExperimentResult& r) {
    const Experiment& e = *r.experiment;
    HeatmapSpec spec;
    spec.generator = cat("maxent-paper: ", e.name);
    spec.title = cat(e.name, " (", e.figure, "): ", e.env.describe(),
                     "\nwhere the final policies take the true state: fraction of the counted steps per cell, ",
                     std::to_string(r.settings.heatmap_episodes),
                     " episodes per seed, mean over seeds; walls in black, row y = 0 at the top");
    spec.width = e.env.width;
    spec.height = e.env.height;
    spec.x0 = spec.y0 = -0.5;
    spec.y_down = true;
    for (const Wall& w : e.env.grid_layout().walls()) {
        const double x = w.cell.x, y = w.cell.y;
        if (w.side == Move::down)
            spec.walls.push_back({x - 0.5, y + 0.5, x + 0.5, y + 0.5});
        else
            spec.walls.push_back({x + 0.5, y - 0.5, x + 0.5, y + 0.5});
    }
    return spec;
}

// ---------------------------------------------------------------------------------------
// Everything
// ---------------------------------------------------------------------------------------

struct WrittenFiles {
    std::filesystem::path dir;
    bool wrote = false;  ///< false when no run completed (nothing was written)
    PlotOutcome plot;
    bool heatmaps = false;  ///< heatmap.csv and heatmap.gp were written
    PlotOutcome heatmap;    ///< heatmap.png
};

/// The folder of experiment `e` under `out`: out/<name>, prepared (see OutputFolder).
[[nodiscard]] inline OutputFolder experiment_folder(const std::filesystem::path& out, const Experiment& e) {
    return OutputFolder(out / safe_folder_name(e.name, "experiment"));
}

/// How the plot is drawn: rendered by gnuplot (`render`; curves.gp is always written), the
/// moving-average window (--smooth), the threads for the uniform baseline, and the
/// heatmaps' colour scales (--heatmap-scale panel: HeatmapSpec::own_scales).
struct PlotOptions {
    bool render = true;
    std::size_t smooth = 1;
    std::size_t threads = 1;
    bool heatmap_own_scales = false;
};

/// Writes the experiment's set into `folder` (prepared before the training): config.json,
/// runs.csv, summary.csv, uniform.csv, the plot and, with heatmap episodes, heatmap.csv,
/// heatmap.gp and heatmap.png (the plots rendered when `plot.render`), keeping
/// only complete runs, and commits it. When no run completed, writes nothing and leaves the
/// previous set.
inline WrittenFiles write_experiment(OutputFolder& folder, const ExperimentResult& r, const RunInfo& info,
                                     const PlotOptions& plot) {
    WrittenFiles w;
    w.dir = folder.path();
    if (r.complete_runs() == 0) {
        folder.discard();
        return w;
    }
    const std::filesystem::path& dir = folder.staging();
    const std::vector<CurveSummary> summary = summarize(r, r.experiment->plotted);
    write_file_atomically(dir / "runs.csv", [&](std::FILE* f) { write_runs_csv(f, r); });
    write_file_atomically(dir / "summary.csv", [&](std::FILE* f) { write_summary_csv(f, summary); });
    write_string_atomically(dir / "config.json", config_json(r, info));
    if (has_learned_curves(r))
        write_file_atomically(dir / "learning.csv", [&](std::FILE* f) { write_learning_csv(f, r); });
    const std::vector<double> uniform = uniform_baseline(*r.experiment, r.settings, plot.threads);
    write_file_atomically(dir / "uniform.csv", [&](std::FILE* f) { write_uniform_csv(f, r.settings.seeds, uniform); });
    PlotSpec p = plot_spec(*r.experiment);
    p.smooth = plot.smooth;
    if (p.plotted == Plotted::true_entropy && !uniform.empty()) {
        const ConfidenceInterval u = mean_confidence_interval(uniform, 0.95);
        char title[96];
        std::snprintf(title, sizeof title, "uniform random policy = %.3f", u.mean);
        p.extra_lines.push_back({u.mean, title});
    }
    w.plot = write_plot_script(dir, gnuplot_script(p, r, summary), plot.render, w.dir);
    if (r.settings.heatmap_episodes > 0) {
        HeatmapSpec spec = grid_heatmap_spec(r);
        spec.own_scales = plot.heatmap_own_scales;
        w.heatmap = write_heatmaps(dir, spec, grid_heatmap_panels(r, plot.threads), "x", "y", plot.render, w.dir);
        w.heatmaps = true;
    }
    folder.commit();
    w.wrote = true;
    return w;
}

/// The same, preparing out/<name> itself (for callers that did not prepare it earlier).
inline WrittenFiles write_experiment(const std::filesystem::path& out, const ExperimentResult& r,
                                     const RunInfo& info, const PlotOptions& plot) {
    if (r.complete_runs() == 0) return {out / safe_folder_name(r.experiment->name, "experiment"), false, {}, false, {}};
    OutputFolder folder = experiment_folder(out, *r.experiment);
    return write_experiment(folder, r, info, plot);
}

}  // namespace maxent::programs
