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

[[nodiscard]] std::vector<CsvRun> read_runs_csv(const std::filesystem::path& p, const std::string& text);
[[nodiscard]] inline std::vector<CsvRun> read_runs_csv(const std::filesystem::path& p) {
    return read_runs_csv(p, read_text_file(p));
}

/// The fits of a learning.csv (output.hpp), per (curve label, seed): the fits in order and
/// the true model's held-out log-likelihood.
using CsvFits = std::map<std::pair<std::string, std::uint64_t>, std::pair<std::vector<FitRecord>, double>>;

[[nodiscard]] CsvFits read_learning_csv(const std::filesystem::path& p, const std::string& text);
[[nodiscard]] inline CsvFits read_learning_csv(const std::filesystem::path& p) {
    return read_learning_csv(p, read_text_file(p));
}

/// The heatmap counts of a visits.csv, per (curve label, seed).
using CsvVisits = std::map<std::pair<std::string, std::uint64_t>, VisitCounts>;

[[nodiscard]] CsvVisits read_visits_csv(const std::filesystem::path& p, const std::string& text);
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
[[nodiscard]] std::uint64_t json_uint(const Json* v, const std::string& what,
                                             std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

/// Reads a shard folder written by `program`. Throws merge_error saying what is wrong.
[[nodiscard]] ShardFolder read_shard_folder(const std::filesystem::path& dir, std::string_view program);

/// "shards/fig2a.shard-1-of-4 (shard 1/4)".
[[nodiscard]] inline std::string shard_name(const ShardFolder& s) {
    return cat("'", s.dir.string(), "' (shard ", std::to_string(s.spec.index), "/", std::to_string(s.spec.count), ")");
}

/// Refuses two field lists that differ, naming the first field that does: `kind` says what
/// they are ("settings", "build").
void require_same_fields(const Fields& a, const std::string& a_name, const Fields& b, const std::string& b_name,
                                std::string_view headline, std::string_view advice);

/// Refuses shards of different builds, or of a build other than this program's.
void check_builds(const std::vector<ShardFolder>& shards, std::string_view program);

/// Refuses shards whose settings (study fields, one list per shard) differ.
void check_studies(const std::vector<ShardFolder>& shards, const std::vector<Fields>& studies);

/// Puts the shards' runs in place in `r` (whose curves and settings are the study's):
/// refuses a run found twice (listing every overlap) and runs missing (listing them, with
/// the slices that hold them when all shards have the same N).
void place_runs(const std::vector<ShardFolder>& shards, ExperimentResult& r);

/// The shards ordered by (N, I), so the first one gives the merged invocation fields.
void sort_shards(std::vector<ShardFolder>& shards);

/// `PROGRAM merge` arguments: shard folders, --out, --no-plot.
struct MergeOptions {
    std::vector<std::string> shards;
    std::string out = "out";
    bool plot = true;
    bool help = false;
};

[[nodiscard]] MergeOptions parse_merge_command_line(const std::vector<std::string>& args);

/// Seeds as "a,b,c".
[[nodiscard]] std::string seed_list(const std::vector<std::uint64_t>& seeds);

/// The study fields every program's shards share (what must be equal for shards to be
/// merged, besides the program's own): the curves' labels, then Algorithm 1's settings.
[[nodiscard]] Fields study_settings_fields(const std::vector<Curve>& curves, const Settings& s);

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
