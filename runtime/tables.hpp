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
void append_g17(std::string& out, double x);
void append_uint(std::string& out, std::uint64_t x);
/// Writes `chunk` to f and clears it once it holds more than 1 MiB (or when `force`).
void flush_chunk(std::FILE* f, std::string& chunk, bool force = false);
}  // namespace detail

/// x as %.17g (reads back as the same double), appended to `out`.
using detail::append_g17;

/// Writes the rows of every complete run of `r` to `f` (header first).
void write_runs_csv(std::FILE* f, const ExperimentResult& r);

/// Whether any curve of the result learns its belief model (learning.csv is written).
[[nodiscard]] bool has_learned_curves(const ExperimentResult& r);

/// The file of a learned-belief run's final model, relative to the experiment folder:
/// learned/<curve label with '/' as '_'>-seed<seed>.pomdp.
[[nodiscard]] std::string learned_model_file(const std::string& label, std::uint64_t seed);

/// Writes every complete learned-belief run's final model to dir/learned_model_file(...).
void write_learned_models(const std::filesystem::path& dir, const ExperimentResult& r);

inline constexpr std::string_view learning_csv_header =
    "objective,seed,fit,iteration,episodes,em_iterations,converged,train_ll_per_obs,heldout_ll_per_obs,"
    "truth_heldout_ll_per_obs";

/// learning.csv (see the header): every fit of every complete learned-belief run.
void write_learning_csv(std::FILE* f, const ExperimentResult& r);

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

[[nodiscard]] std::vector<CurveSummary> summarize(const ExperimentResult& r, Plotted plotted);

inline constexpr std::string_view summary_csv_header = "objective,iteration,mean,ci_low,ci_high,n";

void write_summary_csv(std::FILE* f, const std::vector<CurveSummary>& summary);

}  // namespace maxent::programs
