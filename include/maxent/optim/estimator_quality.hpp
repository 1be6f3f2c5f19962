// maxent/optim/estimator_quality.hpp — how good is a gradient estimator? One call measures
// any estimator (optim/estimators.hpp, or the user's) against the EXACT gradient
// (objective/exact.hpp) on a model small enough to enumerate.
//
// Given the model, a deterministic belief updater, a differentiable policy at its θ, a
// feedback and a configuration (batch N, repetitions R, seed, threads), the estimator is
// called R times, each time on a fresh batch of N trajectories sampled at θ, and the R
// estimates ĝ_1 .. ĝ_R are compared with ∇J(θ) (bias, its standard error, covariance,
// cosines: EstimatorQuality). Mean and covariance are accumulated in order of r (Welford), so
// an estimator that always returns ∇J has bias 0 and covariance 0 exactly.
//
// Common random numbers: trajectory n of repetition r draws only from stream(seed, r, n),
// whatever the estimator, as iteration k of the trainer draws from stream(seed, k, n); so
// compare_estimators, which hands every estimator the SAME R batches, gives paired
// comparisons. Estimators that opt into per-step information receive the per-step scores and
// iteration = r. Results other than the times are identical for any number of threads:
// batches are sampled in parallel in bounded chunks (64 MiB, or one repetition; checked
// against max_buffer_bytes), then each estimator is called on them in order of r, so it may
// keep state across calls. Row-sparse policies whose parameters may grow (class B) are not
// supported; those with fixed parameters are sampled with their dense scores.
//
// For worlds exact_objective cannot enumerate (continuous actions or states), the forms taking
// an ExactResult `reference` measure against the caller's J(θ) and ∇J(θ) (closed form or
// numerical integration) with any Environment, updater and differentiable policy.
//
// Errors: config_error for N = 0, R < 2, ∇J = 0 (relative bias and cosines are undefined),
// an estimate whose shape is not θ's; numeric_error for a non-finite estimate; and whatever
// exact_objective throws (budget_error above max_leaves).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/finite.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/step_scores.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_recording.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

struct QualityConfig {
    std::size_t batch = 10;                          ///< N trajectories per estimate
    std::size_t repetitions = 1000;                  ///< R estimates (>= 2)
    std::uint64_t seed = 0;                          ///< trajectory n of repetition r: stream(seed, r, n)
    std::size_t threads = 1;                         ///< sampling threads (0 = all); results do not depend on it
    StateCounting counting = StateCounting::paper;   ///< for the rollouts and the exact gradient
    std::size_t max_leaves = ExactOptions{}.max_leaves;  ///< the exact enumeration's budget

    /// Throws config_error naming the field.
    void validate() const {
        if (batch == 0) throw config_error("QualityConfig: batch (N) must be >= 1, got 0");
        if (repetitions < 2)
            throw config_error(detail::message("QualityConfig: repetitions (R) must be >= 2 to estimate a "
                                               "covariance, got ",
                                               repetitions));
    }
};

/// One estimator's quality against the exact gradient (see the header for the definitions).
struct EstimatorQuality {
    std::string name;             ///< the estimator's name(), or "estimator i"
    std::size_t batch = 0;        ///< N
    std::size_t repetitions = 0;  ///< R
    double objective = 0.0;       ///< the exact J(θ)
    double gradient_norm = 0.0;   ///< ‖∇J(θ)‖
    Eigen::MatrixXd mean_estimate;  ///< mean of the R estimates
    double bias_norm = 0.0;            ///< ‖mean ĝ − ∇J‖ (Frobenius)
    double bias_standard_error = 0.0;  ///< sqrt(trace Cov ĝ / R): bias_norm from sampling noise alone for an
                                       ///< unbiased estimator (a few of these = no detectable bias)
    double relative_bias = 0.0;        ///< bias_norm / ‖∇J‖
    double covariance_trace = 0.0;     ///< Σ_j Var ĝ_j (divisor R − 1)
    double mean_cosine = 0.0;          ///< mean over r of cos(ĝ_r, ∇J) (0 for ĝ_r = 0)
    double cosine_of_mean = 0.0;       ///< cos(mean ĝ, ∇J) (0 for mean ĝ = 0)
    double zero_fraction = 0.0;        ///< fraction of estimates that are exactly 0
    double seconds_per_estimate = 0.0;       ///< wall time of one estimator call (varies between runs)
    double rollout_seconds_per_batch = 0.0;  ///< N rollouts and feedbacks (varies between runs)
};

