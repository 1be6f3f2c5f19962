// maxent/optim/estimators.hpp — gradient estimators: how a batch of (feedback, score)
// pairs becomes a gradient estimate (Algorithm 1, line 6).
//
// With N trajectories, feedbacks F_n and scores g_n = Σ_t ∇_θ log π(a_t | i_t):
//   Reinforce            ĝ = (1/N) Σ_n F_n g_n                         (Algorithm 1 as printed)
//   BatchMeanBaseline    ĝ = (1/N) Σ_n (F_n - F̄) g_n                   (the authors' figures)
//   LeaveOneOutBaseline  ĝ = (1/N) Σ_n (F_n - F̄_{-n}) g_n,  F̄_{-n} = mean of the others
//   OptimalBaseline      per parameter j, b_{-n,j} = Σ_{m≠n} F_m g_mj² / Σ_{m≠n} g_mj²
//                        (the variance-minimising baseline of Greensmith et al. 2004,
//                        estimated from the other trajectories of the batch)
//   PerStepBaseline      per step t and parameter j (per-step information):
//                        ĝ = (1/N) Σ_n Σ_t (F_n - b_{-n,t,j}) g_{n,t,j}, b_{-n,t,j} =
//                        Σ_{m≠n} F_m g_{m,t,j}² / Σ_{m≠n} g_{m,t,j}²  (derived at the class)
// Reinforce, LeaveOneOut, Optimal and PerStep are unbiased: E[ĝ] = ∇J. BatchMean shares its
// baseline with the trajectory it multiplies, so E[ĝ] = (N - 1)/N ∇J (the direction is
// unbiased; LeaveOneOut = N/(N-1) × BatchMean exactly). With N = 1 the baselined
// estimators have no other trajectory: LeaveOneOut, Optimal and PerStep use baseline 0
// (= Reinforce) and BatchMean gives 0. Estimators may keep scratch buffers. A NaN or infinite
// feedback or score entry throws numeric_error naming it.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/finite.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/step_scores.hpp"

namespace maxent {

namespace concept_checks {
template <class E>
concept has_estimate = requires(E& e, std::span<const double> f, std::span<const Eigen::MatrixXd> s,
                                Eigen::MatrixXd& out) { e.estimate(f, s, out); };
}  // namespace concept_checks

/// GradientEstimator — required expression, for `E e`, spans of N doubles `f` and N score
/// matrices `s` (all of one shape) and a matrix `out`:
///   e.estimate(f, s, out)          out <- ĝ (resized to the score shape if needed)
/// or, for an estimator that opts into per-step information, instead (or as well):
///   e.estimate(f, s, steps, out)   with `const StepScores& steps` (core/step_scores.hpp):
///                                  steps.step(n, t) = ∇_θ log π(a_{t+1} | i_{t+1}) of
///                                  trajectory n, steps.iteration = the batch's index.
/// Callers give the second form to estimators that have it (estimator_uses_steps,
/// core/optional_members.hpp) and pay for the per-step buffers only then: the trainer on its dense
/// path (row-sparse policies have no per-step scores) and estimator_quality. An estimator
/// with both forms and `bool uses_steps() const` chooses at run time (estimator_wants_steps):
/// a box holding one of several estimators, so that one instantiation serves them all.
/// Optional: `static constexpr bool entrywise = true;` declares that the estimate at each
/// parameter depends only on the feedbacks and that parameter's N scores, and is 0 where
/// they are all 0 (true of the four trajectory-level ones). The trainer requires it for
/// row-sparse policies (policy/row_score.hpp), whose scores it passes restricted to the
/// rows they touch. Satisfied by the five estimators here.
template <class E>
concept GradientEstimator = concept_checks::has_estimate<E> || estimator_uses_steps<E>;

template <class E>
consteval bool require_gradient_estimator() {
    static_assert(concept_checks::has_estimate<E> || estimator_uses_steps<E>,
                  "maxent::GradientEstimator: missing `void estimate(std::span<const double> feedbacks, "
                  "std::span<const Eigen::MatrixXd> scores, Eigen::MatrixXd& out)` (or, with per-step "
                  "information, `void estimate(feedbacks, scores, const maxent::StepScores& steps, out)`)");
    static_assert(!estimator_chooses_steps<E> || concept_checks::has_estimate<E>,
                  "maxent::GradientEstimator: an estimator with `bool uses_steps() const` chooses at run time "
                  "whether it wants per-step scores, so it needs both `estimate(feedbacks, scores, out)` and "
                  "`estimate(feedbacks, scores, steps, out)`");
    return true;
}

/// Calls the estimator: with the per-step information when it wants it
/// (estimator_wants_steps; then `steps` must not be null), else without.
template <class E>
void run_estimator(E& e, std::span<const double> f, std::span<const Eigen::MatrixXd> s, const StepScores* steps,
                   Eigen::MatrixXd& out) {
    if constexpr (estimator_uses_steps<E>) {
        if (estimator_wants_steps(e)) {
            e.estimate(f, s, *steps, out);
            return;
        }
    }
    if constexpr (concept_checks::has_estimate<E>) e.estimate(f, s, out);
}

namespace detail {
inline void check_batch(std::span<const double> f, std::span<const Eigen::MatrixXd> s, const char* who) {
    if (f.empty()) throw config_error(detail::message(who, ": empty batch (N = 0)"));
    if (f.size() != s.size())
        throw config_error(detail::message(who, ": ", f.size(), " feedbacks but ", s.size(), " scores"));
    for (std::size_t n = 0; n < f.size(); ++n) {
        detail::require_finite(f[n], who, ": feedback ", n);
        if (s[n].rows() != s[0].rows() || s[n].cols() != s[0].cols())
            throw config_error(detail::message(who, ": score ", n, " is ", s[n].rows(), " x ", s[n].cols(),
                                               ", score 0 is ", s[0].rows(), " x ", s[0].cols()));
    }
}
/// After an estimate: a NaN or infinite score entry always makes the estimate's entry at
/// that position non-finite (c·NaN, c·inf and 0·inf are not finite, nor is any sum with
/// them), so the scores are scanned, to name the culprit, only when the estimate is not
/// finite: one pass over the parameters per batch instead of N. Also catches an estimate
/// that overflowed from finite inputs.
inline void check_estimate(std::span<const Eigen::MatrixXd> s, const Eigen::MatrixXd& out, const char* who) {
    if (out.allFinite()) return;
    for (std::size_t n = 0; n < s.size(); ++n) detail::require_finite(s[n], who, ": score ", n);
    detail::require_finite(out, who, ": estimate (overflow)");
}
inline void shape_like(Eigen::MatrixXd& out, const Eigen::MatrixXd& like) {
    if (out.rows() != like.rows() || out.cols() != like.cols()) out.resize(like.rows(), like.cols());
}
}  // namespace detail

/// ĝ = (1/N) Σ F_n g_n.
struct Reinforce {
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        detail::check_batch(f, s, "Reinforce");
        detail::shape_like(out, s[0]);
        out.setZero();
        for (std::size_t n = 0; n < f.size(); ++n) out += f[n] * s[n];
        out /= static_cast<double>(f.size());
        detail::check_estimate(s, out, "Reinforce");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "reinforce"; }
    static constexpr bool entrywise = true;
};

