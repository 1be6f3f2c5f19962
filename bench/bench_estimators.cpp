// Benchmark: the gradient estimators (maxent/optim/estimators.hpp) against the EXACT
// gradient (maxent/objective/exact.hpp) on two small POMDPs, for batch sizes N = 1, 10, 100.
//
// Problems (both with the BA policy at a fixed non-uniform θ of independent standard
// normals, exact Bayes filter with uniform prior, paper state counting):
//   room3x3_k1_T4_mse   3 x 3 single room, deterministic, Gaussian observations k = 1 (all
//                       9 cells observable from every cell), start (0, 0), T = 4; feedback
//                       MSE; θ seed 31; trajectory seed 1001
//   tiger_T5_mbe        tiger: 2 states, 3 actions (listen keeps the state, opening a door
//                       resets it uniformly), listening reports the side with accuracy 0.85,
//                       μ uniform, T = 5; feedback Reg-MBE with ρ = 0.3; θ seed 32;
//                       trajectory seed 2002. (With plain MBE the tiger's gradient is almost
//                       0 and every cosine is noise; the regulariser makes listening matter.)
// ∇J is enumerated exactly once per problem.
//
// Each benchmark is one call of maxent::estimator_quality (optim/estimator_quality.hpp): R
// gradient estimates, each from N fresh trajectories (trajectory n of estimate r draws from
// stream(trajectory seed, r, n): every estimator sees the SAME trajectories), compared with
// ∇J. R = 4000 (400 in quick mode). Estimators: the four trajectory-level ones and
// PerStepBaseline (per-step information).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "common.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimator_quality.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

using TigerPomdp = maxent::FinitePomdp<int, int, int>;

TigerPomdp tiger(std::size_t horizon) {
    const Eigen::MatrixXd keep = Eigen::MatrixXd::Identity(2, 2);
    const Eigen::MatrixXd reset = Eigen::MatrixXd::Constant(2, 2, 0.5);
    Eigen::MatrixXd hear(2, 2);
    hear << 0.85, 0.15, 0.15, 0.85;
    const Eigen::MatrixXd blind = Eigen::MatrixXd::Constant(2, 2, 0.5);
    return TigerPomdp({0, 1}, {0, 1, 2}, {0, 1}, std::vector<Eigen::MatrixXd>{keep, reset, reset},
                      std::vector<Eigen::MatrixXd>{hear, blind, blind}, Eigen::VectorXd::Constant(2, 0.5), horizon);
}

maxent::BeliefAveragedPolicy random_policy(std::size_t S, std::size_t A, std::uint64_t seed) {
    maxent::BeliefAveragedPolicy policy(S, A);
    maxent::DefaultRng g(seed);
    Eigen::MatrixXd& theta = policy.parameters();
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
        for (Eigen::Index r = 0; r < theta.rows(); ++r) theta(r, c) = maxent::standard_normal(g);
    return policy;
}

/// A problem: model, feedback, policy at θ, its exact gradient and the trajectory seed.
template <class M, class F>
struct Problem {
    std::string name;
    M model;
    F feedback;
    maxent::BeliefAveragedPolicy policy;
    std::uint64_t seed;
    maxent::ExactResult exact;

    Problem(std::string n, M m, F f, std::uint64_t theta_seed, std::uint64_t trajectory_seed)
        : name(std::move(n)),
          model(std::move(m)),
          feedback(std::move(f)),
          policy(random_policy(model.num_states(), model.num_actions(), theta_seed)),
          seed(trajectory_seed),
          exact(maxent::exact_objective(model, policy, feedback, {.counting = maxent::StateCounting::paper})) {}
};

template <class E>
double expected_factor(std::size_t N) {
    if constexpr (std::is_same_v<E, maxent::BatchMeanBaseline>)
        return static_cast<double>(N - 1) / static_cast<double>(N);
    else
        return 1.0;
}

