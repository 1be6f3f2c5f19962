// maxent/policy/concepts.hpp — what the agent sees (AgentView) and the Policy /
// DifferentiablePolicy concepts.
//
// Paper, Section 2.1 "Policies" and Section 4: a policy π_θ(a | i) acts on the agent's
// information i_t (the current observation o_t and belief b_t; never the true state), and
// Algorithm 1 needs its score ∇_θ log π_θ(a_t | i_t), accumulated over a trajectory.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

struct ActionBox;  // core/actions.hpp

/// The information available to the agent at step t (0-based): the observation o_t just
/// received and the belief b_t, a dense vector over the belief model's OWN latent states
/// (exact or approximate; its length is the updater's dimension(), not the world's number of
/// states).
///
/// features(): the feature vector φ(b_t) the belief-averaged policy reads. It is the belief
/// itself unless the updater computes features (BeliefFeatures, belief/concepts.hpp), in
/// which case the rollout points `feature_vector` at them.
///
/// Optionally the belief's support: when `support_known`, `support` lists in ascending
/// order, without repeats, a set of states that contains every non-zero entry of `belief`
/// (every entry outside it is exactly 0). The rollout sets it when its belief updater
/// tracks the support (BayesFilter does; see belief/concepts.hpp, SupportTrackingUpdater).
/// A policy may use it to work in O(|support|) instead of O(S), and must then return what
/// it returns without it, to the last bit; a policy may also ignore it. The support says
/// nothing about features() when the updater has its own features.
struct AgentView {
    std::size_t step;
    std::size_t observation;
    const Eigen::VectorXd& belief;
    std::span<const sparse_index> support{};
    bool support_known = false;
    const Eigen::VectorXd* feature_vector = nullptr;  ///< φ(b_t) when not the belief itself
    /// o_t as a point of R^d when the world's observations are typed and read as points
    /// (core/point.hpp); empty for index observations. `observation` is then the world's
    /// observation bin (0 when it has none). Read by ObservationFeaturePolicy.
    std::span<const double> observation_point{};

    [[nodiscard]] const Eigen::VectorXd& features() const noexcept {
        return feature_vector != nullptr ? *feature_vector : belief;
    }
    /// Whether features() is the belief itself (so `support` describes it too).
    [[nodiscard]] bool features_are_belief() const noexcept { return feature_vector == nullptr; }
};

/// What a policy's parameters must fit: the agent's sizes, not the world's. `belief` is the
/// length of the updater's belief (its latent states, read by policies that act on believed
/// states or on the belief itself), `features` the length of φ(b) when the updater has
/// features (0: φ(b) = b), plus the world's numbers of actions and observations.
struct AgentDimensions {
    std::size_t belief;
    std::size_t actions;  ///< A, or the action dimension d for a continuous-action world
    std::size_t observations;
    std::size_t features = 0;
    /// The world's action box (continuous actions), when the caller knows it: a policy built
    /// for a box compares its own with it. Null otherwise; it must outlive check_dimensions.
    const ActionBox* box = nullptr;

    /// The length of features(): `features` if set, else `belief`.
    [[nodiscard]] std::size_t feature_dimension() const noexcept { return features != 0 ? features : belief; }
};