/// ĝ = (1/N) Σ (F_n - F̄) g_n (the authors' choice; E[ĝ] = (N-1)/N ∇J).
struct BatchMeanBaseline {
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        detail::check_batch(f, s, "BatchMeanBaseline");
        detail::shape_like(out, s[0]);
        double mean = 0.0;
        for (const double x : f) mean += x;
        mean /= static_cast<double>(f.size());
        out.setZero();
        for (std::size_t n = 0; n < f.size(); ++n) out += (f[n] - mean) * s[n];
        out /= static_cast<double>(f.size());
        detail::check_estimate(s, out, "BatchMeanBaseline");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "batch-mean"; }
    static constexpr bool entrywise = true;
};

/// ĝ = (1/N) Σ (F_n - F̄_{-n}) g_n (unbiased).
struct LeaveOneOutBaseline {
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        detail::check_batch(f, s, "LeaveOneOutBaseline");
        detail::shape_like(out, s[0]);
        const auto N = static_cast<double>(f.size());
        double total = 0.0;
        for (const double x : f) total += x;
        out.setZero();
        for (std::size_t n = 0; n < f.size(); ++n) {
            const double baseline = f.size() > 1 ? (total - f[n]) / (N - 1.0) : 0.0;
            out += (f[n] - baseline) * s[n];
        }
        out /= N;
        detail::check_estimate(s, out, "LeaveOneOutBaseline");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "leave-one-out"; }
    static constexpr bool entrywise = true;
};

/// Per-parameter variance-minimising baseline, leave-one-out (unbiased).
class OptimalBaseline {
public:
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) {
        detail::check_batch(f, s, "OptimalBaseline");
        detail::shape_like(out, s[0]);
        detail::shape_like(sum_sq_, s[0]);
        detail::shape_like(sum_f_sq_, s[0]);
        sum_sq_.setZero();
        sum_f_sq_.setZero();
        for (std::size_t n = 0; n < f.size(); ++n) {
            sum_sq_.array() += s[n].array().square();
            sum_f_sq_.array() += f[n] * s[n].array().square();
        }
        out.setZero();
        const Eigen::Index R = out.rows(), C = out.cols();
        for (std::size_t n = 0; n < f.size(); ++n) {
            const Eigen::MatrixXd& g = s[n];
            for (Eigen::Index c = 0; c < C; ++c)
                for (Eigen::Index r = 0; r < R; ++r) {
                    const double gj = g(r, c);
                    if (gj == 0.0) continue;
                    const double den = sum_sq_(r, c) - gj * gj;
                    // den is the sum of squares of the other scores, computed by cancellation:
                    // treat anything below 1e-12 of the total as zero (no other information).
                    const double baseline =
                        den > 1e-12 * sum_sq_(r, c) ? (sum_f_sq_(r, c) - f[n] * gj * gj) / den : 0.0;
                    out(r, c) += (f[n] - baseline) * gj;
                }
        }
        out /= static_cast<double>(f.size());
        detail::check_estimate(s, out, "OptimalBaseline");
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "optimal"; }
    static constexpr bool entrywise = true;

