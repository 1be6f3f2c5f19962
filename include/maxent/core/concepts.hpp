// maxent/core/concepts.hpp — the model-side concepts: Pomdp and its refinement
// TabularPomdp (what an exact Bayes filter needs), and BeliefUpdater.
//
// Paper, Section 2.1: a finite-horizon POMDP M = (S, A, O, P, Obs, T, μ). Models in this
// library generalise the paper's Obs(o | s) to Obs(o | s', a) (the observation may depend
// on the action that led to s', as in the standard POMDP file format); a model whose
// observations ignore the action simply returns the same row for every action.
//
// Each concept is the conjunction of one named check per required expression. The
// `require_*` helpers, called in a static_assert at every top-level entry point, turn a
// missing member into a single message that names it, instead of a page of template
// errors.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

// ---------------------------------------------------------------------------------------
// Pomdp
//
// Required expressions, for `const M m`, `std::size_t i, s, a, o` and labels `x` of the
// matching type:
//   typename M::state_type, M::action_type, M::observation_type   the user's label types
//   m.num_states(), m.num_actions(), m.num_observations()          -> std::size_t, > 0
//   m.horizon()                                                      -> std::size_t, T >= 1
//   m.state_label(i), m.action_label(i), m.observation_label(i)    -> const label&
//   m.state_index(x), m.action_index(x), m.observation_index(x)    -> std::size_t
//   m.initial_distribution()                                        -> const Eigen::VectorXd& (μ)
//   m.transition(s, a)        -> SparseDistribution  P(· | s, a)
//   m.observation(a, s)       -> SparseDistribution  Obs(· | s, a): the observation emitted
//                                                    on arriving in s after action a
//   m.initial_observation(s)  -> SparseDistribution  distribution of o_1 given s_1
// Satisfied by: maxent::FinitePomdp<State, Action, Observation> (model/finite_pomdp.hpp),
// hence by every grid world and every model read from a file.
// ---------------------------------------------------------------------------------------
namespace concept_checks {

template <class M>
concept has_label_types = requires {
    typename M::state_type;
    typename M::action_type;
    typename M::observation_type;
};
template <class M>
concept has_num_states = requires(const M& m) { { m.num_states() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_num_actions = requires(const M& m) { { m.num_actions() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_num_observations =
    requires(const M& m) { { m.num_observations() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_horizon = requires(const M& m) { { m.horizon() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_label_maps = has_label_types<M> && requires(const M& m, std::size_t i,
                                                        const typename M::state_type& x,
                                                        const typename M::action_type& y,
                                                        const typename M::observation_type& z) {
    { m.state_label(i) } -> std::convertible_to<const typename M::state_type&>;
    { m.action_label(i) } -> std::convertible_to<const typename M::action_type&>;
    { m.observation_label(i) } -> std::convertible_to<const typename M::observation_type&>;
    { m.state_index(x) } -> std::convertible_to<std::size_t>;
    { m.action_index(y) } -> std::convertible_to<std::size_t>;
    { m.observation_index(z) } -> std::convertible_to<std::size_t>;
};
template <class M>
concept has_initial_distribution =
    requires(const M& m) { { m.initial_distribution() } -> std::convertible_to<const Eigen::VectorXd&>; };
template <class M>
concept has_transition =
    requires(const M& m, std::size_t s, std::size_t a) { { m.transition(s, a) } -> std::same_as<SparseDistribution>; };
template <class M>
concept has_observation =
    requires(const M& m, std::size_t s, std::size_t a) { { m.observation(a, s) } -> std::same_as<SparseDistribution>; };
template <class M>
concept has_initial_observation =
    requires(const M& m, std::size_t s) { { m.initial_observation(s) } -> std::same_as<SparseDistribution>; };
template <class M>
concept has_likelihood =
    requires(const M& m, std::size_t a, std::size_t o) { { m.likelihood(a, o) } -> std::same_as<SparseDistribution>; };

}  // namespace concept_checks

template <class M>
concept Pomdp = concept_checks::has_label_types<M> && concept_checks::has_num_states<M> &&
                concept_checks::has_num_actions<M> && concept_checks::has_num_observations<M> &&
                concept_checks::has_horizon<M> && concept_checks::has_label_maps<M> &&
                concept_checks::has_initial_distribution<M> && concept_checks::has_transition<M> &&
                concept_checks::has_observation<M> && concept_checks::has_initial_observation<M>;

// ---------------------------------------------------------------------------------------
// TabularPomdp: a Pomdp that also exposes the likelihood columns the exact Bayes filter
// multiplies by (paper, Section 2.1, belief update):
//   m.likelihood(a, o) -> SparseDistribution over states s' (not normalised): the non-zero
//                         entries of the column Obs(o | ·, a).
// Optional, used by BayesFilter when present (same results, faster):
//   m.transition_matrix_transposed(a) -> a compressed row-major Eigen sparse matrix whose
//                         row s' lists the states s with P(s' | s, a) > 0 in ascending order.
// Satisfied by: maxent::FinitePomdp and everything built on it.
// ---------------------------------------------------------------------------------------
template <class M>
concept TabularPomdp = Pomdp<M> && concept_checks::has_likelihood<M>;

/// Call in a static_assert at entry points: one readable message per missing member.
template <class M>
consteval bool require_pomdp() {
    using namespace concept_checks;
    static_assert(has_label_types<M>,
                  "maxent::Pomdp: the model type must define state_type, action_type and observation_type");
    static_assert(has_num_states<M>, "maxent::Pomdp: missing `std::size_t num_states() const`");
    static_assert(has_num_actions<M>, "maxent::Pomdp: missing `std::size_t num_actions() const`");
    static_assert(has_num_observations<M>, "maxent::Pomdp: missing `std::size_t num_observations() const`");
    static_assert(has_horizon<M>, "maxent::Pomdp: missing `std::size_t horizon() const`");
    static_assert(has_label_maps<M>,
                  "maxent::Pomdp: missing a label map: state_label(i)/state_index(x), action_label(i)/"
                  "action_index(x) or observation_label(i)/observation_index(x)");
    static_assert(has_initial_distribution<M>,
                  "maxent::Pomdp: missing `const Eigen::VectorXd& initial_distribution() const`");
    static_assert(has_transition<M>,
                  "maxent::Pomdp: missing `SparseDistribution transition(std::size_t s, std::size_t a) const`");
    static_assert(has_observation<M>,
                  "maxent::Pomdp: missing `SparseDistribution observation(std::size_t a, std::size_t s) const`");
    static_assert(has_initial_observation<M>,
                  "maxent::Pomdp: missing `SparseDistribution initial_observation(std::size_t s) const`");
    return true;
}

template <class M>
consteval bool require_tabular_pomdp() {
    static_assert(require_pomdp<M>());
    static_assert(concept_checks::has_likelihood<M>,
                  "maxent::TabularPomdp: missing `SparseDistribution likelihood(std::size_t a, std::size_t o) const`"
                  " (the column Obs(o | ., a) the exact filter needs)");
    return true;
}

// ---------------------------------------------------------------------------------------
// BeliefUpdater: keeps a belief b ∈ Δ(S) as a dense Eigen vector, updated in place.
// Required expressions, for `U u`, `const U cu`, `Eigen::VectorXd& b`, `std::size_t a, o`
// and a generator `g` (any std::uniform_random_bit_generator; the archetype is DefaultRng):
//   cu.num_states()          -> std::size_t
//   cu.initial(b)            writes the prior b_1 into b (resized if needed)
//   u.update(b, a, o, g)     b <- the posterior after action a and observation o; exact
//                            updaters ignore g, noisy ones draw from it. Throws
//                            zero_likelihood_error if o is impossible under b (exact).
// `update` is non-const so updaters may keep scratch buffers (no allocation per call).
// Satisfied by: maxent::BayesFilter<M> and maxent::NoisyBelief<U> (belief/).
// ---------------------------------------------------------------------------------------
namespace concept_checks {
template <class U>
concept has_updater_num_states = requires(const U& u) { { u.num_states() } -> std::convertible_to<std::size_t>; };
template <class U>
concept has_initial_belief = requires(const U& u, Eigen::VectorXd& b) { u.initial(b); };
template <class U>
concept has_update = requires(U& u, Eigen::VectorXd& b, std::size_t a, std::size_t o, DefaultRng& g) {
    u.update(b, a, o, g);
};
}  // namespace concept_checks

template <class U>
concept BeliefUpdater = concept_checks::has_updater_num_states<U> && concept_checks::has_initial_belief<U> &&
                        concept_checks::has_update<U>;

template <class U>
consteval bool require_belief_updater() {
    using namespace concept_checks;
    static_assert(has_updater_num_states<U>, "maxent::BeliefUpdater: missing `std::size_t num_states() const`");
    static_assert(has_initial_belief<U>, "maxent::BeliefUpdater: missing `void initial(Eigen::VectorXd& b) const`");
    static_assert(has_update<U>,
                  "maxent::BeliefUpdater: missing `void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, "
                  "Rng& g)` (templated on the generator)");
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
// (tests/unit/test_support.cpp); not by NoisyBelief (its noise touches every entry).
// ---------------------------------------------------------------------------------------
template <class U>
concept SupportTrackingUpdater =
    BeliefUpdater<U> && requires(U& u, const U& cu, Eigen::VectorXd& b, std::vector<sparse_index>& support,
                                 std::size_t a, std::size_t o, DefaultRng& g) {
        cu.initial(b, support);
        u.update_on_support(b, support, a, o, g);
    };

}  // namespace maxent