// ---------------------------------------------------------------------------------------
// Policy: an action distribution over the agent's information.
// Required expressions, for `P p`, `const P cp`, `const AgentView v`, `Eigen::VectorXd out`,
// `Eigen::MatrixXd score`, a generator `g` (archetype DefaultRng) and `AgentDimensions d`:
//   cp.num_actions()                 -> std::size_t
//   cp.probabilities(v, out)         out <- π(· | v), the action distribution (marginal
//                                    over any internal randomness, e.g. S̃'s believed state);
//                                    out is resized if needed
//   p.sample(v, g, score)            -> std::size_t: draws the action (and any internal
//                                    randomness, with g only) and ADDS to `score` the
//                                    gradient ∇_θ log of the probability of what was drawn
//                                    (for S̃: log softmax(θ[s̃])(a)); score has the shape
//                                    of parameters() and is owned by the caller
//   cp.check_dimensions(d)           throws config_error naming the mismatch when the
//                                    parameters do not fit what the agent has (belief or
//                                    feature length, actions, observations)
// Satisfied by every policy in policy/ (BeliefAveragedPolicy, BeliefMixturePolicy,
// ObservationPolicy, BelievedStatePolicy).
//
// DifferentiablePolicy: a Policy with parameters θ (an Eigen matrix) and the exact score
// of its marginal action distribution (used by the exact objective/gradient and by tests):
//   p.parameters(), cp.parameters()  -> Eigen::MatrixXd& / const Eigen::MatrixXd&
//   cp.log_gradient(v, a, grad)      grad += ∇_θ log π(a | v) of the marginal π(· | v)
// Optional (core/optional_members.hpp): `static constexpr bool needs_belief = false;` lets the rollout
// skip belief updates when neither the policy nor the feedback uses beliefs (e.g.
// ObservationPolicy with MSE); by default a policy is assumed to read the belief.
// ---------------------------------------------------------------------------------------
namespace concept_checks {
template <class P>
concept has_num_actions_policy = requires(const P& p) { { p.num_actions() } -> std::convertible_to<std::size_t>; };
template <class P>
concept has_probabilities = requires(const P& p, const AgentView& v, Eigen::VectorXd& out) { p.probabilities(v, out); };
template <class P>
concept has_sample = requires(P& p, const AgentView& v, DefaultRng& g, Eigen::MatrixXd& score) {
    { p.sample(v, g, score) } -> std::convertible_to<std::size_t>;
};
template <class P>
concept has_check_dimensions = requires(const P& p, const AgentDimensions& d) { p.check_dimensions(d); };
template <class P>
concept has_parameters = requires(P& p, const P& cp) {
    { p.parameters() } -> std::same_as<Eigen::MatrixXd&>;
    { cp.parameters() } -> std::same_as<const Eigen::MatrixXd&>;
};
template <class P>
concept has_log_gradient = requires(const P& p, const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) {
    p.log_gradient(v, a, grad);
};
}  // namespace concept_checks

template <class P>
concept Policy = concept_checks::has_num_actions_policy<P> && concept_checks::has_probabilities<P> &&
                 concept_checks::has_sample<P> && concept_checks::has_check_dimensions<P>;

template <class P>
concept DifferentiablePolicy = Policy<P> && concept_checks::has_parameters<P> && concept_checks::has_log_gradient<P>;

// ---------------------------------------------------------------------------------------
// ContinuousPolicy: a policy for a world with continuous actions (model/concepts.hpp:
// action_type and action_box). It writes an action's d coordinates as doubles; the rollout
// turns them into the world's action_type (core/actions.hpp, read_action). Required
// expressions, for `P p`, `const P cp`, `const AgentView v`, a generator `g`,
// `Eigen::MatrixXd score`, `std::span<double> a` and `AgentDimensions d`:
//   cp.action_dimension()            -> std::size_t: d
//   p.sample(v, g, score, a)         draws an action a ~ π(· | v) into a[0..d) (with g only;
//                                    inside the policy's box) and ADDS ∇_θ log π(a | v) to
//                                    score (the shape of parameters(), owned by the caller)
//   cp.check_dimensions(d)           config_error naming the mismatch (d.actions is the action
//                                    dimension for such worlds)
// DifferentiableContinuousPolicy, in addition, for `std::span<const double> ca`:
//   p.parameters(), cp.parameters()  -> Eigen::MatrixXd& / const Eigen::MatrixXd&
//   cp.log_density(v, ca)            -> double: log π(ca | v), a density on the box
//   cp.log_gradient(v, ca, grad)     grad += ∇_θ log π(ca | v)
// Satisfied by GaussianPolicy (policy/gaussian.hpp) and UniformBoxPolicy
// (policy/uniform_box.hpp). The needs_belief speed hook reads as for Policy.
// ---------------------------------------------------------------------------------------
namespace concept_checks {
template <class P>
concept has_action_dimension = requires(const P& p) { { p.action_dimension() } -> std::convertible_to<std::size_t>; };
template <class P>
concept has_continuous_sample =
    requires(P& p, const AgentView& v, DefaultRng& g, Eigen::MatrixXd& score, std::span<double> a) {
        p.sample(v, g, score, a);
    };
template <class P>
concept has_log_density = requires(const P& p, const AgentView& v, std::span<const double> a) {
    { p.log_density(v, a) } -> std::convertible_to<double>;
};
template <class P>
concept has_continuous_log_gradient =
    requires(const P& p, const AgentView& v, std::span<const double> a, Eigen::MatrixXd& grad) {
        p.log_gradient(v, a, grad);
    };
}  // namespace concept_checks

