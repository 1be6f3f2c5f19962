// examples/common/shards.hpp — one study split across processes or machines, and put back
// together exactly: shards, the build fingerprint, and the merge's reading and checks.
//
// A study is the (curve, seed) runs of one experiment (maxent-paper) or one model file
// (maxent-explore) under one set of settings; every run is a pure function of them and of
// the build (runner.hpp), and runs.csv lists them in job order (curve-major, seed-minor).
//   Shards     `--shard I/N` runs the jobs assign_shards gives slice I: jobs are taken by
//              decreasing estimated cost (run_cost; equal costs in job order) and each goes to
//              the slice with the least cost so far (the lowest such slice), so the slices
//              are balanced and every process computes the same assignment. A shard writes
//              OUT/<name>.shard-I-of-N/ with its own runs.csv (its complete runs, in job
//              order) and config.json, whose "shard" section holds the program, I, N, the
//              arguments (to rebuild the settings), and per run its curve, seed and table
//              size (class B); maxent-explore's also the uniform baseline of its seeds.
//   Merge      `PROGRAM merge SHARD_DIR... --out DIR` reads any set of shard folders,
//              groups them by experiment (or model), and for each group rebuilds the
//              result the single process would have had and writes it with the same code
//              (output.hpp), so runs.csv, summary.csv, config.json, curves.gp and curves.png
//              (and heatmap.csv, heatmap.gp, heatmap.png: the shards' visits.csv holds each
//              run's counts) are the same bytes. A shard without visits.csv in a study that
//              counts visits (--heatmap-episodes E > 0; e.g. one written before heatmaps) is
//              refused, naming the file. config.json's "threads" and "command_line" record the
//              invocation: the merge writes those of the shards (the lowest I/N) with
//              --shard removed, i.e. those of the same command run without --shard. It
//              refuses, naming the difference: shards whose settings differ
//              (study_fields), whose builds differ (build fingerprint, below; also from the
//              merging program's own), that hold the same run twice, or that leave runs
//              missing (listed, with the --shard slices that hold them).
//   Fingerprint  build_fingerprint(): what can change a run's floating-point results: the
//              maxent version, the git commit of the build (MAXENT_GIT_COMMIT, from CMake's
//              `git rev-parse HEAD` at configure time; empty if unknown), the compiler and
//              its version, the build's flags (MAXENT_BUILD_FLAGS: CMAKE_CXX_FLAGS and the
//              build type's), the target's floating-point relevant features as the compiler
//              sees them (fast-math, FMA, the SSE/AVX/NEON level that -march selects), and
//              Eigen's version, SIMD instruction sets and EIGEN_IDEAL_MAX_ALIGN_BYTES (its
//              vector width). Compared field by field; any difference refuses.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "cli.hpp"
#include "experiments.hpp"
#include "output.hpp"
#include "runner.hpp"

#ifndef MAXENT_VERSION
#define MAXENT_VERSION "unknown"
#endif
#ifndef MAXENT_GIT_COMMIT
#define MAXENT_GIT_COMMIT ""
#endif
#ifndef MAXENT_BUILD_FLAGS
#define MAXENT_BUILD_FLAGS ""
#endif