namespace detail {

/// Running statistics of one estimator's estimates, in order of r.
struct QualityAccumulator {
    Eigen::MatrixXd mean, m2, delta;
    double cosine_sum = 0.0;
    std::size_t zeros = 0;
    std::size_t count = 0;
    double seconds = 0.0;

    void add(const Eigen::MatrixXd& x, const Eigen::MatrixXd& exact, double exact_norm) {
        if (count == 0) {
            mean.setZero(x.rows(), x.cols());
            m2.setZero(x.rows(), x.cols());
            delta.setZero(x.rows(), x.cols());
        }
        ++count;
        delta = x - mean;
        mean += delta / static_cast<double>(count);
        m2.array() += delta.array() * (x - mean).array();
        const double norm = norm_without_overflow(x);
        if (norm == 0.0)
            ++zeros;
        else
            cosine_sum += x.cwiseProduct(exact).sum() / norm / exact_norm;
    }
};

/// One thread's sampling state: its own copies of the updater (in the Sampler), policy and
/// feedback.
template <class M, class U, class P, class F>
struct QualityWorker {
    Sampler<M, U> sampler;
    P policy;
    F feedback;
};

/// An estimator's name(), static or not (a run-time box), else "estimator <i>".
template <class E>
std::string estimator_label(const E& e, std::size_t i) {
    if constexpr (requires { { e.name() } -> std::convertible_to<std::string_view>; })
        return std::string(std::string_view(e.name()));
    else
        return detail::message("estimator ", i);
}

/// `exact`: the reference J(θ) and ∇J(θ) (exact_objective's, or the caller's).
template <class M, class U, class P, class F, class... E>
std::vector<EstimatorQuality> measure_estimators(const M& model, const U& updater, const P& policy,
                                                 const F& feedback, const QualityConfig& config,
                                                 const ExactResult& exact, E&... estimators) {
    const Eigen::MatrixXd& g = exact.gradient;
    if (g.rows() != policy.parameters().rows() || g.cols() != policy.parameters().cols())
        throw config_error(detail::message("estimator_quality: the reference gradient is ", g.rows(), " x ", g.cols(),
                                           ", the policy's parameters ", policy.parameters().rows(), " x ",
                                           policy.parameters().cols()));
    if (!g.allFinite() || !std::isfinite(exact.objective))
        throw config_error(detail::message("estimator_quality: the reference objective or gradient is not finite "
                                           "(J = ", exact.objective, ")"));
    const double g_norm = norm_without_overflow(g);
    if (!(g_norm > 0.0))
        throw config_error(detail::message("estimator_quality: the exact gradient is 0 at this θ (J = ", exact.objective,
                                           "), so relative bias and cosines are undefined; choose another θ"));

    const std::size_t N = config.batch;
    const std::size_t R = config.repetitions;
    const std::size_t K = Trajectory::actions_for(config.counting, model.horizon());
    const bool steps_wanted = (estimator_wants_steps(estimators) || ...);
    const auto size = static_cast<std::size_t>(g.size());
    BufferCost one;  // one repetition's batch
    one.add({N}, sizeof(double)).add({N, size}, sizeof(double));
    if (steps_wanted) one.add({N, K, size}, sizeof(double));
    constexpr std::size_t chunk_bytes = std::size_t{64} << 20;
    const std::size_t chunk =
        one.overflowed() ? 1 : std::min(R, std::max<std::size_t>(1, chunk_bytes / std::max<std::size_t>(1, one.bytes())));
    BufferCost all;
    all.add({chunk, N}, sizeof(double)).add({chunk, N, size}, sizeof(double));
    if (steps_wanted) all.add({chunk, N, K, size}, sizeof(double));
    check_buffer_budget(all, "estimator_quality: the batches of ", chunk, " repetitions of N = ", N,
                        " trajectories");

    std::vector<double> feedbacks(chunk * N, 0.0);
    std::vector<Eigen::MatrixXd> scores(chunk * N, Eigen::MatrixXd::Zero(g.rows(), g.cols()));
    std::vector<Eigen::MatrixXd> steps(steps_wanted ? chunk * N * K : 0, Eigen::MatrixXd::Zero(g.rows(), g.cols()));
    const std::size_t workers = std::min(chunk, config.threads == 0 ? hardware_threads() : config.threads);
    std::vector<QualityWorker<M, U, P, F>> pool;
    pool.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        pool.push_back({Sampler<M, U>(model, updater, RolloutOptions{config.counting, feedback.needs()}), policy,
                        feedback});

    constexpr std::size_t count = sizeof...(E);
    std::vector<QualityAccumulator> stats(count);
    double rollout_seconds = 0.0;
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(g.rows(), g.cols());
    for (std::size_t first = 0; first < R; first += chunk) {
        const std::size_t here = std::min(chunk, R - first);
        const std::size_t used = std::min(workers, here);
        const std::vector<double> seconds = run_parallel(used, used, [&](std::size_t w) {
            const auto start = std::chrono::steady_clock::now();
            QualityWorker<M, U, P, F>& worker = pool[w];
            for (std::size_t i = w * here / used; i < (w + 1) * here / used; ++i)
                for (std::size_t n = 0; n < N; ++n) {
                    const std::size_t slot = i * N + n;
                    DefaultRng rng = stream(config.seed, first + i, n);
                    const Trajectory* t = nullptr;
                    if constexpr ((estimator_uses_steps<E> || ...)) {
                        if (steps_wanted) {
                            StepRecordingView<P> view(worker.policy,
                                                      std::span<Eigen::MatrixXd>(steps).subspan(slot * K, K));
                            t = &worker.sampler.run(view, rng, scores[slot]);
                        }
                    }
                    if (t == nullptr) t = &worker.sampler.run(worker.policy, rng, scores[slot]);
                    feedbacks[slot] = worker.feedback(*t, rng);
                    require_finite(feedbacks[slot], "estimator_quality: feedback of trajectory ", n,
                                   " of repetition ", first + i);
                }
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });
        for (const double s : seconds) rollout_seconds += s;

        std::size_t which = 0;
        auto measure = [&](auto& estimator) {
            QualityAccumulator& acc = stats[which];
            for (std::size_t i = 0; i < here; ++i) {
                const std::span<const double> f(feedbacks.data() + i * N, N);
                const std::span<const Eigen::MatrixXd> s(scores.data() + i * N, N);
                const StepScores step_scores{first + i, K,
                                             steps_wanted ? std::span<const Eigen::MatrixXd>(steps).subspan(i * N * K, N * K)
                                                          : std::span<const Eigen::MatrixXd>()};
                const auto start = std::chrono::steady_clock::now();
                run_estimator(estimator, f, s, &step_scores, out);
                acc.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                if (out.rows() != g.rows() || out.cols() != g.cols())
                    throw config_error(detail::message("estimator_quality: ", estimator_label(estimator, which),
                                                       " returned a ", out.rows(), " x ", out.cols(),
                                                       " estimate, the parameters are ", g.rows(), " x ", g.cols()));
                require_finite(out, "estimator_quality: estimate of ", estimator_label(estimator, which), " at repetition ",
                               first + i);
                acc.add(out, g, g_norm);
            }
            ++which;
        };
        (measure(estimators), ...);
    }

    std::vector<EstimatorQuality> results;
    results.reserve(count);
    std::size_t which = 0;
    auto finish = [&](auto& estimator) {
        const QualityAccumulator& acc = stats[which];
        EstimatorQuality q;
        q.name = estimator_label(estimator, which);
        q.batch = N;
        q.repetitions = R;
        q.objective = exact.objective;
        q.gradient_norm = g_norm;
        q.mean_estimate = acc.mean;
        const auto Rd = static_cast<double>(R);
        q.bias_norm = norm_without_overflow(acc.mean - g);
        q.covariance_trace = acc.m2.sum() / (Rd - 1.0);
        q.bias_standard_error = std::sqrt(q.covariance_trace / Rd);
        q.relative_bias = q.bias_norm / g_norm;
        q.mean_cosine = acc.cosine_sum / Rd;
        const double mean_norm = norm_without_overflow(acc.mean);
        q.cosine_of_mean = mean_norm > 0.0 ? acc.mean.cwiseProduct(g).sum() / mean_norm / g_norm : 0.0;
        q.zero_fraction = static_cast<double>(acc.zeros) / Rd;
        q.seconds_per_estimate = acc.seconds / Rd;
        q.rollout_seconds_per_batch = rollout_seconds / Rd;
        results.push_back(std::move(q));
        ++which;
    };
    (finish(estimators), ...);
    return results;
}

/// exact_objective's J(θ) and ∇J(θ), after validating the config.
template <class M, class U, class P, class F>
ExactResult exact_reference(const M& model, const U& updater, const P& policy, const F& feedback,
                            const QualityConfig& config) {
    config.validate();
    return exact_objective(model, updater, policy, feedback,
                           {.counting = config.counting, .max_leaves = config.max_leaves});
}

/// What the reference form (the caller's exact gradient) needs: any world the Sampler takes.
template <class M, class U, class P, class F>
consteval bool require_reference_quality_inputs() {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_differentiable_policy_for_actions<P, continuous_actions<M>>());
    static_assert(!RowSparsePolicy<P> || policy_has_fixed_parameters<P>,
                  "maxent::estimator_quality: row-sparse policies whose parameters may grow while sampling "
                  "(sample_rows without `fixed_parameters`) are not supported");
    static_assert(require_feedback<F>());
    return true;
}

