// libFuzzer target for read_sequences_csv (belief/learned/sequences.hpp): any bytes read as
// sequences that write back and read again as the same, or throw parse_error; the body is
// sequences_fuzz.hpp. Build and run with scripts/fuzz.sh sequences, or with
// -DMAXENT_BUILD_FUZZERS=ON (clang only).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sequences_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    maxent::fuzz::sequences_csv_round_trip(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