template <class P>
concept ContinuousPolicy = concept_checks::has_action_dimension<P> && concept_checks::has_continuous_sample<P> &&
                           concept_checks::has_check_dimensions<P>;

template <class P>
concept DifferentiableContinuousPolicy = ContinuousPolicy<P> && concept_checks::has_parameters<P> &&
                                         concept_checks::has_log_density<P> &&
                                         concept_checks::has_continuous_log_gradient<P>;

template <class P>
consteval bool require_continuous_policy() {
    using namespace concept_checks;
    static_assert(has_action_dimension<P>,
                  "maxent::ContinuousPolicy: missing `std::size_t action_dimension() const`");
    static_assert(has_continuous_sample<P>,
                  "maxent::ContinuousPolicy: missing `void sample(const AgentView&, G& g, Eigen::MatrixXd& score, "
                  "std::span<double> action)` (templated on the generator; writes the action's coordinates)");
    static_assert(has_check_dimensions<P>,
                  "maxent::ContinuousPolicy: missing `void check_dimensions(const AgentDimensions&) const`");
    return true;
}

template <class P>
consteval bool require_differentiable_continuous_policy() {
    using namespace concept_checks;
    static_assert(require_continuous_policy<P>());
    static_assert(has_parameters<P>,
                  "maxent::DifferentiableContinuousPolicy: missing `Eigen::MatrixXd& parameters()` and "
                  "`const Eigen::MatrixXd& parameters() const`");
    static_assert(has_log_density<P>,
                  "maxent::DifferentiableContinuousPolicy: missing `double log_density(const AgentView&, "
                  "std::span<const double> action) const`");
    static_assert(has_continuous_log_gradient<P>,
                  "maxent::DifferentiableContinuousPolicy: missing `void log_gradient(const AgentView&, "
                  "std::span<const double> action, Eigen::MatrixXd& grad) const`");
    return true;
}

template <class P>
consteval bool require_policy() {
    using namespace concept_checks;
    static_assert(has_num_actions_policy<P>, "maxent::Policy: missing `std::size_t num_actions() const`");
    static_assert(has_probabilities<P>,
                  "maxent::Policy: missing `void probabilities(const AgentView&, Eigen::VectorXd& out) const`");
    static_assert(has_sample<P>,
                  "maxent::Policy: missing `std::size_t sample(const AgentView&, G& g, Eigen::MatrixXd& score)` "
                  "(templated on the generator)");
    static_assert(has_check_dimensions<P>,
                  "maxent::Policy: missing `void check_dimensions(const AgentDimensions&) const`");
    return true;
}

template <class P>
consteval bool require_differentiable_policy() {
    using namespace concept_checks;
    static_assert(require_policy<P>());
    static_assert(has_parameters<P>,
                  "maxent::DifferentiablePolicy: missing `Eigen::MatrixXd& parameters()` and "
                  "`const Eigen::MatrixXd& parameters() const`");
    static_assert(has_log_gradient<P>,
                  "maxent::DifferentiablePolicy: missing `void log_gradient(const AgentView&, std::size_t a, "
                  "Eigen::MatrixXd& grad) const`");
    return true;
}