template <class M, class U, class P, class F>
consteval bool require_quality_inputs() {
    static_assert(require_pomdp<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_deterministic_updater<U>());
    static_assert(require_differentiable_policy<P>());
    static_assert(!RowSparsePolicy<P> || policy_has_fixed_parameters<P>,
                  "maxent::estimator_quality: row-sparse policies whose parameters may grow while sampling "
                  "(sample_rows without `fixed_parameters`) are not supported");
    static_assert(require_feedback<F>());
    return true;
}

}  // namespace detail

/// Every estimator against the exact gradient on the SAME R batches (paired comparisons);
/// one result per estimator, in the order given. The estimators are copied and called in
/// order of r.
template <class M, class U, class P, class F, class... E>
[[nodiscard]] std::vector<EstimatorQuality> compare_estimators(const M& model, const U& updater, const P& policy,
                                                               const F& feedback, const QualityConfig& config,
                                                               E... estimators) {
    static_assert(detail::require_quality_inputs<M, U, P, F>());
    static_assert(sizeof...(E) >= 1, "maxent::compare_estimators: give at least one estimator");
    static_assert((require_gradient_estimator<E>() && ...));
    const ExactResult exact = detail::exact_reference(model, updater, policy, feedback, config);
    return detail::measure_estimators(model, updater, policy, feedback, config, exact, estimators...);
}

