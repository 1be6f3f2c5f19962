// Benchmark: one full training iteration of Algorithm 1 (maxent/optim/trainer.hpp), the
// hot path of every experiment, against the performance targets (at most 25 µs per
// iteration on the 5 x 5 room, at most 100 ns per environment step).
//
// What one benchmark iteration is: `Trainer::iterate()` of the real Trainer, constructed
// once per benchmark run, i.e. N = 10 rollouts (sampling, exact Bayes filter, BA policy
// and its score), the N feedbacks, the batch-mean estimator and the constant step
// α = 0.3: exactly one iteration of a paper run. The trainer keeps learning across
// benchmark iterations, and a benchmark run is exactly K = 12000 iterations (2000 in quick
// mode), so the time is the mean over one whole training run of the paper (θ moves from 0
// to its final value; the first iteration's allocations are included but negligible).
//
// Problems (paper, Section 6.1; deterministic transitions, BA policy, exact filter,
// N = 10, paper state counting: T - 1 actions and T counted states per trajectory):
//   room5x5_k10   5 x 5 single room, Gaussian observations k = 10 (Fig. 2a), T = 25
//   rooms6x6_k0.1 6 x 6 four rooms, Gaussian observations k = 0.1 (Fig. 2c), T = 36
// for each feedback MSE, MOE, MBE and Reg-MBE (ρ = 0.02), each with
// TrainerConfig::track_belief_entropy off (only what the feedback needs: the library's
// cost for MSE/MOE/MBE) and on (what the paper runner does: it records Σ_t H(b_t); Reg-MBE
// needs it anyway, so its two variants do the same work).
//
// Counters: items_per_second = environment steps per second; iterations_per_s;
// steps_per_s; time_per_step (CPU seconds per step); steps_per_iteration = N · T (the
// targets' unit: T counted steps per trajectory); S, T, N; true_entropy_end = mean over the
// last 100 iterations of the batch-mean true-state entropy (a sanity check that it learns).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>

#include "common.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

constexpr std::size_t batch = 10;
constexpr double alpha = 0.3;
constexpr double rho = 0.02;

template <class F>
void iteration_benchmark(benchmark::State& state, const maxent::GridPomdp& m, F feedback, bool track) {
    maxent::TrainerConfig config;
    config.iterations = static_cast<std::size_t>(state.max_iterations);
    config.batch = batch;
    config.seed = 0;
    config.track_belief_entropy = track;
    maxent::Trainer trainer(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()),
                            std::move(feedback), maxent::BatchMeanBaseline{}, maxent::ConstantStep(alpha), config);
    const auto total = static_cast<std::size_t>(state.max_iterations);
    const std::size_t tail_begin = total > 100 ? total - 100 : 0;
    double tail_sum = 0.0;
    std::size_t k = 0;
    for (auto _ : state) {
        const maxent::IterationMetrics metrics = trainer.iterate();
        if (k++ >= tail_begin) tail_sum += metrics.true_entropy;
        benchmark::DoNotOptimize(metrics);
    }
    const auto T = static_cast<double>(m.horizon());
    maxent_bench::set_step_counters(state, static_cast<double>(batch) * T);
    state.counters["S"] = static_cast<double>(m.num_states());
    state.counters["T"] = T;
    state.counters["N"] = static_cast<double>(batch);
    state.counters["track_belief_entropy"] = track ? 1.0 : 0.0;
    state.counters["true_entropy_end"] = k > tail_begin ? tail_sum / static_cast<double>(k - tail_begin) : 0.0;
    state.SetLabel(maxent_bench::describe(m) + " N=10 BA exact-filter batch-mean alpha=0.3 track_belief_entropy=" +
                   (track ? "1" : "0"));
}

template <class F>
void register_feedback(const std::string& problem, const maxent::GridPomdp& m, const std::string& feedback_name,
                       const F& feedback) {
    const benchmark::IterationCount K = maxent_bench::quick_mode() ? 2000 : 12000;
    for (const bool track : {false, true}) {
        const std::string name =
            "iteration/" + problem + "/" + feedback_name + "/track_belief_entropy:" + (track ? "1" : "0");
        benchmark::RegisterBenchmark(name.c_str(),
                                     [&m, feedback, track](benchmark::State& state) {
                                         iteration_benchmark(state, m, feedback, track);
                                     })
            ->Iterations(K)
            ->Unit(benchmark::kMicrosecond);
    }
}

void register_problem(const std::string& problem, const maxent::GridPomdp& m) {
    register_feedback(problem, m, "mse", maxent::MSE{});
    register_feedback(problem, m, "moe", maxent::MOE{});
    register_feedback(problem, m, "mbe", maxent::MBE{});
    register_feedback(problem, m, "reg-mbe", maxent::RegMBE(rho));
}

const bool registered = [] {
    static const maxent::GridPomdp room = maxent_bench::single_room_5x5(10.0);
    static const maxent::GridPomdp rooms = maxent_bench::four_rooms_6x6(0.1);
    register_problem("room5x5_k10", room);
    register_problem("rooms6x6_k0.1", rooms);
    return true;
}();

}  // namespace