namespace maxent::programs {

/// A merge that cannot be done; the message names the shards and the difference.
class merge_error : public maxent::error {
public:
    using maxent::error::error;
};

// ---------------------------------------------------------------------------------------
// Build fingerprint
// ---------------------------------------------------------------------------------------

using Fields = std::vector<std::pair<std::string, std::string>>;

/// The build of this program (see the header comment), as (name, value) pairs.
[[nodiscard]] inline Fields build_fingerprint() {
    Fields f;
    f.emplace_back("maxent_version", MAXENT_VERSION);
    f.emplace_back("commit", MAXENT_GIT_COMMIT);
#if defined(__clang__)
    f.emplace_back("compiler", cat("clang ", __clang_version__));
#elif defined(__GNUC__)
    f.emplace_back("compiler", cat("gcc ", __VERSION__));
#elif defined(_MSC_VER)
    f.emplace_back("compiler", cat("msvc ", std::to_string(_MSC_FULL_VER)));
#else
    f.emplace_back("compiler", "unknown");
#endif
    f.emplace_back("flags", MAXENT_BUILD_FLAGS);
    std::string fp;
    auto add = [&](const char* x) { fp += cat(fp.empty() ? "" : " ", x); };
#if defined(__x86_64__) || defined(_M_X64)
    add("x86_64");
#elif defined(__aarch64__) || defined(_M_ARM64)
    add("aarch64");
#else
    add("other-arch");
#endif
#ifdef __FAST_MATH__
    add("fast-math");
#endif
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
    add("finite-math-only");
#endif
#ifdef __FMA__
    add("fma");
#endif
#ifdef __FP_FAST_FMA
    add("fp-fast-fma");
#endif
#ifdef __SSE4_2__
    add("sse4.2");
#endif
#ifdef __AVX__
    add("avx");
#endif
#ifdef __AVX2__
    add("avx2");
#endif
#ifdef __AVX512F__
    add("avx512f");
#endif
#ifdef __ARM_NEON
    add("neon");
#endif
#ifdef __ARM_FEATURE_FMA
    add("arm-fma");
#endif
    f.emplace_back("floating_point", fp);
    f.emplace_back("eigen", cat(std::to_string(EIGEN_WORLD_VERSION), ".", std::to_string(EIGEN_MAJOR_VERSION), ".",
                                std::to_string(EIGEN_MINOR_VERSION)));
    f.emplace_back("eigen_simd", Eigen::SimdInstructionSetsInUse());
    f.emplace_back("eigen_max_align_bytes", std::to_string(EIGEN_IDEAL_MAX_ALIGN_BYTES));
    return f;
}

/// The fingerprint as a one-line JSON object (config.json's "build").
[[nodiscard]] inline std::string fields_json(const Fields& f) {
    std::string j = "{";
    for (std::size_t i = 0; i < f.size(); ++i)
        j += cat(i ? ", " : "", json_string(f[i].first), ": ", json_string(f[i].second));
    return j + "}";
}

// ---------------------------------------------------------------------------------------
// Shards: which process runs which jobs
// ---------------------------------------------------------------------------------------

/// The estimated relative cost of one run of a curve. Every run of a study has the same K, N,
/// S and T, so only the policy class counts; measured on fig2a (5 x 5, K = 1500, one
/// thread): O, BA and S take about the same time, the mixture form BM about twice as long
/// (S softmax rows per step), the belief-state table B about 1.6 times (its row lookup).
[[nodiscard]] inline std::uint64_t run_cost(const Curve& c) {
    if (c.learned) return 8;  // the fits of the belief model: 4.7 s of CPU against 1.2 s (nosim2b, Reg-MBE)
    switch (c.policy) {
        case PolicyClass::belief_mixture: return 4;
        case PolicyClass::belief_state: return 3;
        default: return 2;
    }
}

/// The slice (0-based) of each job: longest first (stable: equal costs in job order), each to
/// the slice with the least total so far (the lowest such slice). Integer costs, so every
/// machine computes the same assignment.
[[nodiscard]] inline std::vector<std::size_t> assign_shards(const std::vector<std::uint64_t>& costs,
                                                            std::size_t count) {
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    std::vector<std::uint64_t> load(count, 0);
    std::vector<std::size_t> out(costs.size(), 0);
    for (const std::size_t j : order) {
        const std::size_t s = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        out[j] = s;
        load[s] += costs[j];
    }
    return out;
}

/// The jobs (curve-major, seed-minor) of `curves` x `seeds` in slice `shard` (ExperimentResult::selected).
[[nodiscard]] inline std::vector<char> shard_selection(const std::vector<Curve>& curves, std::size_t seeds,
                                                       const ShardSpec& shard) {
    std::vector<std::uint64_t> costs;
    for (const Curve& c : curves)
        for (std::size_t i = 0; i < seeds; ++i) costs.push_back(run_cost(c));
    const std::vector<std::size_t> slice = assign_shards(costs, shard.count);
    std::vector<char> selected(costs.size());
    for (std::size_t j = 0; j < costs.size(); ++j) selected[j] = slice[j] + 1 == shard.index ? 1 : 0;
    return selected;
}

/// "fig2a.shard-2-of-4".
[[nodiscard]] inline std::string shard_folder_name(std::string_view name, const ShardSpec& shard) {
    return cat(name, ".shard-", std::to_string(shard.index), "-of-", std::to_string(shard.count));
}

/// `args` without "--shard I/N" / "--shard=I/N".
[[nodiscard]] inline std::vector<std::string> without_shard(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--shard") {
            ++i;
            continue;
        }
        if (args[i].rfind("--shard=", 0) == 0) continue;
        out.push_back(args[i]);
    }
    return out;
}

