// libFuzzer target for maxent/model/pomdp_file.hpp: any byte string given to parse_pomdp
// either yields a valid model or throws an exception derived from maxent::error — never a
// crash, a hang, undefined behaviour or another exception (sanitizers: address, undefined).
// Build and run with scripts/fuzz.sh, or with -DMAXENT_BUILD_FUZZERS=ON (clang only).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "maxent/model/pomdp_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    maxent::ReadOptions options;
    // Smaller write budget than the default so that every input runs in milliseconds; the
    // code paths are the same. Labels keep the default limit (10^6).
    options.max_cell_writes = std::size_t{1} << 20;
    if (size > 0 && (data[0] & 1U) != 0) options.empty_transition_rows = maxent::EmptyRows::self_loop;
    try {
        const maxent::PomdpFile file = maxent::parse_pomdp(text, "fuzz", options);
        // Whatever parses must be a consistent model.
        const auto& m = file.model;
        if (m.num_states() == 0 || m.num_actions() == 0 || m.num_observations() == 0) __builtin_trap();
        if (!(std::abs(m.initial_distribution().sum() - 1.0) <= 1e-9)) __builtin_trap();
        const double r = file.reward(0, 0, 0, 0);
        if (!std::isfinite(r)) __builtin_trap();
        if (file.discount && !(*file.discount >= 0.0 && *file.discount <= 1.0)) __builtin_trap();
    } catch (const maxent::error&) {
        // expected for malformed input
    }
    return 0;
}
