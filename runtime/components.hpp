// runtime/components.hpp — the feedback, the gradient estimator and the step rule
// chosen at run time, by name: one type each that satisfies the library's concept and holds
// any of the library's own (objective/feedbacks.hpp, optim/estimators.hpp, optim/step_rules.hpp);
// the feedback box also holds a user's callable (the Python module's feedbacks).
//
// The programs (runner.hpp) and the Python module (python/src) instantiate one trainer per
// policy class with these types, so that adding an estimator or a step rule costs no new
// instantiation. They are called once per iteration, so the dispatch costs nothing
// measurable, and a run with a box gives the bits of the same run with the held type.
//
// Per-step information (core/step_scores.hpp): only PerStepBaseline wants it. AnyEstimator
// has both estimate forms and says at run time whether it wants it (uses_steps(),
// core/optional_members.hpp), so the trainer records per-step scores only for PerStepBaseline and the
// other four keep their cost and their bits. `entrywise` is declared for the four: the
// trainer takes the row-sparse path only when uses_steps() is false, and refuses a policy
// that needs that path (class B) with PerStepBaseline (config_error).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/step_scores.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"

#include "choices.hpp"

namespace maxent::programs {

/// A feedback given as a callable (a Python function, a lambda): fn(τ) -> F(τ), with what it
/// reads from the rollout (`needs`) and a name for messages.
struct CallableFeedback {
    std::function<double(const Trajectory&)> fn;
    RolloutNeeds needs{};
    std::string name = "callable";
};

/// A Feedback holding one of the paper's four feedbacks, PartitionEntropy, or a callable.
class AnyFeedback {
public:
    using Variant = std::variant<MSE, MOE, MBE, RegMBE, PartitionEntropy, CallableFeedback>;

    AnyFeedback(Objective o, double rho) {
        switch (o) {
            case Objective::mse: f_.emplace<MSE>(); break;
            case Objective::moe: f_.emplace<MOE>(); break;
            case Objective::mbe: f_.emplace<MBE>(); break;
            case Objective::reg_mbe: f_.emplace<RegMBE>(rho); break;
        }
    }
    /// Holds `f` (one of the alternatives).
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, AnyFeedback> && std::is_constructible_v<Variant, F &&>)
    AnyFeedback(F&& f) : f_(std::forward<F>(f)) {}  // NOLINT: implicit, as the alternatives are feedbacks

    template <class G>
    double operator()(const Trajectory& t, G& g) const {
        return std::visit(
            [&](const auto& f) -> double {
                if constexpr (std::is_same_v<std::decay_t<decltype(f)>, CallableFeedback>)
                    return f.fn(t);
                else
                    return static_cast<double>(f(t, g));
            },
            f_);
    }
    [[nodiscard]] RolloutNeeds needs() const {
        return std::visit(
            [](const auto& f) -> RolloutNeeds {
                if constexpr (std::is_same_v<std::decay_t<decltype(f)>, CallableFeedback>)
                    return f.needs;
                else
                    return f.needs();
            },
            f_);
    }
    /// "mse", "moe", "mbe", "reg-mbe", "partition", or the callable's name.
    [[nodiscard]] std::string name() const {
        return std::visit(
            [](const auto& f) -> std::string {
                using T = std::decay_t<decltype(f)>;
                if constexpr (std::is_same_v<T, CallableFeedback>)
                    return f.name;
                else if constexpr (std::is_same_v<T, PartitionEntropy>)
                    return "partition";
                else
                    return std::string(T::name());
            },
            f_);
    }
    [[nodiscard]] bool is_callable() const noexcept { return std::holds_alternative<CallableFeedback>(f_); }

private:
    Variant f_;
};

static_assert(require_feedback<AnyFeedback>());

/// A GradientEstimator holding one of the five estimators.
class AnyEstimator {
public:
    using Variant = std::variant<Reinforce, BatchMeanBaseline, LeaveOneOutBaseline, OptimalBaseline, PerStepBaseline>;

    explicit AnyEstimator(EstimatorKind k) : e_(make(k)) {}
    /// Holds `e` (one of the five).
    template <class E>
        requires(!std::is_same_v<std::remove_cvref_t<E>, AnyEstimator> && std::is_constructible_v<Variant, E &&>)
    explicit AnyEstimator(E&& e) : e_(std::forward<E>(e)) {}

