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
// Reinforce, LeaveOneOut and Optimal are unbiased: E[ĝ] = ∇J. BatchMean shares its
// baseline with the trajectory it multiplies, so E[ĝ] = (N - 1)/N ∇J (the direction is
// unbiased; LeaveOneOut = N/(N-1) × BatchMean exactly). With N = 1 the baselined
// estimators have no other trajectory: LeaveOneOut and Optimal use baseline 0 (= Reinforce)
// and BatchMean gives 0.
//
// GradientEstimator concept — required expression, for `E e`, spans of N doubles `f` and
// N score matrices `s` (all of one shape) and a matrix `out`:
//   e.estimate(f, s, out)     out <- ĝ (resized to the score shape if needed)
// Satisfied by the four estimators here. Estimators may keep scratch buffers. A NaN or
// infinite feedback or score entry throws numeric_error naming it.
// Optional: `static constexpr bool entrywise = true;` declares that the estimate at each
// parameter depends only on the feedbacks and that parameter's N scores, and is 0 where
// they are all 0 (true of the four here). The trainer requires it for row-sparse policies
// (policy/row_score.hpp), whose scores it passes restricted to the rows they touch.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/finite.hpp"
#include "maxent/core/opt_ins.hpp"

namespace maxent {

namespace concept_checks {
template <class E>
concept has_estimate = requires(E& e, std::span<const double> f, std::span<const Eigen::MatrixXd> s,
                                Eigen::MatrixXd& out) { e.estimate(f, s, out); };
}  // namespace concept_checks

template <class E>
concept GradientEstimator = concept_checks::has_estimate<E>;

template <class E>
consteval bool require_gradient_estimator() {
    static_assert(concept_checks::has_estimate<E>,
                  "maxent::GradientEstimator: missing `void estimate(std::span<const double> feedbacks, "
                  "std::span<const Eigen::MatrixXd> scores, Eigen::MatrixXd& out)`");
    return true;
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

}  // namespace maxent
