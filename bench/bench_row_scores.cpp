// Benchmark: one training iteration with dense against row-sparse scores.
//
// What one benchmark iteration is: `Trainer::iterate()` of the real Trainer (constructed
// once per benchmark run, learning across iterations): N = 10 rollouts of T steps on an
// 80 x 80 single room (S = 6400, deterministic moves, Gaussian observations k = 10, the
// exact Bayes filter, which tracks the belief's support there), MSE, the batch-mean
// baseline, and a constant step α = 0.3 (or Adam / lazy Adam, α = 0.05). The two paths
// give the same bits (tests/unit/test_row_sparse_scores.cpp); `dense` forces the dense
// scores (one S x A matrix per trajectory), `rows` the row-sparse ones (the trainer's
// automatic choice takes them when θ has at least 8 N K rows: on the 320 x 320 room with
// T = 100, not on the 80 x 80 one).
//
// Names: rowscores/room<side>_T<T>/<policy>/<step>/<path>, policy BA (logit form),
// mixture or S~ (believed state). Counters: S, T, N, rows_path (1 when the trainer took
// the row path), true_entropy_end (last iteration's batch mean, a sanity check).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/belief_mixture.hpp"
#include "maxent/policy/believed_state_policy.hpp"

namespace {

constexpr std::size_t batch = 10;

maxent::GridPomdp room(std::size_t side, std::size_t horizon) {
    return maxent::make_grid_world({.layout = maxent::GridLayout::single_room(side, side),
                                    .slip = 0.0,
                                    .observation = maxent::observe::gaussian(10.0),
                                    .horizon = horizon});
}

template <class P, class R>
void run(benchmark::State& state, const maxent::GridPomdp& m, P policy, R step, maxent::ScorePath path) {
    maxent::TrainerConfig config;
    config.iterations = static_cast<std::size_t>(state.max_iterations);
    config.batch = batch;
    config.seed = 0;
    config.track_belief_entropy = false;
    config.scores = path;
    maxent::Trainer trainer(m, maxent::BayesFilter(m), std::move(policy), maxent::MSE{}, maxent::BatchMeanBaseline{},
                            std::move(step), config);
    double last = 0.0;
    for (auto _ : state) {
        const maxent::IterationMetrics metrics = trainer.iterate();
        last = metrics.true_entropy;
        benchmark::DoNotOptimize(metrics);
    }
    const auto T = static_cast<double>(m.horizon());
    maxent_bench::set_step_counters(state, static_cast<double>(batch) * T);
    state.counters["S"] = static_cast<double>(m.num_states());
    state.counters["T"] = T;
    state.counters["N"] = static_cast<double>(batch);
    state.counters["rows_path"] = trainer.uses_row_scores() ? 1.0 : 0.0;
    state.counters["true_entropy_end"] = last;
}

template <class MakePolicy, class MakeStep>
void add(const std::string& problem, const maxent::GridPomdp& m, const std::string& policy, MakePolicy make_policy,
         const std::string& step, MakeStep make_step, benchmark::IterationCount K) {
    for (const auto& [path_name, path] : {std::pair{"dense", maxent::ScorePath::dense},
                                          std::pair{"rows", maxent::ScorePath::rows}}) {
        const std::string name = "rowscores/" + problem + "/" + policy + "/" + step + "/" + path_name;
        const maxent::ScorePath p = path;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [&m, make_policy, make_step, p](benchmark::State& state) {
                                         run(state, m, make_policy(m), make_step(), p);
                                     })
            ->Iterations(K)
            ->Unit(benchmark::kMicrosecond);
    }
}

const bool registered = [] {
    const bool quick = maxent_bench::quick_mode();
    static const maxent::GridPomdp room80_T100 = room(80, 100);
    static const maxent::GridPomdp room80_T1000 = room(80, 1000);
    const auto ba = [](const maxent::GridPomdp& m) { return maxent::BeliefAveragedPolicy(m.num_states(), 4); };
    const auto mix = [](const maxent::GridPomdp& m) { return maxent::BeliefMixturePolicy(m.num_states(), 4); };
    const auto st = [](const maxent::GridPomdp& m) { return maxent::BelievedStatePolicy(m.num_states(), 4); };
    const auto constant = [] { return maxent::ConstantStep(0.3); };
    const auto adam = [] { return maxent::Adam(0.05); };
    const auto lazy = [] { return maxent::LazyAdam(0.05); };
    const benchmark::IterationCount K = quick ? 5 : 30;
    static const maxent::GridPomdp room320_T100 = room(320, 100);
    add("room80_T100", room80_T100, "BA", ba, "constant", constant, K);
    add("room320_T100", room320_T100, "BA", ba, "constant", constant, K);
    add("room320_T100", room320_T100, "S~", st, "constant", constant, K);
    add("room320_T100", room320_T100, "S~", st, "lazy-adam", lazy, K);
    add("room80_T1000", room80_T1000, "BA", ba, "constant", constant, K);
    add("room80_T1000", room80_T1000, "BA", ba, "adam", adam, K);
    add("room80_T1000", room80_T1000, "mixture", mix, "constant", constant, K);
    add("room80_T1000", room80_T1000, "S~", st, "constant", constant, K);
    add("room80_T1000", room80_T1000, "S~", st, "adam", adam, K);
    add("room80_T1000", room80_T1000, "S~", st, "lazy-adam", lazy, K);
    return true;
}();

}  // namespace
