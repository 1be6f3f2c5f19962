// maxent/optim/step_rules.hpp — step rules: how a gradient estimate moves θ (ascent).
//
// Paper, Algorithm 1 line 6: θ_{k+1} = θ_k + α ĝ with a constant step α (α = 0.3 in the
// figures; no normalisation). Adam (Kingma & Ba, 2015) is offered as an alternative.
//
// StepRule concept — required expressions, for `R r`, `Eigen::MatrixXd theta` and a
// gradient `const Eigen::MatrixXd g` of the same shape:
//   r.apply(theta, g)   ascent step on theta (maximisation)
//   r.reset()           forget any state (moments), e.g. before a new run
// Satisfied by ConstantStep, Adam and LazyAdam. All reject a gradient with a NaN or infinite entry
// (numeric_error, θ and the moments untouched); θ overflowing is the caller's to check
// (the trainer does, after every step).
//
// Row-sparse steps (for RowSparsePolicy, policy/row_score.hpp). Optional expression, for
// `std::span<const Eigen::Index> rows` and a compact gradient `c` whose row i is the
// gradient of parameter row rows[i] (every other row's gradient is zero):
//   r.apply_rows(theta, rows, c)   the same step as r.apply(theta, dense gradient), in
//                                  O(rows.size()) (ConstantStep and LazyAdam have it; the
//                                  same bits as their apply)
// `apply_step_rows(r, theta, rows, c, scratch)` uses it when present; otherwise it
// scatters c into a dense gradient (`scratch`) and calls r.apply: rules with
// per-parameter state (Adam's moments decay at every parameter) must see every parameter,
// which costs O(parameters) per step by definition; LazyAdam (below) is the explicit
// alternative whose untouched rows do not move. Parameters may grow between steps (new
// rows appended): Adam and LazyAdam pad their moments with zeros for the new rows.
//
// The trainer's step, on either path: `checked_step(r, theta, g, k)` checks the estimate
// and its norm (`checked_gradient_norm`, the reported gradient norm), steps, and checks θ.
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

namespace maxent {

namespace concept_checks {
template <class R>
concept has_apply = requires(R& r, Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) { r.apply(theta, g); };
template <class R>
concept has_reset = requires(R& r) { r.reset(); };
}  // namespace concept_checks

template <class R>
concept StepRule = concept_checks::has_apply<R> && concept_checks::has_reset<R>;

template <class R>
consteval bool require_step_rule() {
    static_assert(concept_checks::has_apply<R>,
                  "maxent::StepRule: missing `void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g)`");
    static_assert(concept_checks::has_reset<R>, "maxent::StepRule: missing `void reset()`");
    return true;
}

namespace detail {
inline void check_step_shapes(const Eigen::MatrixXd& theta, const Eigen::MatrixXd& g, const char* who) {
    if (theta.rows() != g.rows() || theta.cols() != g.cols())
        throw config_error(detail::message(who, ": gradient is ", g.rows(), " x ", g.cols(), ", parameters are ",
                                           theta.rows(), " x ", theta.cols()));
    detail::require_finite(g, who, ": gradient");
}
inline void check_step_rows(const Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows,
                            const Eigen::MatrixXd& c, const char* who) {
    if (c.cols() != theta.cols() || static_cast<std::size_t>(c.rows()) < rows.size())
        throw config_error(detail::message(who, ": compact gradient is ", c.rows(), " x ", c.cols(), " for ",
                                           rows.size(), " rows of parameters ", theta.rows(), " x ", theta.cols()));
    for (const Eigen::Index r : rows)
        if (r < 0 || r >= theta.rows())
            throw config_error(detail::message(who, ": gradient row ", r, " is outside the parameters' ",
                                               theta.rows(), " rows"));
    detail::require_finite(c.topRows(static_cast<Eigen::Index>(rows.size())), who, ": compact gradient");
}
}  // namespace detail

/// θ += α g.
class ConstantStep {
public:
    explicit ConstantStep(double alpha) : alpha_(alpha) {
        if (!(alpha > 0.0) || !std::isfinite(alpha))
            throw config_error(detail::message("ConstantStep: alpha must be finite and > 0, got ", alpha));
    }
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) const {
        detail::check_step_shapes(theta, g, "ConstantStep");
        theta.noalias() += alpha_ * g;
    }
    /// θ.row(rows[i]) += α c.row(i) for i < rows.size() (rows of c beyond are ignored).
    void apply_rows(Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows, const Eigen::MatrixXd& c) const {
        detail::check_step_rows(theta, rows, c, "ConstantStep");
        for (std::size_t i = 0; i < rows.size(); ++i)
            theta.row(rows[i]).noalias() += alpha_ * c.row(static_cast<Eigen::Index>(i));
    }
    void reset() noexcept {}
    [[nodiscard]] double alpha() const noexcept { return alpha_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "constant"; }

private:
    double alpha_;
};

