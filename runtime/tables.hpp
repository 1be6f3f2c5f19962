// runtime/tables.hpp — the CSV files of an experiment's runs: runs.csv (every
// iteration of every complete run), learning.csv (the fits of learned belief models) and
// summary.csv (per curve and iteration, the mean and 95% Student-t interval across the seeds
// of the plotted quantity: Paper, Section 6 / Appendix D). Doubles are written as %.17g, so
// the files are exact and byte-identical for any number of threads.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/core/statistics.hpp"

#include "choices.hpp"
#include "files.hpp"
#include "results.hpp"
#include "text.hpp"

namespace maxent::programs {

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

/// x as %.17g (reads back as the same double), appended to `out`.
using detail::append_g17;

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

/// The file of a learned-belief run's final model, relative to the experiment folder:
/// learned/<curve label with '/' as '_'>-seed<seed>.pomdp.
[[nodiscard]] inline std::string learned_model_file(const std::string& label, std::uint64_t seed) {
    std::string name = label;
    for (char& ch : name)
        if (ch == '/' || ch == '\\') ch = '_';
    return cat(output_name("learned"), "/", name, "-seed", std::to_string(seed), ".pomdp");
}

/// Writes every complete learned-belief run's final model to dir/learned_model_file(...).
inline void write_learned_models(const std::filesystem::path& dir, const ExperimentResult& r) {
    for (const CurveRuns& c : r.curves) {
        if (!c.curve.learned) continue;
        for (const SeedRun& run : c.runs) {
            if (!run.complete || run.learned_model.empty()) continue;
            const std::filesystem::path file = dir / learned_model_file(c.curve.label, run.seed);
            std::filesystem::create_directories(file.parent_path());
            write_string_atomically(file, run.learned_model);
        }
    }
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
    MeanInterval ci;
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
                s.rows.push_back({k, values.size() > 1 ? two_pass_mean_interval_t(values, quantile(values.size()))
                                                       : two_pass_mean_interval(values, 0.95)});
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

}  // namespace maxent::programs
