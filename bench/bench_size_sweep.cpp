// Benchmark: cost of one environment step, of one training iteration and of building the
// model against the problem size S. Targets: time per step no faster-growing than linear in S,
// and for S = 10^6 a model built in under 10 s, one iteration (N = 10, T = 1000) under 50 ms,
// peak memory under 2 GiB (docs/performance.md, "Cost against problem size").
//
// Problems: single rooms of side 5, 10, 20, 40, 80, 160, 320, 640, 1000 (S = 25 .. 10^6),
// deterministic, Gaussian observations with precision k = 10 and the default sparse
// threshold of maxent/model/grid_observations.hpp (at most 21 entries per row for k = 10),
// horizon T = 1000 for every side (only S varies), start (0, 0), BA policy, exact Bayes
// filter (with its belief support), MSE feedback, paper state counting.
//
// Three families:
//   sweep/iteration/side:W  one Trainer::iterate() (N = 10 rollouts + feedbacks + batch-mean
//                           estimator + constant step α = 0.3); steps = N · T = 10,000.
//   sweep/rollout/side:W    one Sampler::run (one trajectory, uniform BA policy θ = 0);
//                           steps = T.
//   sweep/construct/side:W  make_grid_world of the room (transitions, observations,
//                           validation, transposes, running sums, label maps).
// Sides from 160 on run a fixed number of iterations. A benchmark whose estimated memory
// (resident set after building the model + the trainer's dense score buffers, if it keeps
// them) exceeds MAXENT_BENCH_MAX_MB (default 2048) is skipped with a message saying so.
// scripts/bench.sh fits log(time per step) against log(S) by least squares.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
#include "maxent/policy/row_score.hpp"

namespace {

constexpr std::size_t horizon = 1000;
constexpr double precision = 10.0;
constexpr std::size_t batch = 10;
/// Does the trainer keep row-sparse scores for the BA policy (else one dense S x A score matrix
/// per trajectory, N · S · A · 8 bytes: 320 MB at S = 10^6; the counter dense_scores says)?
constexpr bool row_sparse_scores = maxent::RowSparsePolicy<maxent::BeliefAveragedPolicy>;

/// Bytes of every sparse matrix and running sum the model stores: each matrix, its
/// transpose (same size) and its running sums (one double per entry); the first-observation
/// matrix when it is not the observation matrix itself.
double model_mb(const maxent::GridPomdp& m) {
    auto stored = [](const maxent::SparseMatrix& x) {
        return 2.0 * maxent_bench::sparse_bytes(x) + static_cast<double>(x.nonZeros()) * sizeof(double);
    };
    double bytes = stored(m.observation_matrix(0));
    for (std::size_t a = 0; a < m.num_actions(); ++a) bytes += stored(m.transition_matrix(a));
    if (&m.initial_observation_matrix() != &m.observation_matrix(0))
        bytes += maxent_bench::sparse_bytes(m.initial_observation_matrix()) +
                 static_cast<double>(m.initial_observation_matrix().nonZeros()) * sizeof(double);
    return bytes / (1024.0 * 1024.0);
}

/// MAXENT_BENCH_MAX_MB, or 2048.
double memory_limit_mb() {
    const char* v = std::getenv("MAXENT_BENCH_MAX_MB");
    if (v == nullptr || v[0] == '\0') return 2048.0;
    return std::strtod(v, nullptr);
}

/// Skips the benchmark (true) when the resident set now plus `extra_mb` exceeds the limit.
bool skip_if_too_big(benchmark::State& state, std::size_t S, double extra_mb, const char* what) {
    const double estimate = maxent_bench::current_rss_mb() + extra_mb;
    const double limit = memory_limit_mb();
    if (estimate <= limit) return false;
    const std::string message = "S = " + std::to_string(S) + ": " + what + " would need about " +
                                std::to_string(static_cast<long long>(extra_mb)) + " MB more (" +
                                std::to_string(static_cast<long long>(estimate)) +
                                " MB in all), above MAXENT_BENCH_MAX_MB = " +
                                std::to_string(static_cast<long long>(limit)) +
                                "; skipped (raise the limit, or rerun with row-sparse BA scores)";
    state.SkipWithError(message.c_str());
    return true;
}

/// Counters: the step counters of common.hpp (items_per_second = steps per second,
/// time_per_step), S, T, side; peak_rss_MB = the peak resident set size (VmHWM) during this
/// benchmark (reset through /proc/self/clear_refs when it starts; peak_reset says whether that
/// worked, otherwise the peak is the process's so far); rss_start_MB = the resident set when
/// the benchmark started (what earlier benchmarks left to the allocator included: its own
/// growth is peak - start); model_MB = bytes of every sparse matrix and running sum the model
/// stores (label maps not included); obs_nnz_per_row; dense_scores.
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
    state.counters["dense_scores"] = row_sparse_scores ? 0.0 : 1.0;
    state.SetLabel(maxent_bench::describe(m) + " k=10 det. BA exact-filter MSE " +
                   (row_sparse_scores ? "row-sparse scores" : "dense scores"));
}