/// Adam ascent: m = β1 m + (1-β1) g, v = β2 v + (1-β2) g², θ += α m̂ / (sqrt(v̂) + ε).
class Adam {
public:
    explicit Adam(double alpha = 0.05, double beta1 = 0.9, double beta2 = 0.999, double epsilon = 1e-8)
        : alpha_(alpha), beta1_(beta1), beta2_(beta2), eps_(epsilon) {
        if (!(alpha > 0.0) || !std::isfinite(alpha))
            throw config_error(detail::message("Adam: alpha must be finite and > 0, got ", alpha));
        if (!(beta1 >= 0.0 && beta1 < 1.0))
            throw config_error(detail::message("Adam: beta1 must be in [0, 1), got ", beta1));
        if (!(beta2 >= 0.0 && beta2 < 1.0))
            throw config_error(detail::message("Adam: beta2 must be in [0, 1), got ", beta2));
        if (!(epsilon > 0.0) || !std::isfinite(epsilon))
            throw config_error(detail::message("Adam: epsilon must be finite and > 0, got ", epsilon));
    }
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) {
        detail::check_step_shapes(theta, g, "Adam");
        if (m_.cols() == g.cols() && m_.rows() > 0 && m_.rows() < g.rows()) {
            // The parameters grew (new rows, e.g. a tabular policy's new beliefs): the new
            // rows start with zero moments; the step count is kept.
            const Eigen::Index old_rows = m_.rows();
            m_.conservativeResize(g.rows(), Eigen::NoChange);
            v_.conservativeResize(g.rows(), Eigen::NoChange);
            m_.bottomRows(g.rows() - old_rows).setZero();
            v_.bottomRows(g.rows() - old_rows).setZero();
        } else if (m_.rows() != g.rows() || m_.cols() != g.cols()) {
            m_ = Eigen::MatrixXd::Zero(g.rows(), g.cols());
            v_ = Eigen::MatrixXd::Zero(g.rows(), g.cols());
            t_ = 0;
        }
        ++t_;
        m_ = beta1_ * m_ + (1.0 - beta1_) * g;
        v_ = beta2_ * v_ + (1.0 - beta2_) * g.cwiseProduct(g);
        const double c1 = 1.0 - std::pow(beta1_, static_cast<double>(t_));
        const double c2 = 1.0 - std::pow(beta2_, static_cast<double>(t_));
        theta.array() += alpha_ * (m_.array() / c1) / ((v_.array() / c2).sqrt() + eps_);
    }
    void reset() noexcept {
        m_.resize(0, 0);
        v_.resize(0, 0);
        t_ = 0;
    }
    [[nodiscard]] double alpha() const noexcept { return alpha_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "adam"; }

private:
    double alpha_, beta1_, beta2_, eps_;
    Eigen::MatrixXd m_, v_;
    long t_ = 0;
};

