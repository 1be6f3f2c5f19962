// tests/fuzz/shard_fuzz.hpp — the body of the libFuzzer target of the readers of what the
// programs read back (fuzz_shard_files.cpp), shared with the unit test that replays its seeds
// and regressions (tests/unit/programs/reliability.cpp): any bytes either read as a valid
// result or throw an exception derived from maxent::error, never a crash, a hang, undefined
// behaviour, another exception or a value out of the readers' bounds.
//
// The first byte picks the reader ('0' + k, k modulo 6), the rest is the file:
//   0 config.json (parse_json)        1 runs.csv        2 visits.csv       3 learning.csv
//   4 a run-store .run file (RunStore::parse_run, key "fuzz|K=3|", build "b")
//   5 a whole shard folder: config.json, then a line "---", then runs.csv (read_shard_folder,
//     through files in `scratch`)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "runtime/json.hpp"
#include "runtime/merge.hpp"
#include "runtime/run_store.hpp"

namespace maxent::fuzz {

/// Traps (a crash the fuzzer reports) unless `ok`.
inline void require(bool ok) {
    if (!ok) __builtin_trap();
}

inline void require_record(const programs::IterationRecord& r) {
    require(std::isfinite(r.true_entropy) && r.true_entropy >= 0.0 && r.true_entropy <= programs::max_run_value);
    require(std::isfinite(r.feedback) && std::fabs(r.feedback) <= programs::max_run_value);
    require(std::isfinite(r.belief_entropy_sum) && r.belief_entropy_sum >= 0.0);
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    require(f != nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
}

/// One input (see the header). `scratch` is a directory the shard mode may write into.
inline void shard_input(const std::uint8_t* data, std::size_t size, const std::filesystem::path& scratch) {
    if (size == 0) return;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const unsigned mode = static_cast<unsigned>(data[0] - '0') % 6U;
    try {
        switch (mode) {
            case 0: (void)programs::parse_json(text, "config.json"); break;
            case 1:
                for (const programs::CsvRun& run : programs::read_runs_csv("runs.csv", text))
                    for (const programs::IterationRecord& r : run.records) require_record(r);
                break;
            case 2:
                for (const auto& [run, v] : programs::read_visits_csv("visits.csv", text)) {
                    std::uint64_t total = 0;
                    for (const std::uint64_t c : v.counts) total += c;
                    require(total <= programs::max_kept_run_visits && v.episodes >= 1 &&
                            std::isfinite(v.mean_entropy));
                }
                break;
            case 3: (void)programs::read_learning_csv("learning.csv", text); break;
            case 4:
                if (const auto run = programs::RunStore::parse_run(text, "fuzz|K=3|", "b")) {
                    require(run->records.size() == 3 && run->complete);
                    for (const programs::IterationRecord& r : run->records) require_record(r);
                }
                break;
            default: {
                const std::size_t cut = text.find("\n---\n");
                std::filesystem::create_directories(scratch);
                write_bytes(scratch / "config.json", text.substr(0, cut));
                write_bytes(scratch / "runs.csv", cut == std::string::npos ? std::string() : text.substr(cut + 5));
                const programs::ShardFolder s = programs::read_shard_folder(scratch, "maxent-paper");
                require(s.spec.index >= 1 && s.spec.index <= s.spec.count && s.tables.size() == s.runs.size());
                break;
            }
        }
    } catch (const maxent::error&) {
        // expected for malformed input
    }
}

}  // namespace maxent::fuzz
