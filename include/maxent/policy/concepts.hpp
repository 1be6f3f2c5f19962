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
    std::size_t actions;
    std::size_t observations;
    std::size_t features = 0;

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

// ---------------------------------------------------------------------------------------
// The policy's SPEED HOOKS as the rollout reads them, one bundle: `needs_belief` (skip
// belief updates nobody reads). A view that changes only where the score goes (the trainer's
// RowScoringView and StepRecordingView) derives from PolicyView, which forwards the whole
// bundle and everything but sample(); `keeps_policy_speed_hooks<View, P>` checks it, and
// every view static_asserts it.
// ---------------------------------------------------------------------------------------
template <class V, class P>
inline constexpr bool keeps_policy_speed_hooks = policy_needs_belief<V> == policy_needs_belief<P>;

/// The base of a policy view: forwards num_actions, probabilities, check_dimensions and the
/// speed hooks to the policy; the view adds sample().
template <class P>
class PolicyView {
    static_assert(require_policy<P>());

public:
    static constexpr bool needs_belief = policy_needs_belief<P>;

    explicit PolicyView(P& policy) noexcept : policy_(&policy) {}
    [[nodiscard]] std::size_t num_actions() const { return policy_->num_actions(); }
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const { policy_->probabilities(v, out); }
    void check_dimensions(const AgentDimensions& d) const { policy_->check_dimensions(d); }
    [[nodiscard]] P& policy() const noexcept { return *policy_; }

private:
    P* policy_;
};

}  // namespace maxent
