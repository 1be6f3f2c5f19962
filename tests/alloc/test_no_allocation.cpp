// Allocation audit: after the first iteration, a training iteration allocates nothing.
//
// This file is its own executable so that it can replace the global allocator and turn on
// Eigen's run-time malloc check for every translation unit it contains (no ODR mixing with
// the unit tests):
//   * `operator new` (std::vector, Eigen's sparse storage, std::string, ...) is counted;
//   * Eigen's dense storage uses its own aligned malloc, which with EIGEN_RUNTIME_NO_MALLOC
//     calls eigen_assert(is_malloc_allowed()); eigen_assert is defined here to count
//     failures instead of aborting, so both paths are counted, in Release builds too.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

namespace alloc_audit {
inline std::atomic<long> eigen_violations{0};
}  // namespace alloc_audit

#define EIGEN_RUNTIME_NO_MALLOC
#define eigen_assert(x)                                                                  \
    do {                                                                                 \
        if (!(x)) alloc_audit::eigen_violations.fetch_add(1, std::memory_order_relaxed); \
    } while (false)

#include <catch2/catch.hpp>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/policies.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // malloc-backed new, free-backed delete
#endif

namespace {
std::atomic<bool> counting{false};
std::atomic<long> news{0};
}  // namespace

// Every replaceable form is replaced, so that any new/delete pair stays malloc/free (the
// sanitizers check the pairing).
void* operator new(std::size_t n) {
    if (counting.load(std::memory_order_relaxed)) news.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (counting.load(std::memory_order_relaxed)) news.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t al) {
    if (counting.load(std::memory_order_relaxed)) news.fetch_add(1, std::memory_order_relaxed);
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

namespace {
struct Audit {
    long operator_new = 0;
    long eigen_malloc = 0;
};

/// Runs `warmup` iterations, then counts allocations during `measured` iterations.
template <class Trainer>
Audit audit(Trainer& trainer, int warmup = 2, int measured = 20) {
    for (int i = 0; i < warmup; ++i) (void)trainer.iterate();
    news = 0;
    alloc_audit::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    for (int i = 0; i < measured; ++i) (void)trainer.iterate();
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    return {news.load(), alloc_audit::eigen_violations.load()};
}
}  // namespace

using namespace maxent;

TEST_CASE("the audit itself detects allocations", "[alloc]") {
    news = 0;
    alloc_audit::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    {
        Eigen::VectorXd v(100);  // Eigen dense allocation
        v.setZero();
        std::vector<double> w(static_cast<std::size_t>(v.size()) + static_cast<std::size_t>(news.load()));
        w[0] = v[0];  // operator new (a vector the optimiser cannot elide: its size is not known)
        CHECK(w.size() >= 100);
    }
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    CHECK(news.load() >= 1);
    CHECK(alloc_audit::eigen_violations.load() >= 1);
}

TEMPLATE_TEST_CASE("after the first iteration, an iteration allocates nothing", "[alloc]", MSE, MOE, MBE, RegMBE) {
    const auto m = paper_environment(PaperEnvironment::single_room_gaussian, 0.0, 10.0);
    TrainerConfig cfg;
    cfg.iterations = 100;
    auto feedback = [] {
        if constexpr (std::is_same_v<TestType, RegMBE>)
            return RegMBE(0.02);
        else
            return TestType{};
    }();
    Trainer trainer(m, BayesFilter(m), BeliefAveragedPolicy(25, 4), feedback, BatchMeanBaseline{}, ConstantStep(0.3),
                    cfg);
    const Audit a = audit(trainer);
    CHECK(a.operator_new == 0);
    CHECK(a.eigen_malloc == 0);
}

TEST_CASE("no allocation with other policies, estimators, Adam and the noisy oracle", "[alloc]") {
    const auto m = paper_environment(PaperEnvironment::four_rooms_room_id, 0.1);
    TrainerConfig cfg;
    cfg.iterations = 100;
    SECTION("S-tilde policy, optimal baseline, Adam, noisy beliefs") {
        Trainer trainer(m, NoisyBelief(BayesFilter(m), 0.03), BelievedStatePolicy(36, 4), RegMBE(0.02),
                        OptimalBaseline{}, Adam(0.05), cfg);
        const Audit a = audit(trainer);
        CHECK(a.operator_new == 0);
        CHECK(a.eigen_malloc == 0);
    }
    SECTION("observation policy, leave-one-out, authors' counting") {
        cfg.counting = StateCounting::authors;
        Trainer trainer(m, BayesFilter(m), ObservationPolicy(4, 4), MOE{}, LeaveOneOutBaseline{}, ConstantStep(0.3),
                        cfg);
        const Audit a = audit(trainer);
        CHECK(a.operator_new == 0);
        CHECK(a.eigen_malloc == 0);
    }
    SECTION("mixture policy, reinforce") {
        Trainer trainer(m, BayesFilter(m), BeliefMixturePolicy(36, 4), MBE{}, Reinforce{}, ConstantStep(0.3), cfg);
        const Audit a = audit(trainer);
        CHECK(a.operator_new == 0);
        CHECK(a.eigen_malloc == 0);
    }
}
