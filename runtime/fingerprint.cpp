// runtime/fingerprint.cpp — build_fingerprint(): the only translation unit that sees
// the build's commit and flags (CMake defines them for this file alone). It includes no more
// than Eigen/Core (for Eigen's version and SIMD sets), so a new commit recompiles it quickly.
#include "fingerprint.hpp"

#include <string>

#include <Eigen/Core>

#ifndef MAXENT_VERSION
#define MAXENT_VERSION "unknown"
#endif
#ifndef MAXENT_GIT_COMMIT
#define MAXENT_GIT_COMMIT ""
#endif
#ifndef MAXENT_BUILD_FLAGS
#define MAXENT_BUILD_FLAGS ""
#endif

namespace maxent::programs {

Fields build_fingerprint() {
    Fields f;
    f.emplace_back("maxent_version", MAXENT_VERSION);
    f.emplace_back("commit", MAXENT_GIT_COMMIT);
#if defined(__clang__)
    f.emplace_back("compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
    f.emplace_back("compiler", std::string("gcc ") + __VERSION__);
#elif defined(_MSC_VER)
    f.emplace_back("compiler", "msvc " + std::to_string(_MSC_FULL_VER));
#else
    f.emplace_back("compiler", "unknown");
#endif
    f.emplace_back("flags", MAXENT_BUILD_FLAGS);
    std::string fp;
    auto add = [&](const char* x) {
        if (!fp.empty()) fp += " ";
        fp += x;
    };
#if defined(__x86_64__) || defined(_M_X64)
    add("x86_64");
#elif defined(__aarch64__) || defined(_M_ARM64)
    add("aarch64");
#else
    add("other-arch");
#endif
#ifdef __FAST_MATH__
    add("fast-math");
#endif
#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
    add("finite-math-only");
#endif
#ifdef __FMA__
    add("fma");
#endif
#ifdef __FP_FAST_FMA
    add("fp-fast-fma");
#endif
#ifdef __SSE4_2__
    add("sse4.2");
#endif
#ifdef __AVX__
    add("avx");
#endif
#ifdef __AVX2__
    add("avx2");
#endif
#ifdef __AVX512F__
    add("avx512f");
#endif
#ifdef __ARM_NEON
    add("neon");
#endif
#ifdef __ARM_FEATURE_FMA
    add("arm-fma");
#endif
    f.emplace_back("floating_point", fp);
    f.emplace_back("eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                               std::to_string(EIGEN_MINOR_VERSION));
    f.emplace_back("eigen_simd", Eigen::SimdInstructionSetsInUse());
    f.emplace_back("eigen_max_align_bytes", std::to_string(EIGEN_IDEAL_MAX_ALIGN_BYTES));
    return f;
}

}  // namespace maxent::programs
