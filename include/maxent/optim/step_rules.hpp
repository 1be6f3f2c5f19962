// maxent/optim/step_rules.hpp — step rules: how a gradient estimate moves θ (ascent).
//
// Paper, Algorithm 1 line 6: θ_{k+1} = θ_k + α ĝ with a constant step α (α = 0.3 in the
// figures; no normalisation). Adam (Kingma & Ba, 2015) is offered as an alternative.
//
// StepRule concept — required expressions, for `R r`, `Eigen::MatrixXd theta` and a
// gradient `const Eigen::MatrixXd g` of the same shape:
//   r.apply(theta, g)   ascent step on theta (maximisation)
//   r.reset()           forget any state (moments), e.g. before a new run
// Satisfied by ConstantStep and Adam. Both reject a gradient with a NaN or infinite entry
// (numeric_error, θ and the moments untouched); θ overflowing is the caller's to check
// (the trainer does, after every step).
//
// Row-sparse steps (for RowSparsePolicy, policy/row_score.hpp). Optional expression, for
// `std::span<const Eigen::Index> rows` and a compact gradient `c` whose row i is the
// gradient of parameter row rows[i] (every other row's gradient is zero):
//   r.apply_rows(theta, rows, c)   the same step as r.apply(theta, dense gradient), in
//                                  O(rows.size()) (ConstantStep has it)
// `apply_step_rows(r, theta, rows, c, scratch)` uses it when present; otherwise it
// scatters c into a dense gradient (`scratch`) and calls r.apply: rules with
// per-parameter state (Adam's moments decay at every parameter) must see every parameter,
// which costs O(parameters) per step by definition. Parameters may grow between steps
// (new rows appended): Adam pads its moments with zeros for the new rows.
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

}  // namespace maxent