/// The same against the caller's reference J(θ) and ∇J(θ) (`reference.objective`,
/// `reference.gradient`, θ's shape), for a world exact_objective cannot enumerate: a
/// continuous-action or continuous-state world whose gradient the caller knows in closed form
/// or by numerical integration. Any Environment, updater and (index or continuous)
/// differentiable policy; config_error for a reference of another shape or not finite.
template <class M, class U, class P, class F, class... E>
[[nodiscard]] std::vector<EstimatorQuality> compare_estimators(const M& model, const U& updater, const P& policy,
                                                               const F& feedback, const ExactResult& reference,
                                                               const QualityConfig& config, E... estimators) {
    static_assert(detail::require_reference_quality_inputs<M, U, P, F>());
    static_assert(sizeof...(E) >= 1, "maxent::compare_estimators: give at least one estimator");
    static_assert((require_gradient_estimator<E>() && ...));
    config.validate();
    return detail::measure_estimators(model, updater, policy, feedback, config, reference, estimators...);
}

/// One estimator against the exact gradient (see the header).
template <class M, class U, class P, class F, class E>
[[nodiscard]] EstimatorQuality estimator_quality(const M& model, const U& updater, const P& policy,
                                                 const F& feedback, const QualityConfig& config, E estimator) {
    static_assert(detail::require_quality_inputs<M, U, P, F>());
    static_assert(require_gradient_estimator<E>());
    const ExactResult exact = detail::exact_reference(model, updater, policy, feedback, config);
    return detail::measure_estimators(model, updater, policy, feedback, config, exact, estimator).front();
}

/// One estimator against the caller's reference J(θ) and ∇J(θ) (see compare_estimators).
template <class M, class U, class P, class F, class E>
[[nodiscard]] EstimatorQuality estimator_quality(const M& model, const U& updater, const P& policy,
                                                 const F& feedback, const ExactResult& reference,
                                                 const QualityConfig& config, E estimator) {
    static_assert(detail::require_reference_quality_inputs<M, U, P, F>());
    static_assert(require_gradient_estimator<E>());
    config.validate();
    return detail::measure_estimators(model, updater, policy, feedback, config, reference, estimator).front();
}

}  // namespace maxent
