// runtime/tables.cpp — the bodies of tables.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "tables.hpp"

namespace maxent::programs {
namespace detail {

void append_g17(std::string& out, double x) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 17);
    out.append(buf, r.ptr);
}

void append_uint(std::string& out, std::uint64_t x) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    out.append(buf, r.ptr);
}

void flush_chunk(std::FILE* f, std::string& chunk, bool force) {
    if (!force && chunk.size() < (1u << 20)) return;
    std::fwrite(chunk.data(), 1, chunk.size(), f);
    chunk.clear();
}

}  // namespace detail
}  // namespace maxent::programs

namespace maxent::programs {

void write_runs_csv(std::FILE* f, const ExperimentResult& r) {
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

bool has_learned_curves(const ExperimentResult& r) {
    for (const CurveRuns& c : r.curves)
        if (c.curve.learned) return true;
    return false;
}

std::string learned_model_file(const std::string& label, std::uint64_t seed) {
    std::string name = label;
    for (char& ch : name)
        if (ch == '/' || ch == '\\') ch = '_';
    return cat(output_name("learned"), "/", name, "-seed", std::to_string(seed), ".pomdp");
}

void write_learned_models(const std::filesystem::path& dir, const ExperimentResult& r) {
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

void write_learning_csv(std::FILE* f, const ExperimentResult& r) {
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

std::vector<CurveSummary> summarize(const ExperimentResult& r, Plotted plotted) {
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

void write_summary_csv(std::FILE* f, const std::vector<CurveSummary>& summary) {
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
