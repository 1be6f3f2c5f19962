// runtime/threads.hpp — the programs' default number of worker threads (--threads 0):
// the CPUs this process may run on, not the machine's. A process pinned with taskset, a
// container's cpuset or a Slurm task (whose CPUs the task plugin may not pin) would otherwise
// start one thread per core of the node and oversubscribe its share. Results do not depend
// on the thread count, so this changes only speed.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <string_view>

#include <sched.h>

#include "maxent/core/parallel.hpp"

namespace maxent::programs {

/// A positive count read from environment variable `name`, or 0 (unset, empty, not a number).
[[nodiscard]] inline std::size_t positive_count_from_env(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr) return 0;
    const std::string_view s(v);
    std::size_t n = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), n);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() ? n : 0;
}

/// The default worker count: the CPUs in this process's affinity mask (sched_getaffinity;
/// the hardware threads where it cannot be read), and inside a Slurm job at most the CPUs the
/// job was given for this task: SLURM_CPUS_PER_TASK (set by --cpus-per-task), else
/// SLURM_CPUS_ON_NODE. At least 1.
[[nodiscard]] inline std::size_t usable_threads() {
    std::size_t n = hardware_threads();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int k = CPU_COUNT(&set);
        if (k > 0) n = static_cast<std::size_t>(k);
    }
    std::size_t slurm = positive_count_from_env("SLURM_CPUS_PER_TASK");
    if (slurm == 0 && std::getenv("SLURM_JOB_ID") != nullptr) slurm = positive_count_from_env("SLURM_CPUS_ON_NODE");
    if (slurm > 0 && slurm < n) n = slurm;
    return n == 0 ? 1 : n;
}

/// `requested` (--threads), or usable_threads() when it is 0.
[[nodiscard]] inline std::size_t resolve_threads(std::size_t requested) {
    return requested == 0 ? usable_threads() : requested;
}

}  // namespace maxent::programs
