// runtime/merge.hpp — a study's shards put back together exactly.
// `PROGRAM merge SHARD_DIR... --out DIR` reads any set of shard folders (shards.hpp), groups
// them by experiment (or model), and for each group rebuilds the result the single process
// would have had and writes it with the same code (output.hpp), so every file is the same
// bytes (the learned models copied from the shards' learned/, each read as a POMDP file
// first: one missing or unreadable is refused, naming the file and the run; the heatmaps from
// their visits.csv: a shard without it in a study that counts visits is refused, naming the
// file). Every file read must have the digest the shard's config.json lists for it (not
// changed, nor copied from a shard of other settings). config.json's "threads" and "command_line" are those of
// the shards (the lowest I/N) with --shard removed. It refuses, naming the difference: shards
// whose settings differ (study fields), whose builds differ (fingerprint.hpp; also from the
// merging program's own), that hold the same run twice, or that leave runs missing (listed,
// with the --shard slices that hold them). Shards that ran on different numbers of threads
// merge (results do not depend on it), with a note saying so.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "maxent/core/error.hpp"

#include "cli.hpp"
#include "experiments.hpp"
#include "files.hpp"
#include "fingerprint.hpp"
#include "json.hpp"
#include "output.hpp"
#include "results.hpp"
#include "run_store.hpp"
#include "settings.hpp"
#include "shards.hpp"
#include "text.hpp"

namespace maxent::programs {

/// A merge that cannot be done; the message names the shards and the difference.
class merge_error : public maxent::error {
public:
    using maxent::error::error;
};

/// A shard's file: a regular file of bounded size (files.hpp read_regular_file).
[[nodiscard]] inline std::string read_text_file(const std::filesystem::path& p) { return read_regular_file(p); }

// ---------------------------------------------------------------------------------------
// What a shard's files may hold: a tampered or corrupt file is refused, naming file:line
// ---------------------------------------------------------------------------------------

// The bounds are those of a kept run (run_store.hpp): max_run_value, max_run_log_likelihood,
// max_kept_heatmap_episodes, max_kept_run_visits, max_kept_table_size.

/// Refuses `x` (read from `text` in column `column`) unless finite and in [lo, hi]: calls bad.
template <class Bad>
void check_shard_value(double x, std::string_view text, double lo, double hi, std::string_view column, Bad& bad) {
    if (!std::isfinite(x) || x < lo || x > hi)
        bad(cat(column, " is '", text, "', not a finite number in [", format_number(lo), ", ", format_number(hi), "]"));
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

/// Reads a CSV file the programs wrote (`text`, the bytes of `p`): checks its first line against `header`, splits every
/// other line into N fields and calls row(fields, number, bad), where number(text, x) parses
/// x or fails and bad(why) throws merge_error naming the file and line. Returns the number
/// of lines read.
template <std::size_t N, class Row>
std::size_t read_csv_rows(const std::filesystem::path& p, const std::string& text, std::string_view header, Row row) {
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
            if (line.substr(0, 3) == "\xEF\xBB\xBF")
                bad("a UTF-8 byte-order mark (bytes EF BB BF) before the header; the programs write none: remove it");
            if (line != header) bad(cat("not the ", p.filename().string(), " header"));
            continue;
        }
        row(split_fields<N>(line, bad), number, bad);
    }
    return line_no;
}