/// Call in a static_assert where a policy meets a world: `continuous` is
/// continuous_actions<M> (model/concepts.hpp). A policy of the other kind gets one message
/// saying which kind the world needs.
template <class P, bool continuous>
consteval bool require_policy_for_actions() {
    if constexpr (continuous) {
        static_assert(ContinuousPolicy<P> || !Policy<P>,
                      "maxent: the world's actions are continuous (it declares action_type and action_box()) but "
                      "the policy draws action indices; use a continuous-action policy (maxent::GaussianPolicy, "
                      "maxent::UniformBoxPolicy: policy/gaussian.hpp, policy/uniform_box.hpp)");
        if constexpr (ContinuousPolicy<P> || !Policy<P>) static_assert(require_continuous_policy<P>());
    } else {
        static_assert(Policy<P> || !ContinuousPolicy<P>,
                      "maxent: the policy draws continuous actions but the world's actions are indices {0..A-1} (it "
                      "declares no continuous action_type); use an index policy (softmax, uniform) or declare "
                      "`using action_type = ...;` and `maxent::ActionBox action_box() const` in the world");
        if constexpr (Policy<P> || !ContinuousPolicy<P>) static_assert(require_policy<P>());
    }
    return true;
}

/// Whether P is a policy of the kind the world's actions need (what require_policy_for_actions
/// asserts; entry points skip their body when it fails, so that only the message is shown).
template <class P, bool continuous>
inline constexpr bool policy_fits_actions = continuous ? ContinuousPolicy<P> : Policy<P>;

/// A policy of either kind (index or continuous), each with its own messages.
template <class P>
consteval bool require_any_policy() {
    if constexpr (ContinuousPolicy<P> && !Policy<P>)
        return require_continuous_policy<P>();
    else
        return require_policy<P>();
}

/// The same for entry points that need the score of a policy at its parameters (Trainer).
template <class P, bool continuous>
consteval bool require_differentiable_policy_for_actions() {
    static_assert(require_policy_for_actions<P, continuous>());
    if constexpr (continuous) {
        if constexpr (ContinuousPolicy<P>) static_assert(require_differentiable_continuous_policy<P>());
    } else {
        if constexpr (Policy<P>) static_assert(require_differentiable_policy<P>());
    }
    return true;
}

// ---------------------------------------------------------------------------------------
// The policy's SPEED HOOKS as the rollout reads them, one bundle: `needs_belief` (skip
// belief updates nobody reads). A view that changes only where the score goes (the trainer's
// RowScoringView and StepRecordingView) derives from PolicyView, which forwards the whole
// bundle and everything but sample(); `keeps_policy_speed_hooks<View, P>` checks it, and
// every view static_asserts it.
// ---------------------------------------------------------------------------------------
template <class V, class P>
inline constexpr bool keeps_policy_speed_hooks = policy_needs_belief<V> == policy_needs_belief<P>;

/// The base of a policy view: forwards num_actions, probabilities (index policies) or
/// action_dimension (continuous ones), check_dimensions and the speed hooks to the policy; the
/// view adds sample().
template <class P>
class PolicyView {
    static_assert(require_any_policy<P>());

public:
    static constexpr bool needs_belief = policy_needs_belief<P>;

    explicit PolicyView(P& policy) noexcept : policy_(&policy) {}
    [[nodiscard]] std::size_t num_actions() const
        requires Policy<P>
    {
        return policy_->num_actions();
    }
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const
        requires Policy<P>
    {
        policy_->probabilities(v, out);
    }
    [[nodiscard]] std::size_t action_dimension() const
        requires ContinuousPolicy<P>
    {
        return policy_->action_dimension();
    }
    void check_dimensions(const AgentDimensions& d) const { policy_->check_dimensions(d); }
    [[nodiscard]] P& policy() const noexcept { return *policy_; }

private:
    P* policy_;
};

}  // namespace maxent