/// The "shard" section of a shard's config.json: program, index, count, arguments, runs
/// (curve, seed, table size of each complete run), plus `more` (raw "name": value text).
[[nodiscard]] inline std::string shard_section(std::string_view program, const ShardSpec& shard,
                                               const std::vector<std::string>& args, const ExperimentResult& r,
                                               const std::string& more = {}) {
    std::string j = cat("{\"program\": ", json_string(program), ", \"index\": ", std::to_string(shard.index),
                        ", \"count\": ", std::to_string(shard.count), ", \"arguments\": [");
    for (std::size_t i = 0; i < args.size(); ++i) j += cat(i ? ", " : "", json_string(args[i]));
    j += "], \"runs\": [";
    bool first = true;
    for (const CurveRuns& c : r.curves)
        for (const SeedRun& run : c.runs) {
            if (!run.complete) continue;
            j += cat(first ? "" : ", ", "{\"curve\": ", json_string(c.curve.label), ", \"seed\": ",
                     std::to_string(run.seed), ", \"table_rows\": ", std::to_string(run.table_rows),
                     ", \"table_bytes\": ", std::to_string(run.table_bytes), "}");
            first = false;
        }
    j += "]";
    if (!more.empty()) j += cat(", ", more);
    return j + "}";
}

inline constexpr std::string_view visits_csv_header = "objective,seed,episodes,mean_true_entropy,state,count";

/// visits.csv of a shard: the heatmap counts (VisitCounts) of every complete run, one row per
/// (run, true state), in job order then state order; the entropy as %.17g (read back exactly).
inline void write_visits_csv(std::FILE* f, const ExperimentResult& r) {
    std::string chunk;
    chunk.append(visits_csv_header).append("\n");
    for (const CurveRuns& c : r.curves)
        for (const SeedRun& run : c.runs) {
            if (!run.complete) continue;
            for (std::size_t k = 0; k < run.visits.counts.size(); ++k) {
                chunk.append(c.curve.label).append(",");
                detail::append_uint(chunk, run.seed);
                chunk.append(",");
                detail::append_uint(chunk, run.visits.episodes);
                chunk.append(",");
                detail::append_g17(chunk, run.visits.mean_entropy);
                chunk.append(",");
                detail::append_uint(chunk, k);
                chunk.append(",");
                detail::append_uint(chunk, run.visits.counts[k]);
                chunk.append("\n");
                detail::flush_chunk(f, chunk);
            }
        }
    detail::flush_chunk(f, chunk, true);
}

/// Writes a shard's folder (runs.csv of its complete runs, config.json with info's extra
/// "shard" section, learning.csv and visits.csv when the study has them) and commits it. A shard with runs but none complete (interrupted at
/// once) writes nothing; a shard with no runs at all (N larger than the study) writes its
/// empty set, so that a merge sees it.
inline WrittenFiles write_shard(OutputFolder& folder, const ExperimentResult& r, const RunInfo& info) {
    WrittenFiles w;
    w.dir = folder.path();
    if (r.complete_runs() == 0 && r.selected_runs() > 0) {
        folder.discard();
        return w;
    }
    const std::filesystem::path& dir = folder.staging();
    write_file_atomically(dir / "runs.csv", [&](std::FILE* f) { write_runs_csv(f, r); });
    if (has_learned_curves(r))
        write_file_atomically(dir / "learning.csv", [&](std::FILE* f) { write_learning_csv(f, r); });
    if (r.settings.heatmap_episodes > 0)
        write_file_atomically(dir / "visits.csv", [&](std::FILE* f) { write_visits_csv(f, r); });
    write_string_atomically(dir / "config.json", config_json(r, info));
    folder.commit();
    w.wrote = true;
    return w;
}

// ---------------------------------------------------------------------------------------
// Reading config.json (the programs' own JSON) and runs.csv back
// ---------------------------------------------------------------------------------------

/// A JSON value; numbers keep their text (so they read back exactly with from_chars).
struct Json {
    enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
    std::string text;  ///< string (unescaped), number (as written), "true"/"false"
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> members;

    [[nodiscard]] const Json* find(std::string_view name) const {
        for (const auto& m : members)
            if (m.first == name) return &m.second;
        return nullptr;
    }
};

