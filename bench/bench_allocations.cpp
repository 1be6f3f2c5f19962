// Benchmark: heap allocations per training iteration after warm-up (the target: no heap
// allocation inside an iteration after the first, counted, not assumed).
//
// This executable counts allocations with the allocation audit's counting allocator
// (tests/support/counting_allocator.hpp, shared with tests/alloc/test_no_allocation.cpp):
//   * every replaceable form of the global operator new is replaced by a counting one
//     (std::vector, std::string, Eigen's sparse storage, ...);
//   * Eigen's dense storage bypasses operator new (it calls malloc), so EIGEN_RUNTIME_NO_MALLOC
//     is defined and eigen_assert is redefined to count failed checks instead of aborting:
//     every Eigen heap allocation made while malloc is "not allowed" is counted.
// Side effect: with eigen_assert defined, all of Eigen's assertions are evaluated, so the
// times of this executable are NOT the library's speed (see maxent_bench_iteration); only
// its counters matter.
//
// Each benchmark builds a Trainer, runs 2 warm-up iterations (the first allocates the
// trajectory buffers and estimator scratch), then counts over 200 iterations (50 in quick
// mode). Counters: new_per_iteration, eigen_malloc_per_iteration (both averaged over the
// counted iterations; the target is 0), counted_iterations. Problems: the 5 x 5 room
// (k = 10) and the 6 x 6 four rooms (k = 0.1) of maxent_bench_iteration with each feedback
// (track_belief_entropy on, the superset), the other estimators and Adam on the 5 x 5 room,
// and the size-sweep problem with side 80 (S = 6400, T = 100). particles/*: one particle
// filter update plus φ(b) per iteration (10^3 particles, 8 x 8 bins, bilinear 6 x 6 features,
// the world's own episodes) on the rescue world with the cell sensor and with the range sensor
// (the batched fast path), and at threshold 1 (a resampling every step).
#include "counting_allocator.hpp"  // first: replaces operator new, defines eigen_assert

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "common.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

using maxent_alloc_count::counting;
using maxent_alloc_count::news;

namespace {

constexpr int warmup = 2;

template <class E, class R, class F>
void allocation_benchmark(benchmark::State& state, const maxent::GridPomdp& m, F feedback, E estimator, R step) {
    maxent::TrainerConfig config;
    config.iterations = 1'000'000;
    config.batch = 10;
    config.seed = 0;
    config.track_belief_entropy = true;
    maxent::Trainer trainer(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()),
                            std::move(feedback), std::move(estimator), std::move(step), config);
    for (int i = 0; i < warmup; ++i) (void)trainer.iterate();
    news = 0;
    maxent_alloc_count::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    for (auto _ : state) {
        const maxent::IterationMetrics metrics = trainer.iterate();
        benchmark::DoNotOptimize(metrics);
    }
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    const auto n = static_cast<double>(state.iterations());
    state.counters["new_per_iteration"] = static_cast<double>(news.load()) / n;
    state.counters["eigen_malloc_per_iteration"] = static_cast<double>(maxent_alloc_count::eigen_violations.load()) / n;
    state.counters["counted_iterations"] = n;
    state.SetLabel(maxent_bench::describe(m) + " N=10 warm-up=2 (times include Eigen assertions: not for speed)");
}

/// The counters themselves: one std::vector and one Eigen::VectorXd per iteration must
/// count 1 operator new and 1 Eigen malloc per iteration (a counter that cannot fail is no audit).
void BM_self_check(benchmark::State& state) {
    news = 0;
    maxent_alloc_count::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    std::size_t n = 100;
    for (auto _ : state) {
        Eigen::VectorXd v(static_cast<Eigen::Index>(n));
        v.setZero();
        std::vector<double> w(n + static_cast<std::size_t>(state.iterations() % 2));
        w[0] = v[0];
        benchmark::DoNotOptimize(w.data());
        benchmark::DoNotOptimize(v.data());
    }
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    const auto iterations = static_cast<double>(state.iterations());
    state.counters["new_per_iteration"] = static_cast<double>(news.load()) / iterations;
    state.counters["eigen_malloc_per_iteration"] = static_cast<double>(maxent_alloc_count::eigen_violations.load()) / iterations;
    state.counters["counted_iterations"] = iterations;
    state.SetLabel("expected: 1 new and 1 Eigen malloc per iteration");
}

