// libFuzzer target for the POMDP writer's round trip (model/pomdp_writer.hpp): any bytes make a
// model that write_pomdp_file writes and parse_pomdp reads back with exactly its numbers and
// discount; the body is writer_fuzz.hpp. Build and run with scripts/fuzz.sh writer, or with
// -DMAXENT_BUILD_FUZZERS=ON (clang only).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "writer_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    maxent::fuzz::pomdp_writer_round_trip(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
