// bench/common.hpp — helpers shared by the maxent benchmarks: the Release check, peak
// memory, quick mode, per-step counters and the problem descriptions (environments of the
// paper's Section 6.1 as the benchmarks use them).
//
// Every benchmark executable includes this header exactly once (one translation unit per
// executable), so the Release check below runs once per executable:
//   * it adds "maxent_build" to Google Benchmark's context (printed on the console and
//     stored in the JSON output under "context"), "release" or a warning;
//   * when the build is not optimised or assertions are on (no NDEBUG), it prints a warning
//     on stderr: such timings say nothing about the library's speed.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "maxent/model/grid_world.hpp"

namespace maxent_bench {

// ---------------------------------------------------------------------------------------
// Build check
// ---------------------------------------------------------------------------------------

#if defined(NDEBUG)
inline constexpr bool assertions_off = true;
#else
inline constexpr bool assertions_off = false;
#endif
#if defined(__OPTIMIZE__)
inline constexpr bool optimised = true;
#else
inline constexpr bool optimised = false;
#endif
inline constexpr bool release_build = assertions_off && optimised;

/// "release" or a description of what is wrong with the build.
[[nodiscard]] inline std::string build_description() {
    if (release_build) return "release (optimised, NDEBUG)";
    std::string s = "NOT A RELEASE BUILD:";
    if (!optimised) s += " not optimised (no -O);";
    if (!assertions_off) s += " assertions on (no NDEBUG);";
    return s + " timings are meaningless, configure with -DCMAKE_BUILD_TYPE=Release";
}

namespace detail {
inline const bool build_checked = [] {
    benchmark::AddCustomContext("maxent_build", build_description());
    if (!release_build)
        std::fprintf(stderr, "WARNING: maxent benchmark %s\n", build_description().c_str());
    return true;
}();
}  // namespace detail

// ---------------------------------------------------------------------------------------
// Quick mode (scripts/bench.sh --quick): fewer iterations and repetitions, for smoke runs
// ---------------------------------------------------------------------------------------

/// True when the environment variable MAXENT_BENCH_QUICK is set to something other than
/// "" or "0".
[[nodiscard]] inline bool quick_mode() {
    const char* v = std::getenv("MAXENT_BENCH_QUICK");
    return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

// ---------------------------------------------------------------------------------------
// Memory (Linux /proc/self/status; 0 where unavailable)
// ---------------------------------------------------------------------------------------

/// The value in kB of a "Key:   123 kB" line of /proc/self/status (VmHWM = peak resident
/// set size, VmRSS = current), or 0 when not available.
[[nodiscard]] inline double status_kb(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(in, line)) {
        if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') {
            std::istringstream fields(line.substr(n + 1));
            double kb = 0.0;
            fields >> kb;
            return kb;
        }
    }
    return 0.0;
}
[[nodiscard]] inline double peak_rss_mb() { return status_kb("VmHWM") / 1024.0; }
[[nodiscard]] inline double current_rss_mb() { return status_kb("VmRSS") / 1024.0; }

/// Resets the peak resident set size (VmHWM) to the current one by writing "5" to
/// /proc/self/clear_refs (Linux >= 4.0). Returns false when that is not possible, in which
/// case VmHWM stays the peak of the whole process so far.
inline bool reset_peak_rss() {
    std::ofstream out("/proc/self/clear_refs");
    if (!out) return false;
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

// ---------------------------------------------------------------------------------------
// Counters
// ---------------------------------------------------------------------------------------

/// Sets the standard counters of a benchmark whose every iteration performs `steps_per_iteration`
/// environment steps: items_per_second (steps), "iterations_per_s", "steps_per_s" and
/// "time_per_step" (an inverted rate: CPU seconds per step; the console prints it with an SI
/// prefix, e.g. "287.6ns", the JSON output holds seconds).
inline void set_step_counters(benchmark::State& state, double steps_per_iteration) {
    const auto iterations = static_cast<double>(state.iterations());
    const double steps = iterations * steps_per_iteration;
    state.SetItemsProcessed(static_cast<std::int64_t>(steps));
    state.counters["iterations_per_s"] = benchmark::Counter(iterations, benchmark::Counter::kIsRate);
    state.counters["steps_per_s"] = benchmark::Counter(steps, benchmark::Counter::kIsRate);
    state.counters["time_per_step"] =
        benchmark::Counter(steps, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["steps_per_iteration"] = steps_per_iteration;
}

// ---------------------------------------------------------------------------------------
// Problems
// ---------------------------------------------------------------------------------------

/// "S=25 A=4 O=25 T=25" for a model.
template <class M>
[[nodiscard]] std::string describe(const M& m) {
    std::ostringstream s;
    s << "S=" << m.num_states() << " A=" << m.num_actions() << " O=" << m.num_observations() << " T=" << m.horizon();
    return s.str();
}

/// The paper's environment i (Fig. 2a/2b): 5 x 5 single room, deterministic, Gaussian
/// observations with precision k (observation variance 1 / k), T = S = 25.
[[nodiscard]] inline maxent::GridPomdp single_room_5x5(double k) {
    return maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, k);
}

/// The paper's environment ii (Fig. 2c with k = 0.1): 6 x 6 four rooms, deterministic,
/// Gaussian observations with precision k, T = S = 36.
[[nodiscard]] inline maxent::GridPomdp four_rooms_6x6(double k) {
    return maxent::paper_environment(maxent::PaperEnvironment::four_rooms_gaussian, 0.0, k);
}

/// A w x w single room, deterministic, Gaussian observations with precision k and the
/// default sparse threshold (grid_observations.hpp), horizon T.
[[nodiscard]] inline maxent::GridPomdp square_room(std::size_t side, double k, std::size_t horizon) {
    return maxent::make_grid_world({.layout = maxent::GridLayout::single_room(side, side),
                                    .slip = 0.0,
                                    .observation = maxent::observe::gaussian(k),
                                    .horizon = horizon});
}

/// Bytes held by a row-major sparse matrix (values, inner indices, outer starts).
template <class Sparse>
[[nodiscard]] double sparse_bytes(const Sparse& m) {
    return static_cast<double>(m.nonZeros()) * (sizeof(double) + sizeof(int)) +
           static_cast<double>(m.outerSize() + 1) * sizeof(int);
}

}  // namespace maxent_bench