    /// The four trajectory-level estimators (PerStepBaseline is never called this way: the
    /// trainer and estimator_quality ask uses_steps() first; a direct call throws config_error).
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) {
        std::visit(
            [&](auto& e) {
                if constexpr (std::is_same_v<std::decay_t<decltype(e)>, PerStepBaseline>)
                    throw config_error("AnyEstimator: the per-step estimator was called without per-step scores "
                                       "(callers must ask uses_steps() first)");
                else
                    e.estimate(f, s, out);
            },
            e_);
    }
    /// Any of the five; the four trajectory-level ones ignore `steps`.
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, const StepScores& steps,
                  Eigen::MatrixXd& out) {
        std::visit(
            [&](auto& e) {
                if constexpr (std::is_same_v<std::decay_t<decltype(e)>, PerStepBaseline>)
                    e.estimate(f, s, steps, out);
                else
                    e.estimate(f, s, out);
            },
            e_);
    }
    /// Whether the held estimator wants per-step scores (PerStepBaseline only).
    [[nodiscard]] bool uses_steps() const noexcept { return std::holds_alternative<PerStepBaseline>(e_); }
    /// The four trajectory-level alternatives are entry-wise (optim/estimators.hpp); the
    /// per-step one never reaches the row path (see the header).
    static constexpr bool entrywise = estimator_is_entrywise<Reinforce> && estimator_is_entrywise<BatchMeanBaseline> &&
                                      estimator_is_entrywise<LeaveOneOutBaseline> &&
                                      estimator_is_entrywise<OptimalBaseline>;

    [[nodiscard]] EstimatorKind kind() const noexcept { return static_cast<EstimatorKind>(e_.index()); }
    [[nodiscard]] std::string_view name() const noexcept { return name_of(kind()); }

private:
    static Variant make(EstimatorKind k) {
        switch (k) {
            case EstimatorKind::reinforce: return Reinforce{};
            case EstimatorKind::batch_mean: return BatchMeanBaseline{};
            case EstimatorKind::leave_one_out: return LeaveOneOutBaseline{};
            case EstimatorKind::optimal: return OptimalBaseline{};
            case EstimatorKind::per_step: return PerStepBaseline{};
        }
        throw config_error(maxent::detail::message("AnyEstimator: unknown estimator kind ", static_cast<int>(k)));
    }
    Variant e_;
};

/// A StepRule holding ConstantStep, Adam or LazyAdam.
class AnyStep {
public:
    using Variant = std::variant<ConstantStep, Adam, LazyAdam>;

    /// The rule of kind `k` with step size `alpha` (its other constants at their defaults).
    AnyStep(StepKind k, double alpha) : r_(make(k, alpha)) {}
    /// Holds `r` (one of the three, with whatever constants it was built with).
    template <class R>
        requires(!std::is_same_v<std::remove_cvref_t<R>, AnyStep> && std::is_constructible_v<Variant, R &&>)
    explicit AnyStep(R&& r) : r_(std::forward<R>(r)) {}

    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) {
        std::visit([&](auto& r) { r.apply(theta, g); }, r_);
    }
    /// Row-sparse step (optim/step_rules.hpp): ConstantStep's and LazyAdam's own, Adam's
    /// through a dense scratch.
    void apply_rows(Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows, const Eigen::MatrixXd& c) {
        std::visit([&](auto& r) { apply_step_rows(r, theta, rows, c, scratch_); }, r_);
    }
    void reset() {
        std::visit([](auto& r) { r.reset(); }, r_);
    }

    [[nodiscard]] StepKind kind() const noexcept { return static_cast<StepKind>(r_.index()); }
    [[nodiscard]] std::string_view name() const noexcept { return name_of(kind()); }
    [[nodiscard]] double alpha() const noexcept {
        return std::visit([](const auto& r) { return r.alpha(); }, r_);
    }

private:
    static Variant make(StepKind k, double alpha) {
        switch (k) {
            case StepKind::constant: return ConstantStep(alpha);
            case StepKind::adam: return Adam(alpha);
            case StepKind::lazy_adam: return LazyAdam(alpha);
        }
        throw config_error(maxent::detail::message("AnyStep: unknown step rule kind ", static_cast<int>(k)));
    }
    Variant r_;
    Eigen::MatrixXd scratch_;
};

static_assert(require_gradient_estimator<AnyEstimator>());
static_assert(estimator_chooses_steps<AnyEstimator>);
static_assert(require_step_rule<AnyStep>());

// kind() is the variant's index: the enums list the alternatives in the same order.
template <class Variant, auto Kind, class T>
inline constexpr bool alternative_is =
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(Kind), Variant>, T>;
static_assert(alternative_is<AnyEstimator::Variant, EstimatorKind::reinforce, Reinforce> &&
              alternative_is<AnyEstimator::Variant, EstimatorKind::batch_mean, BatchMeanBaseline> &&
              alternative_is<AnyEstimator::Variant, EstimatorKind::leave_one_out, LeaveOneOutBaseline> &&
              alternative_is<AnyEstimator::Variant, EstimatorKind::optimal, OptimalBaseline> &&
              alternative_is<AnyEstimator::Variant, EstimatorKind::per_step, PerStepBaseline> &&
              std::variant_size_v<AnyEstimator::Variant> == 5);
static_assert(alternative_is<AnyStep::Variant, StepKind::constant, ConstantStep> &&
              alternative_is<AnyStep::Variant, StepKind::adam, Adam> &&
              alternative_is<AnyStep::Variant, StepKind::lazy_adam, LazyAdam> &&
              std::variant_size_v<AnyStep::Variant> == 3);

}  // namespace maxent::programs
