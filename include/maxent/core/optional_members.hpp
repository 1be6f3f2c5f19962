// maxent/core/optional_members.hpp — every OPTIONAL member a component may declare, in one
// place, with its default and what the library does with it.
//
// The concepts (model/concepts.hpp, belief/concepts.hpp, policy/concepts.hpp,
// objective/feedbacks.hpp, optim/estimators.hpp, optim/step_rules.hpp) list what a component
// must have. What it may have in addition is read through the traits below and nowhere
// else, so that a component's author finds the whole menu here (the table after
// `#pragma once`). Members that only make things faster are forwarded by decorators as one
// bundle: UpdaterSpeedHooks (belief/concepts.hpp) and PolicyView (policy/concepts.hpp).
// The traits need only the standard library and Eigen, so every layer may use them.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>

#include <Eigen/Core>

#include "maxent/core/step_scores.hpp"

// The menu:
//
//   who          optional member                          default   effect
//   ------------ ---------------------------------------- --------- ------------------------------
//   policy       static constexpr bool needs_belief       true      false: the rollout skips belief
//                                                                   updates when no feedback needs
//                                                                   beliefs either (the policy then
//                                                                   sees the prior)
//   policy       sample_rows(v, g, RowScore&)             absent    row-sparse scores (policy/
//                                                                   row_score.hpp, RowSparsePolicy)
//   policy       static constexpr bool fixed_parameters   false     true: parameters() never changes
//                                                                   shape, so a RowSparsePolicy may
//                                                                   also take the trainer's dense
//                                                                   path; the trainer then picks the
//                                                                   row path only when it pays (optim/
//                                                                   trainer.hpp, ScorePath)
//   policy       batch_base(const Eigen::VectorXd*)       absent    the trainer's row path (optim/row_
//                                                                   sparse_path.hpp) declares the
//                                                                   batch's base b_1 before sampling and
//                                                                   withdraws it (nullptr) before the
//                                                                   step; θ is fixed in between, so the
//                                                                   policy may compute what depends on
//                                                                   θ and b_1 once per batch (BA: the
//                                                                   first step's logits, same bits)
//   estimator    static constexpr bool entrywise          false     true: usable on the rows a batch
//                                                                   touched (row-sparse policies;
//                                                                   without it a fixed-parameter one
//                                                                   takes the dense path)
//   estimator    estimate(f, s, steps, out), steps a      absent    per-step information: each
//                const StepScores& (core/step_scores.hpp)           trajectory's per-step scores and
//                                                                   the batch index; the trainer and
//                                                                   estimator_quality record them only
//                                                                   for such estimators (dense policies)
//   estimator    bool uses_steps() const, with both       absent    decides at run time whether it wants
//                estimate forms                                     per-step information (a run-time
//                                                                   choice among estimators, e.g. the
//                                                                   programs' AnyEstimator): recorded
//                                                                   and the per-step form called only
//                                                                   when true; when false the estimator
//                                                                   is treated as one without it (row
//                                                                   path allowed). Fixed for a run.
//   step rule    apply_rows(θ, rows, compact gradient)    absent    a step on those rows only
//                                                                   (ConstantStep, LazyAdam);
//                                                                   otherwise the dense step on a
//                                                                   scattered gradient (Adam)
//   updater      static constexpr bool deterministic      false     true: update never draws, so the
//                                                                   exact objective may enumerate it
//                                                                   (BayesFilter is deterministic)
//   updater      initial(b, support) and                  absent    SupportTrackingUpdater: O(|support|)
//                update_on_support(b, support, a, o, g)             steps (belief/concepts.hpp)
//   updater      bool support_tracking_pays() const       true      false: keep to update() for now
//   updater      prior(), prior_support() and             absent    PriorStartUpdater: tracked episodes
//                update_from_prior(b, support, a, o, g)             start from the updater's prior
//                                                                   without copying it (optim/
//                                                                   rollout.hpp; BayesFilter)
//   updater      update(b, a, o, g, step)                 absent    the step number, for messages
//   updater      feature_dimension(), features(b, φ)      absent    BeliefFeatures: the policy reads
//                                                                   φ(b) instead of b
//   updater      double belief_entropy(b) const           H(b)      what the rollout records as H(b_t)
//                                                                   (Reg-MBE, Σ H(b_t)); e.g. a particle
//                                                                   filter's bias-corrected estimate
//                                                                   (dense path; not with support tracking)
//   model        transition_matrix_transposed(a)          absent    the Bayes filter predicts by
//                                                                   reading columns (same bits)
//   model        LabelledPomdp's label maps, or           absent    names instead of indices in
//                states()/actions()/observations()                  messages
//                with describe(i)
//   component    static constexpr std::string_view name() absent    the name the programs and the
//                                                                   output files use for it

