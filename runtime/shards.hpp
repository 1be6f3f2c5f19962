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

#include <cstddef>
#include <cstdint>
#include <cstdio>
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
[[nodiscard]] std::vector<std::size_t> assign_shards(const std::vector<std::uint64_t>& costs,
                                                            std::size_t count);

/// The jobs (curve-major, seed-minor) of `curves` x `seeds` in slice `shard` (ExperimentResult::selected).
[[nodiscard]] std::vector<char> shard_selection(const std::vector<Curve>& curves, std::size_t seeds,
                                                       const ShardSpec& shard);

/// "fig2a.shard-2-of-4".
[[nodiscard]] inline std::string shard_folder_name(std::string_view name, const ShardSpec& shard) {
    return cat(name, ".shard-", std::to_string(shard.index), "-of-", std::to_string(shard.count));
}

/// `args` without "--shard I/N" / "--shard=I/N".
[[nodiscard]] std::vector<std::string> without_shard(const std::vector<std::string>& args);

/// The "shard" section of a shard's config.json: program, index, count, arguments, runs
/// (curve, seed, table size of each complete run), plus `more` (raw "name": value text).
[[nodiscard]] std::string shard_section(std::string_view program, const ShardSpec& shard,
                                               const std::vector<std::string>& args, const ExperimentResult& r,
                                               const std::string& more = {});

/// The digests of a staged shard folder's files but config.json (learned/ included), as the
/// JSON object "<path>": "<16 hex digits of fnv1a64 of its bytes>", in name order: the merge
/// takes only the files config.json describes (not one lost, changed, or copied from a shard
/// of other settings under this config.json).
[[nodiscard]] std::string shard_files_json(const std::filesystem::path& dir);

/// `info` with "files" (shard_files_json of the staged folder `dir`) added to its "shard" section.
[[nodiscard]] RunInfo with_shard_files(RunInfo info, const std::filesystem::path& dir);

inline constexpr std::string_view visits_csv_header = "objective,seed,episodes,mean_true_entropy,state,count";

/// visits.csv of a shard: the heatmap counts (VisitCounts) of every complete run, one row per
/// (run, true state), in job order then state order; the entropy as %.17g (read back exactly).
void write_visits_csv(std::FILE* f, const ExperimentResult& r);

/// Writes a shard's folder (runs.csv of its complete runs, config.json with info's extra
/// "shard" section, learning.csv and visits.csv when the study has them) and commits it. A shard with runs but none complete (interrupted at
/// once) writes nothing; a shard with no runs at all (N larger than the study) writes its
/// empty set, so that a merge sees it.
WrittenFiles write_shard(OutputFolder& folder, const ExperimentResult& r, const RunInfo& info);

}  // namespace maxent::programs