namespace detail {
class JsonReader {
public:
    JsonReader(std::string_view text, std::string what) : t_(text), what_(std::move(what)) {}
    Json document() {
        Json v = value();
        space();
        if (p_ != t_.size()) fail("text after the value");
        return v;
    }

private:
    [[noreturn]] void fail(std::string_view why) const {
        throw merge_error(cat(what_, ": not valid JSON (", why, " at byte ", std::to_string(p_), ")"));
    }
    void space() {
        while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
    }
    bool take(char c) {
        space();
        if (p_ < t_.size() && t_[p_] == c) {
            ++p_;
            return true;
        }
        return false;
    }
    std::string string_body() {
        std::string out;
        while (p_ < t_.size() && t_[p_] != '"') {
            char c = t_[p_++];
            if (c != '\\') {
                out += c;
                continue;
            }
            if (p_ >= t_.size()) fail("unterminated string");
            c = t_[p_++];
            switch (c) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {
                    if (p_ + 4 > t_.size()) fail("bad \\u escape");
                    unsigned cp = 0;
                    const auto r = std::from_chars(t_.data() + p_, t_.data() + p_ + 4, cp, 16);
                    if (r.ptr != t_.data() + p_ + 4) fail("bad \\u escape");
                    p_ += 4;
                    if (cp < 0x80) {
                        out += static_cast<char>(cp);
                    } else if (cp < 0x800) {
                        out += static_cast<char>(0xC0 | (cp >> 6));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    } else {
                        out += static_cast<char>(0xE0 | (cp >> 12));
                        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    }
                    break;
                }
                default: out += c;
            }
        }
        if (p_ >= t_.size()) fail("unterminated string");
        ++p_;
        return out;
    }
    Json value() {
        space();
        if (p_ >= t_.size()) fail("unexpected end");
        Json v;
        const char c = t_[p_];
        if (c == '{') {
            ++p_;
            v.kind = Json::Kind::object;
            if (take('}')) return v;
            do {
                if (!take('"')) fail("expected a name");
                std::string name = string_body();
                if (!take(':')) fail("expected ':'");
                v.members.emplace_back(std::move(name), value());
            } while (take(','));
            if (!take('}')) fail("expected '}'");
        } else if (c == '[') {
            ++p_;
            v.kind = Json::Kind::array;
            if (take(']')) return v;
            do v.items.push_back(value());
            while (take(','));
            if (!take(']')) fail("expected ']'");
        } else if (c == '"') {
            ++p_;
            v.kind = Json::Kind::string;
            v.text = string_body();
        } else if (t_.substr(p_, 4) == "true" || t_.substr(p_, 5) == "false") {
            v.kind = Json::Kind::boolean;
            v.text = c == 't' ? "true" : "false";
            p_ += v.text.size();
        } else if (t_.substr(p_, 4) == "null") {
            p_ += 4;
        } else {
            const std::size_t start = p_;
            while (p_ < t_.size() && std::string_view("+-0123456789.eE").find(t_[p_]) != std::string_view::npos) ++p_;
            if (p_ == start) fail("unexpected character");
            v.kind = Json::Kind::number;
            v.text = std::string(t_.substr(start, p_ - start));
        }
        return v;
    }

    std::string_view t_;
    std::string what_;
    std::size_t p_ = 0;
};
}  // namespace detail

[[nodiscard]] inline Json parse_json(std::string_view text, const std::string& what) {
    return detail::JsonReader(text, what).document();
}

[[nodiscard]] inline std::string read_text_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw merge_error(cat("cannot read '", p.string(), "'"));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The N comma-separated fields of a CSV line (the last one takes the rest of the line);
/// `bad(why)` is called (and must throw) when there are fewer.
template <std::size_t N, class Bad>
[[nodiscard]] std::array<std::string_view, N> split_fields(std::string_view line, Bad& bad) {
    std::array<std::string_view, N> parts;
    std::size_t start = 0;
    for (std::size_t f = 0; f < N; ++f) {
        const std::size_t comma = f + 1 < N ? line.find(',', start) : line.size();
        if (comma == std::string_view::npos) bad(cat("fewer than ", std::to_string(N), " columns"));
        parts[f] = line.substr(start, comma - start);
        start = comma + 1;
    }
    return parts;
}

/// The runs of a runs.csv: consecutive rows of one (curve, seed), iterations 0, 1, ...
struct CsvRun {
    std::string label;
    std::uint64_t seed = 0;
    std::vector<IterationRecord> records;
};

