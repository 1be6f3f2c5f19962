// maxent/core/parallel.hpp — many independent jobs (seeds, blocks of data) on all cores,
// with results that do not depend on the number of threads.
//
// It lives in core/ (it needs only core/error.hpp) so that every layer may use it: the
// trainer's callers run one job per seed, the learned belief models (belief/learned/em.hpp)
// one job per fixed-size block of sequences.
//
// The paper reports every curve as the mean and 95% confidence interval over 16 runs
// seeded 0..15 (docs/reference.md, "Algorithm 1 as run for the figures").
// `run_parallel(count, threads, job)` calls job(i) for i = 0..count-1 on up to `threads`
// worker threads and returns the results in index order.
// Each job must be a pure function of its index (build its own trainer, policy and updater
// from the shared const model, seed its streams from the index), which the trainer is, so
// the results are bit-identical for any thread count. The first exception (by index) is
// rethrown after all workers stop.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "maxent/core/error.hpp"

namespace maxent {

/// Number of hardware threads (at least 1).
[[nodiscard]] inline std::size_t hardware_threads() noexcept {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

/// Runs job(0), ..., job(count - 1) on up to `threads` threads (0 = all hardware threads)
/// and returns their results in index order. After a job throws, the remaining jobs that
/// have not started are skipped and the exception of the lowest failing index is rethrown.
template <class Job>
auto run_parallel(std::size_t count, std::size_t threads, Job&& job)
    -> std::vector<std::invoke_result_t<Job&, std::size_t>> {
    using Result = std::invoke_result_t<Job&, std::size_t>;
    static_assert(!std::is_void_v<Result>, "run_parallel: the job must return its result");
    if (threads == 0) threads = hardware_threads();
    threads = std::min(threads, std::max<std::size_t>(count, 1));
    std::vector<std::optional<Result>> slots(count);
    std::vector<std::exception_ptr> errors(count);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (;;) {
            const std::size_t i = next.fetch_add(1);
            if (i >= count || failed.load()) return;
            try {
                slots[i].emplace(job(i));
            } catch (...) {
                errors[i] = std::current_exception();
                failed.store(true);
            }
        }
    };
    if (threads <= 1) {
        worker();
    } else {
        std::vector<std::jthread> pool;
        pool.reserve(threads);
        for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    }  // jthreads join here
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    std::vector<Result> out;
    out.reserve(count);
    for (auto& s : slots) out.push_back(std::move(*s));
    return out;
}

}  // namespace maxent
