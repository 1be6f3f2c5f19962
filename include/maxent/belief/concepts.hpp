// maxent/belief/concepts.hpp — what a belief model (the agent's side) must offer:
// BeliefUpdater, its optional refinement SupportTrackingUpdater, and BeliefFeatures.
//
// Paper, Section 2.1 (belief update) and Section 5 (approximate beliefs): the agent keeps a
// belief from its actions and observations alone. The updater owns its belief space; the
// world (model/concepts.hpp) owns the true states. Optional members an updater may declare
// are listed with their defaults in core/optional_members.hpp.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

// ---------------------------------------------------------------------------------------
// BeliefUpdater: the agent's belief model. It keeps a belief b as a dense Eigen vector over
// ITS OWN latent states 1..L (L = dimension()), updated in place from the actions and the
// observations of the world; nothing requires L or these states to be the world's (the
// exact filter of the true model has L = S; a filter of a coarsened, misspecified or
// learned model, or a histogram filter of a continuous world, has its own L).
// Required expressions, for `U u`, `const U cu`, `Eigen::VectorXd& b`, an action `a`
// (std::size_t, or `typename U::action_type` when the updater declares one: the world's
// continuous world_action_t), an
// observation `o` (std::size_t, or `typename U::observation_type` when the updater declares
// one: it must be the world's, world_observation_t) and a generator `g` (any
// std::uniform_random_bit_generator; the archetype is DefaultRng):
//   cu.dimension()           -> std::size_t: L, the length of b
//   cu.initial(b)            writes the prior b_1 into b (resized if needed)
//   u.update(b, a, o, g)     b <- the posterior after action a and observation o; exact
//                            updaters ignore g, noisy ones draw from it. Throws
//                            zero_likelihood_error if o is impossible under b (exact).
// `update` is non-const so updaters may keep scratch buffers (no allocation per call).
// Satisfied by: maxent::BayesFilter<M>, maxent::NoisyBelief<U> and maxent::ParticleFilter<M, B, F>
// (belief/).
// ---------------------------------------------------------------------------------------
/// The observations an updater reads: U::observation_type when it declares one (a particle
/// filter of a simulator with typed observations), else indices.
template <class U>
struct updater_observation {
    using type = std::size_t;
};
template <class U>
    requires requires { typename U::observation_type; }
struct updater_observation<U> {
    using type = typename U::observation_type;
};
template <class U>
using updater_observation_t = typename updater_observation<U>::type;

/// The actions an updater reads: U::action_type when it declares one (a particle filter of a
/// continuous-action world), else indices. The exact filter and the learned belief models
/// read indices only.
template <class U>
struct updater_action {
    using type = std::size_t;
};
template <class U>
    requires requires { typename U::action_type; }
struct updater_action<U> {
    using type = typename U::action_type;
};
template <class U>
using updater_action_t = typename updater_action<U>::type;

namespace concept_checks {
template <class U>
concept has_updater_dimension = requires(const U& u) { { u.dimension() } -> std::convertible_to<std::size_t>; };
template <class U>
concept has_initial_belief = requires(const U& u, Eigen::VectorXd& b) { u.initial(b); };
template <class U>
concept has_update = requires(U& u, Eigen::VectorXd& b, const updater_action_t<U>& a, const updater_observation_t<U>& o,
                              DefaultRng& g) {
    u.update(b, a, o, g);
};
}  // namespace concept_checks

template <class U>
concept BeliefUpdater = concept_checks::has_updater_dimension<U> && concept_checks::has_initial_belief<U> &&
                        concept_checks::has_update<U>;

template <class U>
consteval bool require_belief_updater() {
    using namespace concept_checks;
    static_assert(has_updater_dimension<U>,
                  "maxent::BeliefUpdater: missing `std::size_t dimension() const` (the length of its belief vector)");
    static_assert(has_initial_belief<U>, "maxent::BeliefUpdater: missing `void initial(Eigen::VectorXd& b) const`");
    static_assert(has_update<U>,
                  "maxent::BeliefUpdater: missing `void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, "
                  "Rng& g)` (templated on the generator; a and o of the updater's action_type and observation_type "
                  "when it declares them)");
    return true;
}

// ---------------------------------------------------------------------------------------
// SupportTrackingUpdater (optional refinement of BeliefUpdater): the updater can also keep
// the belief's support, the ascending list of the states where b may be non-zero, so that
// a step costs O(|support|) instead of O(S). Required expressions, in addition, for
// `std::vector<sparse_index>& support`:
//   cu.initial(b, support)                   the prior, and its support
//   u.update_on_support(b, support, a, o, g) b <- update(b, a, o, g)'s result, to the last
//                                            bit, for a b that is zero outside `support`;
//                                            support <- the posterior's (same guarantee)
// Optional: `cu.support_tracking_pays()` -> bool; when false the rollout keeps to update().
// The rollout (optim/rollout.hpp) uses the support path when the updater satisfies this
// concept (and says it pays) and hands the support to the policy (AgentView::support); an
// updater that does not satisfy it is simply used through update(), so a mistyped
// update_on_support costs speed, never correctness. Satisfied by maxent::BayesFilter<M>
// (tests/unit/test_support.cpp) and by NoisyBelief over it (which says it pays only at
// σ = 0, where it is the inner filter bit for bit).
// ---------------------------------------------------------------------------------------
template <class U>
concept SupportTrackingUpdater =
    BeliefUpdater<U> && requires(U& u, const U& cu, Eigen::VectorXd& b, std::vector<sparse_index>& support,
                                 std::size_t a, std::size_t o, DefaultRng& g) {
        cu.initial(b, support);
        u.update_on_support(b, support, a, o, g);
    };