/// Reads a CSV file the programs wrote: checks its first line against `header`, splits every
/// other line into N fields and calls row(fields, number, bad), where number(text, x) parses
/// x or fails and bad(why) throws merge_error naming the file and line. Returns the number
/// of lines read.
template <std::size_t N, class Row>
std::size_t read_csv_rows(const std::filesystem::path& p, std::string_view header, Row row) {
    const std::string text = read_text_file(p);
    std::size_t pos = 0, line_no = 0;
    auto bad = [&](std::string_view why) {
        throw merge_error(cat("'", p.string(), "' line ", std::to_string(line_no), ": ", why));
    };
    auto number = [&](std::string_view x, auto& v) {
        const auto res = std::from_chars(x.data(), x.data() + x.size(), v);
        if (res.ec != std::errc() || res.ptr != x.data() + x.size()) bad(cat("bad number '", x, "'"));
    };
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        const std::string_view line(text.data() + pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (line_no == 1) {
            if (line != header) bad(cat("not the ", p.filename().string(), " header"));
            continue;
        }
        row(split_fields<N>(line, bad), number, bad);
    }
    return line_no;
}

[[nodiscard]] inline std::vector<CsvRun> read_runs_csv(const std::filesystem::path& p) {
    std::vector<CsvRun> out;
    // label,seed,iteration,a,b,c: the label has no comma (curve labels never do).
    const std::size_t lines = read_csv_rows<6>(p, runs_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, k = 0;
        IterationRecord r;
        num(parts[1], seed);
        num(parts[2], k);
        num(parts[3], r.true_entropy);
        num(parts[4], r.feedback);
        num(parts[5], r.belief_entropy_sum);
        if (out.empty() || out.back().label != parts[0] || out.back().seed != seed) {
            if (k != 0) bad("a run that does not start at iteration 0");
            out.push_back({std::string(parts[0]), seed, {}});
        }
        if (k != out.back().records.size()) bad("iterations out of order");
        out.back().records.push_back(r);
    });
    if (lines == 0) throw merge_error(cat("'", p.string(), "' is empty"));
    return out;
}

/// The fits of a learning.csv (output.hpp), per (curve label, seed): the fits in order and
/// the true model's held-out log-likelihood.
using CsvFits = std::map<std::pair<std::string, std::uint64_t>, std::pair<std::vector<FitRecord>, double>>;

[[nodiscard]] inline CsvFits read_learning_csv(const std::filesystem::path& p) {
    CsvFits out;
    (void)read_csv_rows<10>(p, learning_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, index = 0, converged = 0;
        FitRecord r;
        double truth = 0.0;
        num(parts[1], seed);
        num(parts[2], index);
        num(parts[3], r.iteration);
        num(parts[4], r.episodes);
        num(parts[5], r.em_iterations);
        num(parts[6], converged);
        num(parts[7], r.train_log_likelihood);
        num(parts[8], r.heldout_log_likelihood);
        num(parts[9], truth);
        r.converged = converged != 0;
        auto& entry = out[{std::string(parts[0]), seed}];
        if (index != entry.first.size()) bad("fits out of order");
        entry.first.push_back(r);
        entry.second = truth;
    });
    return out;
}

/// The heatmap counts of a visits.csv, per (curve label, seed).
using CsvVisits = std::map<std::pair<std::string, std::uint64_t>, VisitCounts>;

[[nodiscard]] inline CsvVisits read_visits_csv(const std::filesystem::path& p) {
    CsvVisits out;
    (void)read_csv_rows<6>(p, visits_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, state = 0, count = 0;
        VisitCounts row;
        num(parts[1], seed);
        num(parts[2], row.episodes);
        num(parts[3], row.mean_entropy);
        num(parts[4], state);
        num(parts[5], count);
        VisitCounts& v = out[{std::string(parts[0]), seed}];
        if (state != v.counts.size()) bad("states out of order");
        if (state == 0) {
            v.episodes = row.episodes;
            v.mean_entropy = row.mean_entropy;
        } else if (row.episodes != v.episodes || row.mean_entropy != v.mean_entropy) {
            bad("episodes or entropy differ within one run");
        }
        v.counts.push_back(count);
    });
    return out;
}

// ---------------------------------------------------------------------------------------
// The merge
// ---------------------------------------------------------------------------------------

/// One shard folder as read.
struct ShardFolder {
    std::filesystem::path dir;
    Json config;
    ShardSpec spec;
    std::vector<std::string> arguments;  ///< the shard's arguments after the program name
    Fields build;
    std::size_t threads = 1;
    std::vector<CsvRun> runs;  ///< runs.csv
    /// Per run of runs.csv: table rows and bytes, from config.json's shard section.
    std::vector<std::pair<std::size_t, std::size_t>> tables;
    CsvFits fits;  ///< learning.csv, when the study has learned-belief curves
    CsvVisits visits;  ///< visits.csv, when the study counts heatmap visits
    bool has_visits = false;  ///< visits.csv exists
};