/// Counters: grad_norm ‖∇J‖ (Frobenius); bias_norm ‖mean(ĝ) − ∇J‖; rel_bias = bias_norm / ‖∇J‖;
/// bias_se = sqrt(trace(Cov ĝ) / R), the bias_norm sampling noise alone gives an unbiased
/// estimator (a few bias_se: no detectable bias); expected_factor c with E[ĝ] = c ∇J by
/// estimators.hpp ((N − 1)/N for the batch-mean baseline, 1 for the others); bias_vs_expected
/// ‖mean(ĝ) − c ∇J‖ (a few bias_se at most); variance_trace (divisor R − 1); cosine = mean of
/// cos(ĝ, ∇J) (0 when ĝ = 0); cosine_of_mean = cos(mean(ĝ), ∇J); zero_fraction = estimates
/// exactly 0; estimator_call = seconds per estimator call alone.
template <class M, class F, class E>
void estimator_benchmark(benchmark::State& state, const Problem<M, F>& p, std::size_t N, std::size_t R) {
    maxent::EstimatorQuality q;
    for (auto _ : state)
        q = maxent::estimator_quality(p.model, maxent::BayesFilter(p.model), p.policy, p.feedback,
                                      {.batch = N, .repetitions = R, .seed = p.seed}, E{});
    const double c = expected_factor<E>(N);
    state.SetItemsProcessed(static_cast<std::int64_t>(R));
    state.counters["trajectories_per_s"] =
        benchmark::Counter(static_cast<double>(R * N), benchmark::Counter::kIsRate);
    state.counters["N"] = static_cast<double>(N);
    state.counters["R"] = static_cast<double>(R);
    state.counters["S"] = static_cast<double>(p.model.num_states());
    state.counters["T"] = static_cast<double>(p.model.horizon());
    state.counters["grad_norm"] = q.gradient_norm;
    state.counters["bias_norm"] = q.bias_norm;
    state.counters["rel_bias"] = q.relative_bias;
    state.counters["bias_se"] = q.bias_standard_error;
    state.counters["expected_factor"] = c;
    state.counters["bias_vs_expected"] = (q.mean_estimate - c * p.exact.gradient).norm();
    state.counters["variance_trace"] = q.covariance_trace;
    state.counters["cosine"] = q.mean_cosine;
    state.counters["cosine_of_mean"] = q.cosine_of_mean;
    state.counters["zero_fraction"] = q.zero_fraction;
    state.counters["estimator_call"] = q.seconds_per_estimate;
    state.counters["exact_leaves"] = static_cast<double>(p.exact.leaves);
    state.SetLabel(maxent_bench::describe(p.model) + " " + p.name + " BA random-theta exact J=" +
                   std::to_string(q.objective));
}

template <class M, class F, class E>
void register_estimator(const Problem<M, F>& p) {
    const std::size_t R = maxent_bench::quick_mode() ? 400 : 4000;
    for (const std::size_t N : {std::size_t{1}, std::size_t{10}, std::size_t{100}}) {
        const std::string name = "estimator/" + p.name + "/" + std::string(E::name()) + "/N:" + std::to_string(N);
        benchmark::RegisterBenchmark(name.c_str(),
                                     [&p, N, R](benchmark::State& state) { estimator_benchmark<M, F, E>(state, p, N, R); })
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
    }
}

template <class M, class F>
void register_problem(const Problem<M, F>& p) {
    register_estimator<M, F, maxent::Reinforce>(p);
    register_estimator<M, F, maxent::BatchMeanBaseline>(p);
    register_estimator<M, F, maxent::LeaveOneOutBaseline>(p);
    register_estimator<M, F, maxent::OptimalBaseline>(p);
    register_estimator<M, F, maxent::PerStepBaseline>(p);
}

const bool registered = [] {
    static const Problem room("room3x3_k1_T4_mse", maxent_bench::square_room(3, 1.0, 4), maxent::MSE{}, 31, 1001);
    static const Problem tiger_problem("tiger_T5_regmbe", tiger(5), maxent::RegMBE(0.3), 32, 2002);
    register_problem(room);
    register_problem(tiger_problem);
    return true;
}();

}  // namespace