/// Lazy Adam: Adam's update, applied to a row of θ only at the steps where that row's
/// gradient is not all zero. A row's moments decay only when it is updated, catching up the
/// skipped steps at once: with k steps since its last update (global step count t, as in
/// Adam's bias corrections),
///     m <- β1^k m,  v <- β2^k v       (β^k = std::pow(β, k); nothing when k = 0)
///     m <- β1 m + (1-β1) g,  v <- β2 v + (1-β2) g²,  θ_row += α m̂ / (sqrt(v̂) + ε)
/// with m̂ = m / (1 - β1^t), v̂ = v / (1 - β2^t), entry by entry as in Adam.
/// What changes against Adam: the moments of a row equal Adam's (whose gradient there was 0
/// in the skipped steps) up to the rounding of β^k against k multiplications, but Adam
/// keeps moving an untouched row with its decaying momentum at every step and lazy Adam does
/// not, so θ differs once some row is skipped. When every row's gradient is non-zero at
/// every step, k = 0 always and the bits are Adam's. An explicit choice (never substituted
/// for Adam): its step costs O(rows updated · A) with apply_rows (the trainer's row-sparse
/// path), where Adam's costs O(θ). apply (dense) and apply_rows give the same bits.
class LazyAdam {
public:
    explicit LazyAdam(double alpha = 0.05, double beta1 = 0.9, double beta2 = 0.999, double epsilon = 1e-8)
        : alpha_(alpha), beta1_(beta1), beta2_(beta2), eps_(epsilon) {
        if (!(alpha > 0.0) || !std::isfinite(alpha))
            throw config_error(detail::message("LazyAdam: alpha must be finite and > 0, got ", alpha));
        if (!(beta1 >= 0.0 && beta1 < 1.0))
            throw config_error(detail::message("LazyAdam: beta1 must be in [0, 1), got ", beta1));
        if (!(beta2 >= 0.0 && beta2 < 1.0))
            throw config_error(detail::message("LazyAdam: beta2 must be in [0, 1), got ", beta2));
        if (!(epsilon > 0.0) || !std::isfinite(epsilon))
            throw config_error(detail::message("LazyAdam: epsilon must be finite and > 0, got ", epsilon));
    }
    /// The step on every row whose gradient row is not all zero (O(θ) to find them).
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) {
        detail::check_step_shapes(theta, g, "LazyAdam");
        begin_step(theta);
        for (Eigen::Index r = 0; r < g.rows(); ++r) update_row(theta, r, g, r);
    }
    /// The same step when every row outside `rows` has a zero gradient: rows[i]'s gradient is
    /// c.row(i); O(rows.size() · A).
    void apply_rows(Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows, const Eigen::MatrixXd& c) {
        detail::check_step_rows(theta, rows, c, "LazyAdam");
        begin_step(theta);
        for (std::size_t i = 0; i < rows.size(); ++i) update_row(theta, rows[i], c, static_cast<Eigen::Index>(i));
    }
    void reset() noexcept {
        m_.resize(0, 0);
        v_.resize(0, 0);
        last_.clear();
        t_ = 0;
    }
    [[nodiscard]] double alpha() const noexcept { return alpha_; }
    /// The number of steps taken (Adam's t).
    [[nodiscard]] long steps() const noexcept { return t_; }
    /// The moments as kept: row r as of the last step that updated it.
    [[nodiscard]] const Eigen::MatrixXd& first_moment() const noexcept { return m_; }
    [[nodiscard]] const Eigen::MatrixXd& second_moment() const noexcept { return v_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "lazy-adam"; }