[[nodiscard]] inline std::vector<CsvRun> read_runs_csv(const std::filesystem::path& p, const std::string& text) {
    std::vector<CsvRun> out;
    // label,seed,iteration,a,b,c: the label has no comma (curve labels never do).
    const std::size_t lines = read_csv_rows<6>(p, text, runs_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, k = 0;
        IterationRecord r;
        num(parts[1], seed);
        num(parts[2], k);
        num(parts[3], r.true_entropy);
        num(parts[4], r.feedback);
        num(parts[5], r.belief_entropy_sum);
        auto bad_run = [&](std::string_view why) {
            bad(cat("run (", parts[0], ", seed ", parts[1], ") iteration ", parts[2], ": ", why));
        };
        check_shard_value(r.true_entropy, parts[3], 0.0, max_run_value, "the true-state entropy", bad_run);
        check_shard_value(r.feedback, parts[4], -max_run_value, max_run_value, "the feedback", bad_run);
        check_shard_value(r.belief_entropy_sum, parts[5], 0.0, max_run_value, "the belief entropy sum", bad_run);
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
[[nodiscard]] inline std::vector<CsvRun> read_runs_csv(const std::filesystem::path& p) {
    return read_runs_csv(p, read_text_file(p));
}

/// The fits of a learning.csv (output.hpp), per (curve label, seed): the fits in order and
/// the true model's held-out log-likelihood.
using CsvFits = std::map<std::pair<std::string, std::uint64_t>, std::pair<std::vector<FitRecord>, double>>;

[[nodiscard]] inline CsvFits read_learning_csv(const std::filesystem::path& p, const std::string& text) {
    CsvFits out;
    (void)read_csv_rows<10>(p, text, learning_csv_header, [&](const auto& parts, auto& num, auto& bad) {
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
        auto bad_fit = [&](std::string_view why) {
            bad(cat("run (", parts[0], ", seed ", parts[1], ") fit ", parts[2], ": ", why));
        };
        if (converged > 1) bad_fit(cat("converged is '", parts[6], "', not 0 or 1"));
        check_shard_value(r.train_log_likelihood, parts[7], -max_run_log_likelihood, max_run_log_likelihood,
                          "the training log-likelihood", bad_fit);
        // Held-out values are nan when the study has no held-out episodes.
        if (!std::isnan(r.heldout_log_likelihood))
            check_shard_value(r.heldout_log_likelihood, parts[8], -max_run_log_likelihood, max_run_log_likelihood,
                              "the held-out log-likelihood", bad_fit);
        if (!std::isnan(truth))
            check_shard_value(truth, parts[9], -max_run_log_likelihood, max_run_log_likelihood,
                              "the true model's held-out log-likelihood", bad_fit);
        r.converged = converged != 0;
        auto& entry = out[{std::string(parts[0]), seed}];
        if (index != entry.first.size()) bad("fits out of order");
        entry.first.push_back(r);
        entry.second = truth;
    });
    return out;
}
[[nodiscard]] inline CsvFits read_learning_csv(const std::filesystem::path& p) {
    return read_learning_csv(p, read_text_file(p));
}

/// The heatmap counts of a visits.csv, per (curve label, seed).
using CsvVisits = std::map<std::pair<std::string, std::uint64_t>, VisitCounts>;

[[nodiscard]] inline CsvVisits read_visits_csv(const std::filesystem::path& p, const std::string& text) {
    CsvVisits out;
    std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> totals;  // counted steps per run so far
    (void)read_csv_rows<6>(p, text, visits_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, state = 0, count = 0;
        VisitCounts row;
        num(parts[1], seed);
        num(parts[2], row.episodes);
        num(parts[3], row.mean_entropy);
        num(parts[4], state);
        num(parts[5], count);
        auto bad_run = [&](std::string_view why) {
            bad(cat("run (", parts[0], ", seed ", parts[1], ") state ", parts[4], ": ", why));
        };
        if (row.episodes == 0 || row.episodes > max_kept_heatmap_episodes)
            bad_run(cat("episodes is '", parts[2], "', not in [1, ", std::to_string(max_kept_heatmap_episodes), "]"));
        check_shard_value(row.mean_entropy, parts[3], 0.0, max_run_value, "the mean true-state entropy", bad_run);
        VisitCounts& v = out[{std::string(parts[0]), seed}];
        if (state != v.counts.size()) bad("states out of order");
        std::uint64_t& total = totals[{std::string(parts[0]), seed}];
        if (count > max_kept_run_visits - total)
            bad_run(cat("count '", parts[5], "' makes the run's visits more than ", std::to_string(max_kept_run_visits)));
        total += count;
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
[[nodiscard]] inline CsvVisits read_visits_csv(const std::filesystem::path& p) {
    return read_visits_csv(p, read_text_file(p));
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
    /// config.json's shard.files: the digest (hex64 of fnv1a64) of every file the shard wrote.
    std::map<std::string, std::string> files;
    /// The digests of runs.csv, learning.csv and visits.csv as read.
    std::map<std::string, std::string> read_digests;
};

/// A JSON unsigned integer of at most `max`; throws merge_error naming `what` and the value.
[[nodiscard]] inline std::uint64_t json_uint(const Json* v, const std::string& what,
                                             std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    std::uint64_t x = 0;
    if (v == nullptr || v->kind != Json::Kind::number) throw merge_error(cat(what, ": missing or not a number"));
    const auto r = std::from_chars(v->text.data(), v->text.data() + v->text.size(), x);
    if (r.ec != std::errc() || r.ptr != v->text.data() + v->text.size())
        throw merge_error(cat(what, ": '", v->text, "' is not an unsigned integer of 64 bits"));
    if (x > max) throw merge_error(cat(what, ": ", v->text, " is larger than ", std::to_string(max)));
    return x;
}

/// Reads a shard folder written by `program`. Throws merge_error saying what is wrong.
[[nodiscard]] inline ShardFolder read_shard_folder(const std::filesystem::path& dir, std::string_view program) {
    ShardFolder s;
    s.dir = dir;
    const std::filesystem::path cfg = dir / "config.json";
    std::error_code ec;
    // Present means present as anything (a FIFO or a link to a device is refused when read).
    const auto present = [&](const std::filesystem::path& f) {
        return std::filesystem::symlink_status(f, ec).type() != std::filesystem::file_type::not_found;
    };
    if (!present(cfg)) throw merge_error(cat("'", dir.string(), "' is not a shard folder: it has no config.json"));
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
    s.spec.index = static_cast<std::size_t>(json_uint(shard->find("index"), what + ".index", max_shard_count));
    s.spec.count = static_cast<std::size_t>(json_uint(shard->find("count"), what + ".count", max_shard_count));
    if (s.spec.count == 0) throw merge_error(cat(what, ".count: 0 is not a number of shards (N >= 1)"));
    if (s.spec.index < 1 || s.spec.index > s.spec.count)
        throw merge_error(cat(what, ".index: ", std::to_string(s.spec.index), " is not in 1..",
                              std::to_string(s.spec.count), " (a shard I/N has 1 <= I <= N)"));
    const Json* args = shard->find("arguments");
    if (args == nullptr || args->kind != Json::Kind::array) throw merge_error(cat(what, ".arguments: missing"));
    for (const Json& a : args->items) s.arguments.push_back(a.text);
    if (const Json* b = s.config.find("build"))
        for (const auto& m : b->members) s.build.emplace_back(m.first, m.second.text);
    s.threads = static_cast<std::size_t>(json_uint(s.config.find("threads"), cfg.string() + ": threads", max_threads));
    if (s.threads == 0) throw merge_error(cat(cfg.string(), ": threads: 0 is not a thread count"));
    if (const Json* files = shard->find("files"); files != nullptr && files->kind == Json::Kind::object)
        for (const JsonMember& m : files->members) s.files[m.first] = m.second.text;
    auto read = [&](const char* name) {
        std::string text = read_text_file(dir / name);
        s.read_digests[name] = hex64(fnv1a64(text));
        return text;
    };
    s.runs = read_runs_csv(dir / "runs.csv", read("runs.csv"));
    if (present(dir / "learning.csv")) s.fits = read_learning_csv(dir / "learning.csv", read("learning.csv"));
    s.has_visits = present(dir / "visits.csv");
    if (s.has_visits) s.visits = read_visits_csv(dir / "visits.csv", read("visits.csv"));
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
        s.tables.emplace_back(
            static_cast<std::size_t>(json_uint(r.find("table_rows"), what + ".runs.table_rows", max_kept_table_size)),
            static_cast<std::size_t>(json_uint(r.find("table_bytes"), what + ".runs.table_bytes", max_kept_table_size)));
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
                // The final learned model: there when config.json lists it (absent where the
                // format cannot hold the model), and read as a POMDP file before it is copied.
                const std::string name = learned_model_file(run.label, run.seed);
                const std::filesystem::path model = s.dir / name;
                const std::string which = cat("the learned model of run (", run.label, ", seed ", std::to_string(run.seed), ")");
                std::error_code absent;
                const bool present =
                    std::filesystem::symlink_status(model, absent).type() != std::filesystem::file_type::not_found;
                const auto listed = s.files.find(name);
                if (listed == s.files.end()) {
                    if (present)
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is not among the files its config.json lists"));
                } else {
                    if (!present)
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is missing; copy it back from where the shard ran, or rerun the shard"));
                    out.learned_model = read_text_file(model);
                    try {
                        check_learned_model_text(out.learned_model, model.string());
                    } catch (const maxent::error& e) {
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is not a POMDP file: ", e.what()));
                    }
                    if (hex64(fnv1a64(out.learned_model)) != listed->second)
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is not the file the shard wrote (its config.json has another digest)"));
                }
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
    // The files are those written with the settings of config.json (a runs.csv of other
    // settings under a copied config.json, or a file changed afterwards, has another digest).
    for (const ShardFolder& s : shards)
        for (const auto& [name, digest] : s.read_digests) {
            const auto listed = s.files.find(name);
            if (listed == s.files.end() || listed->second != digest)
                throw merge_error(cat(shard_name(s), ": '", (s.dir / name).string(), "' is not the file the shard "
                                      "wrote with the settings of its config.json (",
                                      listed == s.files.end() ? std::string("config.json lists no such file")
                                                              : cat("digest ", digest, ", config.json says ", listed->second),
                                      "): was it changed, or config.json copied from another shard? Rerun the shard"));
        }
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
    bool out_given = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--out" || a.rfind("--out=", 0) == 0) {
            if (out_given) throw usage_error(cat("merge: --out given twice ('", o.out, "', then another); give it once"));
            out_given = true;
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

/// Seeds as "a,b,c".
[[nodiscard]] inline std::string seed_list(const std::vector<std::uint64_t>& seeds) {
    std::string out;
    for (std::size_t i = 0; i < seeds.size(); ++i) out += cat(i ? "," : "", std::to_string(seeds[i]));
    return out;
}

/// The study fields every program's shards share (what must be equal for shards to be
/// merged, besides the program's own): the curves' labels, then Algorithm 1's settings.
[[nodiscard]] inline Fields study_settings_fields(const std::vector<Curve>& curves, const Settings& s) {
    std::string labels;
    for (const Curve& c : curves) labels += cat(labels.empty() ? "" : ",", c.label);
    return {{"curves", labels},
            {"seeds", seed_list(s.seeds)},
            {"iterations", std::to_string(s.iterations)},
            {"batch", std::to_string(s.batch)},
            {"alpha", format_number(s.effective_alpha())},
            {"rho", format_number(s.rho)},
            {"estimator", std::string(name_of(s.estimator))},
            {"step", std::string(name_of(s.step))},
            {"counting", std::string(name_of(s.counting))}};
}

/// The shards of one study in a merge, and what the program assembles from them (`Data`).
template <class O, class Data>
struct MergeGroup {
    std::string key;                  ///< the study, as the program's key(shard) names it
    std::vector<ShardFolder> shards;  ///< ordered by sort_shards
    std::vector<O> options;           ///< each shard's command line (without --shard), parsed
    RunInfo info;                     ///< config.json's fields of the merged folder
    Data data{};
};

/// `<program> merge SHARD_DIR... --out DIR`: the steps every program's merge shares. Parses
/// the merge's command line (`help()` for --help); reads the shard folders and groups them by
/// study, `key(shard)` (throws merge_error when a shard names none); per group, in order:
/// sort_shards, each shard's arguments parsed by `parse(arguments)` (a usage_error there is a
/// merge_error naming the shard), `study(options, shard, group key)` of every shard equal
/// (check_studies) and the builds equal (check_builds), the RunInfo of the merged folder
/// (`version`, this build, the first shard's threads and command line), then `assemble(group)`
/// builds the program's data. Only then `write(group, merge options)` writes each group's
/// folder and says so; it returns false when a plot failed. Exit status: 2 a bad command
/// line; 1 a refused merge ("<program>: merge: <why>", nothing written), a failed write
/// ("merge: error: <why>") or a failed plot; else 0.
template <class O, class Data, class Help, class Key, class Parse, class Study, class Assemble, class Write>
[[nodiscard]] int merge_command(std::string_view program, std::string_view version, const std::vector<std::string>& args,
                                Help&& help, Key&& key, Parse&& parse, Study&& study, Assemble&& assemble,
                                Write&& write) {
    const std::string name(program);
    MergeOptions options;
    if (const auto done = parse_or_exit(program, version, options, [&] { return parse_merge_command_line(args); }, help))
        return *done;
    std::vector<MergeGroup<O, Data>> groups;
    try {
        for (const std::string& dir : options.shards) {
            ShardFolder s = read_shard_folder(dir, program);
            const std::string k = key(s);
            MergeGroup<O, Data>* g = nullptr;
            for (MergeGroup<O, Data>& x : groups)
                if (x.key == k) g = &x;
            if (g == nullptr) {
                groups.emplace_back();
                g = &groups.back();
                g->key = k;
            }
            g->shards.push_back(std::move(s));
        }
        for (MergeGroup<O, Data>& g : groups) {
            sort_shards(g.shards);
            std::vector<Fields> studies;
            for (const ShardFolder& s : g.shards) {
                O o;
                try {
                    o = parse(without_shard(s.arguments));
                } catch (const usage_error& e) {
                    throw merge_error(cat(shard_name(s), ": its arguments do not parse: ", e.what()));
                }
                studies.push_back(study(o, s, g.key));
                g.options.push_back(std::move(o));
            }
            check_studies(g.shards, studies);
            check_builds(g.shards, program);
            const ShardFolder& first = g.shards.front();
            g.info.version = std::string(version);
            g.info.build = fields_json(build_fingerprint());
            g.info.threads = first.threads;
            // Results do not depend on the thread count, so shards that differ in it merge;
            // the merged config.json records the first shard's, and this says so.
            std::string counts;
            bool differ = false;
            for (const ShardFolder& s : g.shards) {
                counts += cat(counts.empty() ? "" : ", ", std::to_string(s.spec.index), "/", std::to_string(s.spec.count),
                              ": ", std::to_string(s.threads));
                differ = differ || s.threads != first.threads;
            }
            if (differ)
                std::printf("%s: note: the shards ran on different numbers of threads (%s); results do not depend "
                            "on it, and config.json records the first shard's %zu\n",
                            g.key.c_str(), counts.c_str(), first.threads);
            g.info.command_line = name;
            for (const std::string& a : without_shard(first.arguments)) g.info.command_line += cat(" ", a);
            assemble(g);
        }
    } catch (const maxent::error& e) {
        std::fprintf(stderr, "%s: merge: %s\n", name.c_str(), e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: merge: error: out of memory (std::bad_alloc) while reading the shards\n", name.c_str());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: merge: error: %s\n", name.c_str(), e.what());
        return 1;
    }
    bool plot_failed = false;
    try {
        for (MergeGroup<O, Data>& g : groups)
            if (!write(g, options)) plot_failed = true;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "%s: merge: error: %s\n", name.c_str(), ex.what());
        return 1;
    }
    return plot_failed ? 1 : 0;
}

}  // namespace maxent::programs
