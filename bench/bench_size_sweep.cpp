// Benchmark: cost of one environment step against the problem size (issue 5: "time per
// step grows no faster than linearly in S; for S = 6400 the step costs under 50 µs").
//
// Problems: single rooms of side 5, 10, 20, 40, 80 (S = 25 .. 6400), deterministic,
// Gaussian observations with precision k = 10 and the default sparse threshold of
// maxent/model/grid_observations.hpp (entries with weight below 1e-12 of the row's largest
// dropped, rows renormalised: at most 21 entries per row for k = 10), horizon T = 100
// (fixed for the sweep), start (0, 0), BA policy, exact Bayes filter, MSE feedback, paper
// state counting.
//
// Two families, both reported per environment step:
//   sweep/iteration/side:W  one Trainer::iterate() (N = 10 rollouts + feedbacks +
//                           batch-mean estimator + constant step α = 0.3, track_belief_entropy
//                           off) per benchmark iteration; steps = N · T = 1000. Everything
//                           included: the O(S · A) estimator and step are amortised over the
//                           N · T steps.
//   sweep/rollout/side:W    one Sampler::run (one trajectory, T counted steps) with the
//                           uniform BA policy (θ = 0) per benchmark iteration; steps = T.
//
// Counters: the step counters of common.hpp (items_per_second = steps per second,
// time_per_step), S, T, side; peak_rss_MB = the peak resident set size (VmHWM) during this
// benchmark (VmHWM is reset through /proc/self/clear_refs when the benchmark starts; the
// counter peak_reset says whether that worked, otherwise the peak is the process's so
// far; rss_start_MB is the resident set when the benchmark started, including what earlier
// benchmarks left to the allocator, so the benchmark's own growth is peak - start); model_MB = bytes of the model's sparse matrices; obs_nnz_per_row.
// The script fits log(time per step) against log(S) by least squares (scripts/bench.sh).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>

#include <Eigen/Core>

#include "common.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

constexpr std::size_t horizon = 100;
constexpr double precision = 10.0;
constexpr std::size_t batch = 10;

double model_mb(const maxent::GridPomdp& m) {
    double bytes = maxent_bench::sparse_bytes(m.observation_matrix(0));
    for (std::size_t a = 0; a < m.num_actions(); ++a) bytes += maxent_bench::sparse_bytes(m.transition_matrix(a));
    return bytes / (1024.0 * 1024.0);
}

void size_counters(benchmark::State& state, const maxent::GridPomdp& m, std::size_t side, bool peak_reset,
                   double rss_start, double steps_per_iteration) {
    maxent_bench::set_step_counters(state, steps_per_iteration);
    state.counters["S"] = static_cast<double>(m.num_states());
    state.counters["T"] = static_cast<double>(m.horizon());
    state.counters["side"] = static_cast<double>(side);
    state.counters["peak_rss_MB"] = maxent_bench::peak_rss_mb();
    state.counters["peak_reset"] = peak_reset ? 1.0 : 0.0;
    state.counters["rss_start_MB"] = rss_start;
    state.counters["model_MB"] = model_mb(m);
    state.counters["obs_nnz_per_row"] = static_cast<double>(m.observation_matrix(0).nonZeros()) /
                                        static_cast<double>(m.num_states());
    state.SetLabel(maxent_bench::describe(m) + " k=10 det. BA exact-filter MSE");
}

void BM_sweep_iteration(benchmark::State& state) {
    const bool peak_reset = maxent_bench::reset_peak_rss();
    const double rss_start = maxent_bench::current_rss_mb();
    const auto side = static_cast<std::size_t>(state.range(0));
    const maxent::GridPomdp m = maxent_bench::square_room(side, precision, horizon);
    maxent::TrainerConfig config;
    config.iterations = 1'000'000;  // iterate() is called by the benchmark loop, not run()
    config.batch = batch;
    config.seed = 0;
    config.track_belief_entropy = false;
    maxent::Trainer trainer(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()),
                            maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    for (auto _ : state) {
        const maxent::IterationMetrics metrics = trainer.iterate();
        benchmark::DoNotOptimize(metrics);
    }
    size_counters(state, m, side, peak_reset, rss_start, static_cast<double>(batch * horizon));
}

void BM_sweep_rollout(benchmark::State& state) {
    const bool peak_reset = maxent_bench::reset_peak_rss();
    const double rss_start = maxent_bench::current_rss_mb();
    const auto side = static_cast<std::size_t>(state.range(0));
    const maxent::GridPomdp m = maxent_bench::square_room(side, precision, horizon);
    maxent::Sampler sampler(m, maxent::BayesFilter(m), maxent::RolloutOptions{});
    maxent::BeliefAveragedPolicy policy(m.num_states(), m.num_actions());
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m.num_states()),
                                                  static_cast<Eigen::Index>(m.num_actions()));
    std::size_t run = 0;
    for (auto _ : state) {
        maxent::DefaultRng g = maxent::stream(0, run++, 0);
        const maxent::Trajectory& t = sampler.run(policy, g, score);
        benchmark::DoNotOptimize(t.states.data());
    }
    size_counters(state, m, side, peak_reset, rss_start, static_cast<double>(horizon));
}

void sides(benchmark::internal::Benchmark* b) {
    for (const int side : {5, 10, 20, 40, 80}) b->Arg(side);
    b->ArgName("side")->Unit(benchmark::kMicrosecond);
    if (maxent_bench::quick_mode()) b->MinTime(0.05);
}

}  // namespace

BENCHMARK(BM_sweep_iteration)->Name("sweep/iteration")->Apply(sides);
BENCHMARK(BM_sweep_rollout)->Name("sweep/rollout")->Apply(sides);