namespace maxent {

/// Whether a policy reads the belief (`needs_belief`, default true).
template <class P>
inline constexpr bool policy_needs_belief = [] {
    if constexpr (requires { P::needs_belief; })
        return static_cast<bool>(P::needs_belief);
    else
        return true;
}();

/// Whether a policy declares that its parameters never change shape (`fixed_parameters`,
/// default false: a RowSparsePolicy may grow θ while sampling, so it needs the row path).
template <class P>
inline constexpr bool policy_has_fixed_parameters = [] {
    if constexpr (requires { P::fixed_parameters; })
        return static_cast<bool>(P::fixed_parameters);
    else
        return false;
}();

/// Whether an estimator declares itself entry-wise (`entrywise`, default false): its estimate
/// at a parameter depends only on that parameter's scores and is 0 where they are all 0.
template <class E>
inline constexpr bool estimator_is_entrywise = [] {
    if constexpr (requires { E::entrywise; })
        return static_cast<bool>(E::entrywise);
    else
        return false;
}();

/// Whether a policy takes the batch's base b_1 (`batch_base(const Eigen::VectorXd*)`).
template <class P>
inline constexpr bool policy_has_batch_base =
    requires(P& p, const Eigen::VectorXd* base) { p.batch_base(base); };

/// Whether an estimator opts into per-step information: it has `estimate(f, s, steps, out)`
/// with `steps` a `const StepScores&` (core/step_scores.hpp).
template <class E>
inline constexpr bool estimator_uses_steps =
    requires(E& e, std::span<const double> f, std::span<const Eigen::MatrixXd> s, const StepScores& steps,
             Eigen::MatrixXd& out) { e.estimate(f, s, steps, out); };

/// Whether an estimator with the per-step form decides at run time whether it wants it
/// (`bool uses_steps() const`); such an estimator must also have the form without steps
/// (require_gradient_estimator checks it).
template <class E>
inline constexpr bool estimator_chooses_steps =
    estimator_uses_steps<E> && requires(const E& e) {
        { e.uses_steps() } -> std::convertible_to<bool>;
    };

/// Whether `e` wants per-step information: false without the per-step form, its
/// uses_steps() when it chooses at run time, true otherwise.
template <class E>
[[nodiscard]] bool estimator_wants_steps(const E& e) {
    if constexpr (estimator_chooses_steps<E>)
        return static_cast<bool>(e.uses_steps());
    else
        return estimator_uses_steps<E>;
}

/// Whether a belief updater declares that it never draws (`deterministic`, default false).
template <class U>
inline constexpr bool updater_declares_deterministic = [] {
    if constexpr (requires { U::deterministic; })
        return static_cast<bool>(U::deterministic);
    else
        return false;
}();

/// An updater's `support_tracking_pays()`, true when it has none.
template <class U>
[[nodiscard]] bool updater_support_tracking_pays(const U& u) {
    if constexpr (requires { { u.support_tracking_pays() } -> std::convertible_to<bool>; })
        return u.support_tracking_pays();
    else
        return true;
}

/// Whether a belief updater reports its own belief entropy (`belief_entropy(b)`).
template <class U>
inline constexpr bool updater_has_belief_entropy =
    requires(const U& u, const Eigen::VectorXd& b) { { u.belief_entropy(b) } -> std::convertible_to<double>; };

/// Whether a step rule has `apply_rows(θ, rows, compact gradient)`.
template <class R>
inline constexpr bool step_rule_has_apply_rows =
    requires(R& r, Eigen::MatrixXd& theta, std::span<const Eigen::Index> rows, const Eigen::MatrixXd& c) {
        r.apply_rows(theta, rows, c);
    };

/// Whether a model offers `transition_matrix_transposed(a)` (a compressed row-major sparse
/// matrix whose row s' lists the states s with P(s' | s, a) > 0 in ascending order).
template <class M>
inline constexpr bool model_has_transposed_transitions =
    requires(const M& m, std::size_t a) { m.transition_matrix_transposed(a).outerIndexPtr(); };

/// Whether a component names itself (`static constexpr std::string_view name()`).
template <class C>
inline constexpr bool component_has_name = requires { { C::name() } -> std::convertible_to<std::string_view>; };

}  // namespace maxent