void BM_sweep_iteration(benchmark::State& state) {
    const bool peak_reset = maxent_bench::reset_peak_rss();
    const double rss_start = maxent_bench::current_rss_mb();
    const auto side = static_cast<std::size_t>(state.range(0));
    const maxent::GridPomdp m = maxent_bench::square_room(side, precision, horizon);
    const double dense_mb = row_sparse_scores ? 0.0
                                              : static_cast<double>((batch + 3) * m.num_states() * m.num_actions()) *
                                                    sizeof(double) / (1024.0 * 1024.0);
    if (skip_if_too_big(state, m.num_states(), dense_mb, "the trainer's dense S x A scores (N + 3 matrices)"))
        return;
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
    const double dense_mb =
        static_cast<double>(2 * m.num_states() * m.num_actions()) * sizeof(double) / (1024.0 * 1024.0);
    if (skip_if_too_big(state, m.num_states(), dense_mb, "θ and one dense S x A score")) return;
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

void BM_sweep_construct(benchmark::State& state) {
    const bool peak_reset = maxent_bench::reset_peak_rss();
    const double rss_start = maxent_bench::current_rss_mb();
    const auto side = static_cast<std::size_t>(state.range(0));
    double mb = 0.0, nnz_per_row = 0.0;
    std::size_t S = 0;
    for (auto _ : state) {
        const maxent::GridPomdp m = maxent_bench::square_room(side, precision, horizon);
        benchmark::DoNotOptimize(m.observation_matrix(0).valuePtr());
        state.PauseTiming();
        S = m.num_states();
        mb = model_mb(m);
        nnz_per_row = static_cast<double>(m.observation_matrix(0).nonZeros()) / static_cast<double>(S);
        state.ResumeTiming();
    }  // the model is destroyed inside the timed region: building includes giving the memory back
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(S));  // states per second
    state.counters["S"] = static_cast<double>(S);
    state.counters["side"] = static_cast<double>(side);
    state.counters["time_per_state"] = benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(S),
                                                          benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["peak_rss_MB"] = maxent_bench::peak_rss_mb();
    state.counters["peak_reset"] = peak_reset ? 1.0 : 0.0;
    state.counters["rss_start_MB"] = rss_start;
    state.counters["model_MB"] = mb;
    state.counters["obs_nnz_per_row"] = nnz_per_row;
    state.SetLabel("single room " + std::to_string(side) + " x " + std::to_string(side) + ", k=10, det.");
}

/// Registers `name` for sides 5 .. 80 (Google Benchmark's own iteration count) and, one
/// registration per side since Iterations() is per benchmark, for sides 160, 320, 640 and
/// 1000 with `fixed[i]` iterations (1 in quick mode), so that the sweep takes minutes.
void register_family(const char* name, void (*fn)(benchmark::State&), const std::size_t (&fixed)[4]) {
    constexpr int big_sides[] = {160, 320, 640, 1000};
    auto* small = benchmark::RegisterBenchmark(name, fn);
    for (const int side : {5, 10, 20, 40, 80}) small->Arg(side);
    small->ArgName("side")->Unit(benchmark::kMicrosecond);
    if (maxent_bench::quick_mode()) small->MinTime(0.05);
    for (std::size_t i = 0; i < 4; ++i) {
        const auto n = static_cast<benchmark::IterationCount>(maxent_bench::quick_mode() ? 1 : fixed[i]);
        benchmark::RegisterBenchmark(name, fn)
            ->Arg(big_sides[i])
            ->ArgName("side")
            ->Unit(benchmark::kMicrosecond)
            ->Iterations(n);
    }
}

// Iterations per big side (160, 320, 640, 1000).
constexpr std::size_t iteration_counts[] = {20, 10, 5, 3};
constexpr std::size_t rollout_counts[] = {100, 50, 20, 10};
constexpr std::size_t construct_counts[] = {20, 10, 3, 2};

const bool registered = [] {
    register_family("sweep/construct", BM_sweep_construct, construct_counts);
    register_family("sweep/iteration", BM_sweep_iteration, iteration_counts);
    register_family("sweep/rollout", BM_sweep_rollout, rollout_counts);
    return true;
}();

}  // namespace
