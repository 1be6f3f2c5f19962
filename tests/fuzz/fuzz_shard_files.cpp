// libFuzzer target for the files the programs read back (merge.hpp, json.hpp, run_store.hpp):
// config.json, runs.csv, visits.csv, learning.csv, run-store .run files and whole shard
// folders; the body and its contract are in shard_fuzz.hpp. Build and run with
// scripts/fuzz.sh shards, or with -DMAXENT_BUILD_FUZZERS=ON (clang only).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "shard_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::filesystem::path scratch =
        std::filesystem::temp_directory_path() / ("maxent-fuzz-shard-" + std::to_string(::getpid()));
    maxent::fuzz::shard_input(data, size, scratch);
    return 0;
}