private:
    /// Sizes the state for θ (new rows: zero moments) and counts the step.
    void begin_step(const Eigen::MatrixXd& theta) {
        if (m_.cols() == theta.cols() && m_.rows() > 0 && m_.rows() <= theta.rows()) {
            if (m_.rows() < theta.rows()) {  // θ grew: new rows start with zero moments
                const Eigen::Index old_rows = m_.rows();
                m_.conservativeResize(theta.rows(), Eigen::NoChange);
                v_.conservativeResize(theta.rows(), Eigen::NoChange);
                m_.bottomRows(theta.rows() - old_rows).setZero();
                v_.bottomRows(theta.rows() - old_rows).setZero();
                last_.resize(static_cast<std::size_t>(theta.rows()), t_);
            }
        } else {
            m_ = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
            v_ = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
            last_.assign(static_cast<std::size_t>(theta.rows()), 0);
            t_ = 0;
        }
        ++t_;
        c1_ = 1.0 - std::pow(beta1_, static_cast<double>(t_));
        c2_ = 1.0 - std::pow(beta2_, static_cast<double>(t_));
    }
    /// Updates parameter row r with gradient row `gr` of `g`, unless that row is all zero.
    void update_row(Eigen::MatrixXd& theta, Eigen::Index r, const Eigen::MatrixXd& g, Eigen::Index gr) {
        const Eigen::Index C = theta.cols();
        bool zero = true;
        for (Eigen::Index c = 0; c < C; ++c) zero = zero && g(gr, c) == 0.0;
        if (zero) return;
        const long skipped = t_ - 1 - last_[static_cast<std::size_t>(r)];
        if (skipped > 0) {
            const double d1 = std::pow(beta1_, static_cast<double>(skipped));
            const double d2 = std::pow(beta2_, static_cast<double>(skipped));
            for (Eigen::Index c = 0; c < C; ++c) {
                m_(r, c) *= d1;
                v_(r, c) *= d2;
            }
        }
        for (Eigen::Index c = 0; c < C; ++c) {
            const double x = g(gr, c);
            m_(r, c) = beta1_ * m_(r, c) + (1.0 - beta1_) * x;
            v_(r, c) = beta2_ * v_(r, c) + (1.0 - beta2_) * (x * x);
            theta(r, c) += alpha_ * (m_(r, c) / c1_) / (std::sqrt(v_(r, c) / c2_) + eps_);
        }
        last_[static_cast<std::size_t>(r)] = t_;
    }

    double alpha_, beta1_, beta2_, eps_;
    Eigen::MatrixXd m_, v_;
    std::vector<long> last_;  // per row: the step that last updated its moments (0: never)
    long t_ = 0;
    double c1_ = 0.0, c2_ = 0.0;
};

/// A row-sparse step (see the header comment): r.apply_rows when the rule has it, else the
/// dense step with `scratch` (resized to θ's shape) holding the scattered gradient.
template <class R>
void apply_step_rows(R& r, Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows, const Eigen::MatrixXd& c,
                     Eigen::MatrixXd& scratch) {
    if constexpr (step_rule_has_apply_rows<R>) {
        r.apply_rows(theta, rows, c);
    } else {
        detail::check_step_rows(theta, rows, c, "apply_step_rows");
        if (scratch.rows() != theta.rows() || scratch.cols() != theta.cols()) scratch.resize(theta.rows(), theta.cols());
        scratch.setZero();
        for (std::size_t i = 0; i < rows.size(); ++i) scratch.row(rows[i]) = c.row(static_cast<Eigen::Index>(i));
        r.apply(theta, scratch);
    }
}

/// The gradient estimate's norm, after checking the estimate is finite; numeric_error naming
/// iteration k otherwise. The entries are scanned (to name the culprit) only when the norm
/// is not finite. What the trainer reports as IterationMetrics::gradient_norm.
inline double checked_gradient_norm(const Eigen::MatrixXd& gradient, std::size_t k) {
    const double norm = detail::norm_without_overflow(gradient);
    if (!std::isfinite(norm)) {
        detail::require_finite(gradient, "Trainer: gradient estimate at iteration ", k);
        detail::require_finite(norm, "Trainer: norm of the gradient estimate at iteration ", k);
    }
    return norm;
}

/// Line 6 as the trainer takes it on a parameter-shaped estimate ĝ of iteration k: its norm
/// (checked_gradient_norm), the step r.apply(θ, ĝ), then θ checked finite (numeric_error
/// naming the iteration); returns the norm.
template <class R>
double checked_step(R& r, Eigen::MatrixXd& theta, const Eigen::MatrixXd& gradient, std::size_t k) {
    const double norm = checked_gradient_norm(gradient, k);
    r.apply(theta, gradient);
    detail::require_finite(theta, "Trainer: parameters after the step of iteration ", k);
    return norm;
}

}  // namespace maxent