/// Particle filter updates (predict, weigh, resample, histogram, φ(b)) on a rescue world.
template <class World>
void particle_allocations(benchmark::State& state, const World& world, double threshold) {
    using Features = maxent::BilinearGridFeatures<maxent::RescuePosition>;
    maxent::DefaultRng g = maxent::stream(9);
    maxent::ParticleFilter filter(world, 64, maxent::RescueGridBinning{8},
                                  Features(6, 6, maxent::Box{}, maxent::RescuePosition{}),
                                  {.particles = 1000, .resample_threshold = threshold}, g);
    Eigen::VectorXd b, phi;
    auto s = world.sample_initial_state(g);
    const auto step = [&](std::size_t t) {
        if (t % world.horizon() == 0) {
            filter.initial(b);
            s = world.sample_initial_state(g);
        }
        const auto a = static_cast<std::size_t>(maxent::uniform_index(g, 4));
        s = world.sample_next_state(s, a, g);
        filter.update(b, a, world.sample_observation(a, s, g), g);
        filter.features(b, phi);
    };
    std::size_t t = 0;
    for (int i = 0; i < warmup; ++i) step(t++);
    news = 0;
    maxent_alloc_count::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    for (auto _ : state) {
        step(t++);
        benchmark::DoNotOptimize(phi.data());
    }
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    const auto n = static_cast<double>(state.iterations());
    state.counters["new_per_iteration"] = static_cast<double>(news.load()) / n;
    state.counters["eigen_malloc_per_iteration"] = static_cast<double>(maxent_alloc_count::eigen_violations.load()) / n;
    state.counters["counted_iterations"] = n;
    state.counters["resamples"] = static_cast<double>(filter.resamples());
    state.SetLabel("one update + features per iteration, 1000 particles (times include Eigen assertions)");
}

template <class F, class E = maxent::BatchMeanBaseline, class R = maxent::ConstantStep>
void add(const std::string& name, const maxent::GridPomdp& m, F feedback, E estimator = {},
         R step = maxent::ConstantStep(0.3)) {
    benchmark::RegisterBenchmark(("allocations/" + name).c_str(),
                                 [&m, feedback, estimator, step](benchmark::State& state) {
                                     allocation_benchmark(state, m, feedback, estimator, step);
                                 })
        ->Iterations(maxent_bench::quick_mode() ? 50 : 200)
        ->Unit(benchmark::kMicrosecond);
}

const bool registered = [] {
    benchmark::RegisterBenchmark("allocations/self_check", BM_self_check)->Iterations(100);
    static const maxent::GridPomdp room = maxent_bench::single_room_5x5(10.0);
    static const maxent::GridPomdp rooms = maxent_bench::four_rooms_6x6(0.1);
    static const maxent::GridPomdp large = maxent_bench::square_room(80, 10.0, 100);
    for (const auto& [problem, model] : {std::pair<std::string, const maxent::GridPomdp*>{"room5x5_k10", &room},
                                         std::pair<std::string, const maxent::GridPomdp*>{"rooms6x6_k0.1", &rooms}}) {
        add(problem + "/mse", *model, maxent::MSE{});
        add(problem + "/moe", *model, maxent::MOE{});
        add(problem + "/mbe", *model, maxent::MBE{});
        add(problem + "/reg-mbe", *model, maxent::RegMBE(0.02));
    }
    add("room5x5_k10/mse/reinforce", room, maxent::MSE{}, maxent::Reinforce{});
    add("room5x5_k10/mse/leave-one-out", room, maxent::MSE{}, maxent::LeaveOneOutBaseline{});
    add("room5x5_k10/mse/optimal", room, maxent::MSE{}, maxent::OptimalBaseline{});
    add("room5x5_k10/mse/adam", room, maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::Adam(0.05));
    add("room80x80_k10_T100/mse", large, maxent::MSE{});
    static const maxent::RescueWorld cell({.horizon = 100});
    static const maxent::RescueRangeWorld range([] {
        maxent::RescueRangeOptions o;
        o.motion.horizon = 100;
        return o;
    }());
    const int updates = maxent_bench::quick_mode() ? 100 : 400;  // several episodes
    for (const double threshold : {0.5, 1.0}) {
        const std::string suffix = threshold == 1.0 ? "/resample_always" : "";
        benchmark::RegisterBenchmark(("allocations/particles/rescue_cell" + suffix).c_str(),
                                     [threshold](benchmark::State& st) { particle_allocations(st, cell, threshold); })
            ->Iterations(updates);
        benchmark::RegisterBenchmark(("allocations/particles/rescue_range" + suffix).c_str(),
                                     [threshold](benchmark::State& st) { particle_allocations(st, range, threshold); })
            ->Iterations(updates);
    }
    return true;
}();

}  // namespace