[[nodiscard]] inline std::uint64_t json_uint(const Json* v, const std::string& what) {
    std::uint64_t x = 0;
    if (v == nullptr || v->kind != Json::Kind::number) throw merge_error(cat(what, ": missing or not a number"));
    const auto r = std::from_chars(v->text.data(), v->text.data() + v->text.size(), x);
    if (r.ec != std::errc() || r.ptr != v->text.data() + v->text.size())
        throw merge_error(cat(what, ": not an unsigned integer"));
    return x;
}

/// Reads a shard folder written by `program`. Throws merge_error saying what is wrong.
[[nodiscard]] inline ShardFolder read_shard_folder(const std::filesystem::path& dir, std::string_view program) {
    ShardFolder s;
    s.dir = dir;
    const std::filesystem::path cfg = dir / "config.json";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(cfg, ec))
        throw merge_error(cat("'", dir.string(), "' is not a shard folder: it has no config.json"));
    s.config = parse_json(read_text_file(cfg), cfg.string());
    const Json* shard = s.config.find("shard");
    if (shard == nullptr)
        throw merge_error(cat("'", dir.string(), "' is not a shard folder (its config.json has no \"shard\" "
                              "section: it is the output of a whole study; shards are written by --shard I/N)"));
    const Json* prog = shard->find("program");
    if (prog == nullptr || prog->text != program)
        throw merge_error(cat("'", dir.string(), "' is a shard of ", prog ? prog->text : std::string("another program"),
                              ", not of ", program));
    const std::string what = cat(cfg.string(), ": shard");
    s.spec.index = static_cast<std::size_t>(json_uint(shard->find("index"), what + ".index"));
    s.spec.count = static_cast<std::size_t>(json_uint(shard->find("count"), what + ".count"));
    const Json* args = shard->find("arguments");
    if (args == nullptr || args->kind != Json::Kind::array) throw merge_error(cat(what, ".arguments: missing"));
    for (const Json& a : args->items) s.arguments.push_back(a.text);
    if (const Json* b = s.config.find("build"))
        for (const auto& m : b->members) s.build.emplace_back(m.first, m.second.text);
    s.threads = static_cast<std::size_t>(json_uint(s.config.find("threads"), cfg.string() + ": threads"));
    s.runs = read_runs_csv(dir / "runs.csv");
    if (std::filesystem::is_regular_file(dir / "learning.csv", ec)) s.fits = read_learning_csv(dir / "learning.csv");
    s.has_visits = std::filesystem::is_regular_file(dir / "visits.csv", ec);
    if (s.has_visits) s.visits = read_visits_csv(dir / "visits.csv");
    const Json* runs = shard->find("runs");
    if (runs == nullptr || runs->kind != Json::Kind::array || runs->items.size() != s.runs.size())
        throw merge_error(cat("'", dir.string(), "': config.json lists ", runs ? std::to_string(runs->items.size()) : "no",
                              " runs but runs.csv holds ", std::to_string(s.runs.size())));
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
        const Json& r = runs->items[i];
        const Json* curve = r.find("curve");
        if (curve == nullptr || curve->text != s.runs[i].label ||
            json_uint(r.find("seed"), what + ".runs.seed") != s.runs[i].seed)
            throw merge_error(cat("'", dir.string(), "': config.json and runs.csv list different runs"));
        s.tables.emplace_back(static_cast<std::size_t>(json_uint(r.find("table_rows"), what + ".runs.table_rows")),
                              static_cast<std::size_t>(json_uint(r.find("table_bytes"), what + ".runs.table_bytes")));
    }
    return s;
}

/// "shards/fig2a.shard-1-of-4 (shard 1/4)".
[[nodiscard]] inline std::string shard_name(const ShardFolder& s) {
    return cat("'", s.dir.string(), "' (shard ", std::to_string(s.spec.index), "/", std::to_string(s.spec.count), ")");
}