// ---------------------------------------------------------------------------------------
// PriorStartUpdater (optional refinement of SupportTrackingUpdater): an episode may start
// from the updater's own prior without copying it into the episode's belief. Required
// expressions, in addition:
//   cu.prior()                               -> const Eigen::VectorXd&: b_1 (what initial writes)
//   cu.prior_support()                       -> std::span<const sparse_index>: its support
//   u.update_from_prior(b, support, a, o, g) exactly `initial(b, support);
//                                            update_on_support(b, support, a, o, g);`, to the
//                                            last bit, for a b that is zero outside `support`
// Satisfied by maxent::BayesFilter<M> and by NoisyBelief over it.
// ---------------------------------------------------------------------------------------
template <class U>
concept PriorStartUpdater =
    SupportTrackingUpdater<U> && requires(U& u, const U& cu, Eigen::VectorXd& b, std::vector<sparse_index>& support,
                                          std::size_t a, std::size_t o, DefaultRng& g) {
        { cu.prior() } -> std::same_as<const Eigen::VectorXd&>;
        { cu.prior_support() } -> std::convertible_to<std::span<const sparse_index>>;
        u.update_from_prior(b, support, a, o, g);
    };

// ---------------------------------------------------------------------------------------
// The updater's SPEED HOOKS, as one bundle: the optional members that change how fast a
// rollout runs, never what it computes (support tracking, support_tracking_pays, the prior
// start). A decorator of an updater (NoisyBelief) must offer every hook its inner updater
// offers, with the inner updater's bits wherever it is the inner updater;
// `keeps_updater_speed_hooks<Decorator, Inner>` checks that each one travels, and every
// decorator static_asserts it, so adding a hook here makes a decorator that drops it fail
// to compile.
// ---------------------------------------------------------------------------------------
struct UpdaterSpeedHooks {
    bool support_tracking = false;  ///< SupportTrackingUpdater
    bool says_whether_tracking_pays = false;  ///< `bool support_tracking_pays() const`
    bool prior_start = false;       ///< PriorStartUpdater
};

template <class U>
inline constexpr UpdaterSpeedHooks updater_speed_hooks{
    SupportTrackingUpdater<U>,
    requires(const U& u) { { u.support_tracking_pays() } -> std::convertible_to<bool>; },
    PriorStartUpdater<U>,
};

/// Whether updater D offers every speed hook updater U offers.
template <class D, class U>
inline constexpr bool keeps_updater_speed_hooks =
    (!updater_speed_hooks<U>.support_tracking || updater_speed_hooks<D>.support_tracking) &&
    (!updater_speed_hooks<U>.says_whether_tracking_pays || updater_speed_hooks<D>.says_whether_tracking_pays) &&
    (!updater_speed_hooks<U>.prior_start || updater_speed_hooks<D>.prior_start);


// ---------------------------------------------------------------------------------------
// BeliefFeatures (optional refinement of BeliefUpdater): the policy reads a feature vector
// φ(b) of the belief instead of the belief itself (AgentView::features()). Required
// expressions, in addition, for `Eigen::VectorXd& phi`:
//   cu.feature_dimension()    -> std::size_t: the length of φ(b)
//   cu.features(b, phi)       phi <- φ(b) (resized if needed)
// Without them φ(b) = b, so the belief-averaged policy softmax(θᵀ φ(b)) is the paper's BA.
// Satisfied by maxent::ParticleFilter with a StateFeatureMap (belief/state_features.hpp).
// The rollout computes φ after every belief update when the updater has them.
// ---------------------------------------------------------------------------------------
template <class U>
concept BeliefFeatures = BeliefUpdater<U> && requires(const U& cu, const Eigen::VectorXd& b, Eigen::VectorXd& phi) {
    { cu.feature_dimension() } -> std::convertible_to<std::size_t>;
    cu.features(b, phi);
};

/// The length of what the policy reads: feature_dimension() when the updater has features,
/// its belief's dimension() otherwise.
template <class U>
[[nodiscard]] std::size_t policy_input_dimension(const U& u) {
    if constexpr (BeliefFeatures<U>)
        return u.feature_dimension();
    else
        return u.dimension();
}

}  // namespace maxent
