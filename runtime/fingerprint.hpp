// runtime/fingerprint.hpp — the build of a program: what can change a run's
// floating-point results. build_fingerprint() (fingerprint.cpp) lists the maxent version,
// the git commit of the build (MAXENT_GIT_COMMIT, from CMake's `git rev-parse HEAD` at
// configure time; empty if unknown), the compiler and its version, the build's flags
// (MAXENT_BUILD_FLAGS: CMAKE_CXX_FLAGS and the build type's), the target's floating-point
// relevant features as the compiler sees them (fast-math, FMA, the SSE/AVX/NEON level that
// -march selects), and Eigen's version, SIMD instruction sets and vector width. config.json
// records it (config_json.hpp fields_json); shards, merges and resumed runs compare it
// field by field and refuse any difference.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace maxent::programs {

using Fields = std::vector<std::pair<std::string, std::string>>;

/// The build of this program (see the header comment), as (name, value) pairs.
[[nodiscard]] Fields build_fingerprint();

}  // namespace maxent::programs
