// tests/support/counting_allocator.hpp — counts heap allocations, for the allocation audit
// (tests/alloc/test_no_allocation.cpp) and the allocation benchmark (bench/bench_allocations.cpp).
//
// Include it FIRST, in exactly ONE translation unit of an executable (it defines the global
// replacement operators). It counts both ways a training iteration could allocate:
//   * every replaceable form of the global operator new / delete is replaced (malloc/free
//     backed, so the sanitizers still see matching pairs); while `counting` is true each
//     operator new adds one to `news` (std::vector, std::string, Eigen's sparse storage, ...);
//   * Eigen's dense storage calls its own aligned malloc, which with EIGEN_RUNTIME_NO_MALLOC
//     checks eigen_assert(is_malloc_allowed()); eigen_assert is defined here to count failed
//     checks in `eigen_violations` instead of aborting (in Release builds too). Side effect:
//     every Eigen assertion is evaluated, so code built with this header is slower.
// Usage: set news = 0 and eigen_violations = 0, Eigen::internal::set_is_malloc_allowed(false),
// counting = true; run; counting = false, set_is_malloc_allowed(true); read the counters.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace maxent_alloc_count {
inline std::atomic<long> eigen_violations{0};  ///< Eigen heap allocations while not allowed
inline std::atomic<bool> counting{false};      ///< whether operator new is being counted
inline std::atomic<long> news{0};              ///< operator new calls while counting
}  // namespace maxent_alloc_count

#define EIGEN_RUNTIME_NO_MALLOC
#define eigen_assert(x)                                                                          \
    do {                                                                                         \
        if (!(x)) maxent_alloc_count::eigen_violations.fetch_add(1, std::memory_order_relaxed); \
    } while (false)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // malloc-backed new, free-backed delete
#endif

namespace maxent_alloc_count::detail {
inline void count() noexcept {
    if (counting.load(std::memory_order_relaxed)) news.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace maxent_alloc_count::detail

// Every replaceable form is replaced, so that any new/delete pair stays malloc/free (the
// sanitizers check the pairing).
void* operator new(std::size_t n) {
    maxent_alloc_count::detail::count();
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    maxent_alloc_count::detail::count();
    return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t al) {
    maxent_alloc_count::detail::count();
    const auto a = static_cast<std::size_t>(al);
    const std::size_t rounded = (n + a - 1) / a * a;
    if (void* p = std::aligned_alloc(a, rounded == 0 ? a : rounded)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t al) { return operator new(n, al); }
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept {
    try {
        return operator new(n, al);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t& t) noexcept {
    return operator new(n, al, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
