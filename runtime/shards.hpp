// runtime/shards.hpp — one study split across processes or machines (merge.hpp puts
// it back together). A study is the (curve, seed) runs of one experiment (maxent-paper) or
// one model file (maxent-explore) under one set of settings; every run is a pure function of
// them and of the build, and runs.csv lists them in job order (curve-major, seed-minor).
// `--shard I/N` runs the jobs assign_shards gives slice I: jobs are taken by decreasing
// estimated cost (run_cost, settings.hpp; equal costs in job order) and each goes to the
// slice with the least cost so far (the lowest such slice), so the slices are balanced and
// every process computes the same assignment. A shard writes OUT/<name>.shard-I-of-N/ with its own runs.csv
// (its complete runs, in job order), visits.csv (each run's heatmap counts) and config.json,
// whose "shard" section holds the program, I, N, the arguments (to rebuild the settings), and
// per run its curve, seed and table size (class B), and the digest of every other file it
// wrote ("files": runs.csv, learning.csv, visits.csv, learned/*.pomdp), so that a merge takes
// only the files written with these settings; maxent-explore's also the uniform baseline of
// its seeds. With learned-belief curves a shard also writes learning.csv and learned/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "config_json.hpp"
#include "files.hpp"
#include "output.hpp"
#include "results.hpp"
#include "run_store.hpp"
#include "settings.hpp"
#include "tables.hpp"
#include "text.hpp"

namespace maxent::programs {

// ---------------------------------------------------------------------------------------
// Shards: which process runs which jobs
// ---------------------------------------------------------------------------------------

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

/// The digests of a staged shard folder's files but config.json (learned/ included), as the
/// JSON object "<path>": "<16 hex digits of fnv1a64 of its bytes>", in name order: the merge
/// takes only the files config.json describes (not one lost, changed, or copied from a shard
/// of other settings under this config.json).
[[nodiscard]] inline std::string shard_files_json(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (e.is_directory()) {
            for (const fs::directory_entry& g : fs::directory_iterator(e.path()))
                names.push_back(cat(f, "/", g.path().filename().string()));
        } else if (f != "config.json") {
            names.push_back(f);
        }
    }
    std::sort(names.begin(), names.end());
    std::string j = "{";
    for (std::size_t i = 0; i < names.size(); ++i)
        j += cat(i ? ", " : "", json_string(names[i]), ": \"", hex64(fnv1a64(read_regular_file(dir / names[i]))), "\"");
    return j + "}";
}

/// `info` with "files" (shard_files_json of the staged folder `dir`) added to its "shard" section.
[[nodiscard]] inline RunInfo with_shard_files(RunInfo info, const std::filesystem::path& dir) {
    for (auto& [name, value] : info.extra_fields)
        if (name == "shard" && !value.empty() && value.back() == '}') {
            value.pop_back();
            value += cat(", \"files\": ", shard_files_json(dir), "}");
        }
    return info;
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
    write_file_atomically(dir / output_name("runs.csv"), [&](std::FILE* f) { write_runs_csv(f, r); });
    if (has_learned_curves(r))
        write_file_atomically(dir / output_name("learning.csv"), [&](std::FILE* f) { write_learning_csv(f, r); });
    if (has_learned_curves(r)) write_learned_models(dir, r);
    if (r.settings.heatmap_episodes > 0)
        write_file_atomically(dir / output_name("visits.csv"), [&](std::FILE* f) { write_visits_csv(f, r); });
    write_string_atomically(dir / output_name("config.json"), config_json(r, with_shard_files(info, dir)));
    folder.commit();
    w.wrote = true;
    return w;
}

}  // namespace maxent::programs