/// Refuses two field lists that differ, naming the first field that does: `kind` says what
/// they are ("settings", "build").
inline void require_same_fields(const Fields& a, const std::string& a_name, const Fields& b, const std::string& b_name,
                                std::string_view headline, std::string_view advice) {
    std::map<std::string, std::string> bm(b.begin(), b.end());
    std::map<std::string, std::string> am(a.begin(), a.end());
    std::vector<std::string> names;
    for (const auto& f : a) names.push_back(f.first);
    for (const auto& f : b)
        if (!am.count(f.first)) names.push_back(f.first);
    for (const std::string& n : names) {
        const auto ia = am.find(n);
        const auto ib = bm.find(n);
        const std::string va = ia == am.end() ? std::string("(absent)") : json_string(ia->second);
        const std::string vb = ib == bm.end() ? std::string("(absent)") : json_string(ib->second);
        if (va != vb)
            throw merge_error(cat(headline, ": '", n, "' is ", va, " in ", a_name, " but ", vb, " in ", b_name, advice));
    }
}

/// Refuses shards of different builds, or of a build other than this program's.
inline void check_builds(const std::vector<ShardFolder>& shards, std::string_view program) {
    const std::string headline = "the shards come from builds whose floating-point results could differ";
    for (std::size_t i = 1; i < shards.size(); ++i)
        require_same_fields(shards[0].build, shard_name(shards[0]), shards[i].build, shard_name(shards[i]), headline,
                            "; rerun the shards of one build");
    require_same_fields(shards[0].build, shard_name(shards[0]), build_fingerprint(), cat("this ", program), headline,
                        cat("; merge with the ", program, " that ran the shards"));
}

/// Refuses shards whose settings (study fields, one list per shard) differ.
inline void check_studies(const std::vector<ShardFolder>& shards, const std::vector<Fields>& studies) {
    for (std::size_t i = 1; i < shards.size(); ++i)
        require_same_fields(studies[0], shard_name(shards[0]), studies[i], shard_name(shards[i]),
                            "the shards are not of one study (their settings differ)",
                            "; merge shards run with the same settings");
}