private:
    Eigen::MatrixXd sum_sq_;
    Eigen::MatrixXd sum_f_sq_;
};

/// Per-step, per-parameter baseline, leave-one-out (unbiased). Opts into per-step information;
/// not entry-wise in the trainer's sense (it needs per-step scores, which row-sparse policies
/// do not record).
///
/// Derivation. For one parameter j write g_t for step t's score entry, so the trajectory's
/// score is G = Σ_t g_t. Any b_t that does not depend on trajectory n keeps Σ_t (F - b_t) g_t
/// unbiased, since E[g_t | i_t] = 0 (the score of a draw has mean 0 given what the policy saw)
/// and F G = Σ_t F g_t. The second moment of Σ_t (F - b_t) g_t is Σ_t E[(F - b_t)² g_t²] plus
/// the cross-step terms Σ_{t≠u} E[(F - b_t)(F - b_u) g_t g_u]; minimising the per-step terms
/// gives b_t = E[F g_t²] / E[g_t²], the variance-minimising baseline of Greensmith et al.
/// (2004) applied to each step's score on its own (OptimalBaseline is the same with G in place
/// of g_t). Both expectations are estimated from the OTHER trajectories of the batch,
/// b_{-n,t} = Σ_{m≠n} F_m g_{m,t}² / Σ_{m≠n} g_{m,t}², a weighted mean of their feedbacks (so
/// it stays within their range), independent of trajectory n: ĝ stays unbiased. (With the
/// cross-step terms, b_t = E[F g_t G] / E[g_t²], whose numerator has no sign; estimated from
/// a batch of 10 it had more variance than REINFORCE on the tests' ring, so it is not used.)
class PerStepBaseline {
public:
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, const StepScores& steps,
                  Eigen::MatrixXd& out) {
        detail::check_batch(f, s, "PerStepBaseline");
        const std::size_t N = f.size();
        const std::size_t K = steps.steps;
        if (steps.scores.size() != N * K)
            throw config_error(detail::message("PerStepBaseline: ", steps.scores.size(), " step scores for N = ", N,
                                               " trajectories of K = ", K, " steps (expected ", N * K, ")"));
        for (std::size_t i = 0; i < steps.scores.size(); ++i)
            if (steps.scores[i].rows() != s[0].rows() || steps.scores[i].cols() != s[0].cols())
                throw config_error(detail::message("PerStepBaseline: step score ", i % (K == 0 ? 1 : K),
                                                   " of trajectory ", i / (K == 0 ? 1 : K), " is ",
                                                   steps.scores[i].rows(), " x ", steps.scores[i].cols(),
                                                   ", the scores are ", s[0].rows(), " x ", s[0].cols()));
        detail::shape_like(out, s[0]);
        out.setZero();
        const Eigen::Index P = out.size();
        if (num_.size() < K) {
            num_.resize(K);
            den_.resize(K);
        }
        for (std::size_t t = 0; t < K; ++t) {
            num_[t].setZero(P);
            den_[t].setZero(P);
        }
        for (std::size_t n = 0; n < N; ++n)
            for (std::size_t t = 0; t < K; ++t) {
                const double* g = steps.step(n, t).data();
                double* num = num_[t].data();
                double* den = den_[t].data();
                for (Eigen::Index j = 0; j < P; ++j) {
                    num[j] += f[n] * g[j] * g[j];
                    den[j] += g[j] * g[j];
                }
            }
        double* o = out.data();
        for (std::size_t n = 0; n < N; ++n) {
            for (std::size_t t = 0; t < K; ++t) {
                const double* g = steps.step(n, t).data();
                const double* num = num_[t].data();
                const double* den = den_[t].data();
                for (Eigen::Index j = 0; j < P; ++j) {
                    const double gj = g[j];
                    if (gj == 0.0) continue;
                    // The others' sum of squares, by cancellation: below 1e-12 of the total it
                    // is treated as zero (no other trajectory informs this step and parameter).
                    const double others = den[j] - gj * gj;
                    const double baseline = others > 1e-12 * den[j] ? (num[j] - f[n] * gj * gj) / others : 0.0;
                    o[j] += (f[n] - baseline) * gj;
                }
            }
        }
        out /= static_cast<double>(N);
        if (!out.allFinite()) {
            for (std::size_t i = 0; i < steps.scores.size(); ++i)
                detail::require_finite(steps.scores[i], "PerStepBaseline: step score ", i % K, " of trajectory ",
                                       i / K);
            detail::check_estimate(s, out, "PerStepBaseline");
        }
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "per-step"; }

private:
    std::vector<Eigen::VectorXd> num_;  // per step t: Σ_m F_m g_{m,t} ∘ g_{m,t}
    std::vector<Eigen::VectorXd> den_;  // per step t: Σ_m g_{m,t} ∘ g_{m,t}
};

}  // namespace maxent