/// Puts the shards' runs in place in `r` (whose curves and settings are the study's):
/// refuses a run found twice (listing every overlap) and runs missing (listing them, with
/// the slices that hold them when all shards have the same N).
inline void place_runs(const std::vector<ShardFolder>& shards, ExperimentResult& r) {
    const std::size_t seeds = r.settings.seeds.size();
    std::map<std::pair<std::string, std::uint64_t>, std::pair<std::size_t, std::size_t>> index;  // -> (curve, seed index)
    for (std::size_t c = 0; c < r.curves.size(); ++c)
        for (std::size_t i = 0; i < seeds; ++i) index[{r.curves[c].curve.label, r.settings.seeds[i]}] = {c, i};
    std::vector<std::vector<const ShardFolder*>> owner(r.curves.size(), std::vector<const ShardFolder*>(seeds));
    std::string overlaps;
    std::size_t overlap_count = 0;
    for (const ShardFolder& s : shards)
        for (std::size_t k = 0; k < s.runs.size(); ++k) {
            const CsvRun& run = s.runs[k];
            const auto it = index.find({run.label, run.seed});
            if (it == index.end())
                throw merge_error(cat(shard_name(s), " holds run (", run.label, ", seed ", std::to_string(run.seed),
                                      "), which is not a run of the study"));
            const auto [c, i] = it->second;
            if (run.records.size() != r.settings.iterations)
                throw merge_error(cat(shard_name(s), ": run (", run.label, ", seed ", std::to_string(run.seed), ") has ",
                                      std::to_string(run.records.size()), " iterations, not ",
                                      std::to_string(r.settings.iterations)));
            if (owner[c][i] != nullptr) {
                if (overlap_count < 10)
                    overlaps += cat(overlaps.empty() ? "" : "; ", "(", run.label, ", seed ", std::to_string(run.seed),
                                    ") is in ", shard_name(*owner[c][i]), " and ", shard_name(s));
                ++overlap_count;
                continue;
            }
            owner[c][i] = &s;
            SeedRun& out = r.curves[c].runs[i];
            out.seed = run.seed;
            out.records = run.records;
            out.complete = true;
            out.table_rows = s.tables[k].first;
            out.table_bytes = s.tables[k].second;
            if (r.curves[c].curve.learned) {
                const auto f = s.fits.find({run.label, run.seed});
                if (f == s.fits.end())
                    throw merge_error(cat(shard_name(s), ": run (", run.label, ", seed ", std::to_string(run.seed),
                                          ") learns its belief model but the shard's learning.csv has no fit of it"));
                out.fits = f->second.first;
                out.truth_heldout = f->second.second;
            }
            if (r.settings.heatmap_episodes > 0) {
                // Shards without counts (of a maxent-paper before heatmaps, or a file removed)
                // are refused: the merge must write what one process would have written.
                const std::string file = (s.dir / "visits.csv").string();
                if (!s.has_visits)
                    throw merge_error(cat(shard_name(s), ": no '", file, "': the study counts the final policies' "
                                          "visits (--heatmap-episodes ", std::to_string(r.settings.heatmap_episodes),
                                          ") but this shard holds none (written by a maxent-paper without heatmaps?); "
                                          "rerun the shard with this maxent-paper"));
                const auto v = s.visits.find({run.label, run.seed});
                if (v == s.visits.end() || v->second.episodes != r.settings.heatmap_episodes)
                    throw merge_error(cat(shard_name(s), ": '", file, "' has no visit counts of run (", run.label,
                                          ", seed ", std::to_string(run.seed), ") over ",
                                          std::to_string(r.settings.heatmap_episodes), " episodes"));
                out.visits = v->second;
            }
        }
    if (overlap_count > 0)
        throw merge_error(cat("the shards overlap: ", std::to_string(overlap_count), " run(s) are in more than one: ",
                              overlaps, overlap_count > 10 ? "; ..." : "", "; give each run once"));
    bool same_count = true;
    for (const ShardFolder& s : shards) same_count = same_count && s.spec.count == shards[0].spec.count;
    std::vector<Curve> curves;
    for (const CurveRuns& c : r.curves) curves.push_back(c.curve);
    std::vector<std::size_t> slice;
    if (same_count) {
        std::vector<std::uint64_t> costs;
        for (const Curve& c : curves)
            for (std::size_t i = 0; i < seeds; ++i) costs.push_back(run_cost(c));
        slice = assign_shards(costs, shards[0].spec.count);
    }
    std::string missing;
    std::set<std::size_t> slices;
    std::size_t missing_count = 0;
    for (std::size_t c = 0; c < r.curves.size(); ++c) {
        std::string list;
        for (std::size_t i = 0; i < seeds; ++i)
            if (owner[c][i] == nullptr) {
                list += cat(list.empty() ? "" : ",", std::to_string(r.settings.seeds[i]));
                ++missing_count;
                if (same_count) slices.insert(slice[c * seeds + i] + 1);
            }
        if (!list.empty())
            missing += cat(missing.empty() ? "" : "; ", r.curves[c].curve.label, " seed", list.find(',') == std::string::npos ? " " : "s ", list);
    }
    if (missing_count > 0) {
        std::string which;
        for (const std::size_t s : slices)
            which += cat(which.empty() ? "" : ", ", "--shard ", std::to_string(s), "/", std::to_string(shards[0].spec.count));
        throw merge_error(cat("runs missing: ", std::to_string(missing_count), " of ", std::to_string(r.total_runs()),
                              " runs are in none of the shards: ", missing,
                              which.empty() ? std::string("") : cat(" (", which, ")"),
                              "; run them (a rerun reuses its finished runs) and merge again"));
    }
}

/// The shards ordered by (N, I), so the first one gives the merged invocation fields.
inline void sort_shards(std::vector<ShardFolder>& shards) {
    std::stable_sort(shards.begin(), shards.end(), [](const ShardFolder& a, const ShardFolder& b) {
        return std::pair(a.spec.count, a.spec.index) < std::pair(b.spec.count, b.spec.index);
    });
}

/// `PROGRAM merge` arguments: shard folders, --out, --no-plot.
struct MergeOptions {
    std::vector<std::string> shards;
    std::string out = "out";
    bool plot = true;
    bool help = false;
};

[[nodiscard]] inline MergeOptions parse_merge_command_line(const std::vector<std::string>& args) {
    MergeOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--out" || a.rfind("--out=", 0) == 0) {
            std::string v;
            if (a == "--out") {
                if (i + 1 >= args.size()) throw usage_error("--out: missing value");
                v = args[++i];
            } else {
                v = a.substr(6);
            }
            o.out = detail::out_directory("--out", v);
        } else if (a == "--no-plot") {
            o.plot = false;
        } else if (a == "--quiet") {
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (!a.empty() && a[0] == '-') {
            throw usage_error(cat("merge: unknown option '", a, "'"));
        } else {
            o.shards.push_back(a);
        }
    }
    if (!o.help && o.shards.empty()) throw usage_error("merge: no shard folders given (e.g. merge out/fig2a.shard-* --out out)");
    return o;
}

}  // namespace maxent::programs
