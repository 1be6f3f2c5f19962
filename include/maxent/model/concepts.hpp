// maxent/model/concepts.hpp — the ladder of world (environment) concepts, their readable
// messages, and the types a rollout holds of a world.
//
// The paper's first setting (Section 4, Assumption 4.1) knows the POMDP M = (S, A, O, P,
// Obs, T, μ) exactly; its second (Section 5) and its motivating robot only have a world to
// act in. The ladder, from least to most the optimiser can be told (each concept's required
// expressions are listed at its definition):
//   GenerativePomdp        a simulator: any copyable state type, actions {0..A-1}, observations
//                          {0..O-1} or of its observation_type; draws with the caller's generator;
//                          counting true states needs a StateBinning (or with_state_binning,
//                          model/wrappers.hpp).
//   ObservationLikelihood  a simulator that can also weigh an observation (particle filters).
//   ExplicitPomdp          finite enumerated states 0..S-1 with sparse distributions.
//   TabularPomdp           an ExplicitPomdp with the likelihood columns Obs(o | ·, a).
//   LabelledPomdp          an ExplicitPomdp with label maps both ways (messages only).
//
// `Environment<M>` is what the rollout and the trainer accept: an ExplicitPomdp, or a
// GenerativePomdp with a StateBinning. The library samples and counts a world only through
// the functions of model/draws.hpp; the wrappers that add a binning or state points to a
// simulator are in model/wrappers.hpp. A type satisfying both ladders' requirements is
// treated as an explicit model.
//
// Each concept is the conjunction of one named check per required expression; the
// `require_*` helpers, called in a static_assert at every top-level entry point, turn a
// missing member into one message naming it.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/point.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

namespace concept_checks {

// --- shared by both rungs --------------------------------------------------------------------
template <class M>
concept has_num_actions = requires(const M& m) { { m.num_actions() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_num_observations =
    requires(const M& m) { { m.num_observations() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_horizon = requires(const M& m) { { m.horizon() } -> std::convertible_to<std::size_t>; };

// --- GenerativePomdp --------------------------------------------------------------------------
template <class M>
concept has_copyable_state_type = requires { typename M::state_type; } && std::copyable<typename M::state_type>;
// Actions: M::action_type when a simulator declares a non-integral one (continuous actions,
// an ActionVector with an ActionBox), else indices {0..A-1}. Explicit models' action_type is
// a label (LabelledPomdp): their actions are always indices.
template <class M>
concept declares_action_type = requires { typename M::action_type; };
template <class M>
concept index_actions = !declares_action_type<M> || std::integral<typename M::action_type>;
template <class M>
struct action_of {
    using type = std::size_t;
};
template <class M>
    requires declares_action_type<M> && (!index_actions<M>)
struct action_of<M> {
    using type = typename M::action_type;
};
template <class M>
concept has_action_vector_type = index_actions<M> || ActionVector<typename M::action_type>;
template <class M>
concept has_action_box = requires(const M& m) { { m.action_box() } -> std::convertible_to<ActionBox>; };
/// Converts to any floating-point type and to nothing else: a member that accepts it takes a
/// floating-point action.
struct floating_action_probe {
    template <std::floating_point F>
    operator F() const noexcept {
        return F{};
    }
};
/// Converts to any integral type and to nothing else: a member that accepts it takes an index.
struct index_action_probe {
    template <std::integral I>
    operator I() const noexcept {
        return I{};
    }
};
/// The world declares no action_type (so it is passed indices) but sample_next_state takes a
/// floating-point action: declare the type.
template <class M>
concept takes_floating_action_without_type =
    !declares_action_type<M> && has_copyable_state_type<M> &&
    requires(const M& m, const typename M::state_type& s, floating_action_probe a, DefaultRng& g) {
        m.sample_next_state(s, a, g);
    };
/// The world declares a continuous action_type but sample_next_state takes an index (the
/// action would be truncated).
template <class M>
concept takes_index_action_with_type =
    !index_actions<M> && has_copyable_state_type<M> &&
    requires(const M& m, const typename M::state_type& s, index_action_probe a, DefaultRng& g) {
        m.sample_next_state(s, a, g);
    };
template <class M>
concept has_sample_initial_state = has_copyable_state_type<M> && requires(const M& m, DefaultRng& g) {
    { m.sample_initial_state(g) } -> std::convertible_to<typename M::state_type>;
};
// Observations: M::observation_type when declared (any copyable type), else indices. An
// index-observing model (no observation_type, or an integral one) returns std::size_t; a
// floating-point result without a declared type is refused (it would be truncated to an index).
template <class M>
concept declares_observation_type = requires { typename M::observation_type; };
template <class M>
concept index_observations = !declares_observation_type<M> || std::integral<typename M::observation_type>;
template <class R, class M>
concept converts_to_observation_type = std::convertible_to<R, typename M::observation_type>;
template <class R>
concept index_result = std::convertible_to<R, std::size_t> && !std::floating_point<std::remove_cvref_t<R>>;
template <class R, class M>
concept observation_result = (declares_observation_type<M> && converts_to_observation_type<R, M>) ||
                             (!declares_observation_type<M> && index_result<R>);
template <class R>
concept floating_result = std::floating_point<std::remove_cvref_t<R>>;
template <class M>
concept returns_floating_index =
    !declares_observation_type<M> && has_copyable_state_type<M> &&
    requires(const M& m, const typename M::state_type& s, const typename action_of<M>::type& a, DefaultRng& g) {
        { m.sample_observation(a, s, g) } -> floating_result;
    };
template <class M>
concept has_sample_initial_observation =
    has_copyable_state_type<M> && requires(const M& m, const typename M::state_type& s, DefaultRng& g) {
        { m.sample_initial_observation(s, g) } -> observation_result<M>;
    };
template <class M>
concept has_sample_next_state =
    has_copyable_state_type<M> && requires(const M& m, const typename M::state_type& s,
                                           const typename action_of<M>::type& a, DefaultRng& g) {
        { m.sample_next_state(s, a, g) } -> std::convertible_to<typename M::state_type>;
    };
template <class M>
concept has_sample_observation =
    has_copyable_state_type<M> && requires(const M& m, const typename action_of<M>::type& a,
                                           const typename M::state_type& s, DefaultRng& g) {
        { m.sample_observation(a, s, g) } -> observation_result<M>;
    };
/// What a world must say about its actions: num_actions() for indices, an ActionVector
/// action_type and action_box() otherwise.
template <class M>
concept has_action_space =
    (index_actions<M> && has_num_actions<M>) || (!index_actions<M> && has_action_vector_type<M> && has_action_box<M>);

// --- StateBinning -----------------------------------------------------------------------------
template <class M>
concept has_num_state_bins = requires(const M& m) { { m.num_state_bins() } -> std::convertible_to<std::size_t>; };
template <class M>
concept has_state_bin = has_copyable_state_type<M> && requires(const M& m, const typename M::state_type& s) {
    { m.state_bin(s) } -> std::convertible_to<std::size_t>;
};

// --- ObservationLikelihood --------------------------------------------------------------------
template <class M>
struct observation_of {
    using type = std::size_t;
};
template <class M>
    requires declares_observation_type<M> && (!index_observations<M>)
struct observation_of<M> {
    using type = typename M::observation_type;
};
template <class M>
concept has_observation_likelihood =
    has_copyable_state_type<M> &&
    requires(const M& m, const typename action_of<M>::type& a, const typename observation_of<M>::type& o,
             const typename M::state_type& s) {
        { m.observation_likelihood(a, o, s) } -> std::convertible_to<double>;
    };
template <class M>
concept has_observation_log_likelihood =
    has_copyable_state_type<M> &&
    requires(const M& m, const typename action_of<M>::type& a, const typename observation_of<M>::type& o,
             const typename M::state_type& s) {
        { m.observation_log_likelihood(a, o, s) } -> std::convertible_to<double>;
    };
template <class M>
concept has_observation_bin =
    has_num_observations<M> && requires(const M& m, const typename observation_of<M>::type& o) {
        { m.observation_bin(o) } -> std::convertible_to<std::size_t>;
    };
template <class M>
concept has_observation_point = requires(const M& m, const typename observation_of<M>::type& o, std::span<double> out) {
    { m.observation_point_dimension() } -> std::convertible_to<std::size_t>;
    m.observation_point(o, out);
};
template <class M>
concept has_state_point =
    has_copyable_state_type<M> && requires(const M& m, const typename M::state_type& s, std::span<double> out) {
        { m.state_point_dimension() } -> std::convertible_to<std::size_t>;
        m.state_point(s, out);
    };

// --- ExplicitPomdp ----------------------------------------------------------------------------
template <class M>
concept has_num_states = requires(const M& m) { { m.num_states() } -> std::convertible_to<std::size_t>; };
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

// --- LabelledPomdp ----------------------------------------------------------------------------
template <class M>
concept has_label_types = requires {
    typename M::state_type;
    typename M::action_type;
    typename M::observation_type;
};
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

/// Whether a type looks like an attempt at an explicit model (for choosing which rung's
/// messages to print when neither is satisfied).
template <class M>
concept looks_explicit = has_num_states<M> || has_initial_distribution<M> || has_transition<M> ||
                         has_observation<M> || has_initial_observation<M>;

}  // namespace concept_checks

// ---------------------------------------------------------------------------------------
// GenerativePomdp: a simulator. Required expressions, for `const M m`, a state `s` of type
// `typename M::state_type` (std::copyable), an action `a` (std::size_t, or the declared
// continuous action_type: see below) and a generator `g` (any
// std::uniform_random_bit_generator; the archetype is DefaultRng):
//   m.num_actions(), m.num_observations()    -> std::size_t, > 0 (num_actions: index actions only)
//   m.horizon()                              -> std::size_t, T >= 1
//   m.sample_initial_state(g)                -> state_type      s_1 ~ μ
//   m.sample_initial_observation(s, g)       -> std::size_t     o_1 given s_1, < num_observations()
//   m.sample_next_state(s, a, g)             -> state_type      s' ~ P(· | s, a)
//   m.sample_observation(a, s', g)           -> std::size_t     o ~ Obs(· | s', a), < num_observations()
// Observations of the simulator's own type: declare `using observation_type = T;` (any
// copyable T; an integral T means indices as above). Both observation draws then return T,
// num_observations() becomes optional (with `m.observation_bin(o) -> std::size_t` it counts
// the bins binned MOE reads), and a point-like T (core/point.hpp), or the members
// `m.observation_point_dimension()` and `m.observation_point(o, std::span<double> out)`, lets
// kNN MOE and the observation-feature policy read o as a vector. A floating-point result
// without a declared type is refused at compile time (it would be truncated to an index).
// Continuous (typed) actions: declare `using action_type = A;` with A a double, a
// std::array<double, d> or an Eigen column vector of doubles (ActionVector, core/actions.hpp;
// an integral A means indices as above) and
//   m.action_box()                           -> maxent::ActionBox: per coordinate finite
//                                               lower < upper bounds (the policy's range)
// in place of num_actions(); sample_next_state, sample_observation and (for particle
// filters) observation_(log_)likelihood then take `const action_type& a`. A world that takes
// a floating-point action without declaring the type, or declares it and takes an index, is
// refused at compile time with the declaration to add. Such worlds are driven by
// continuous-action policies (policy/gaussian.hpp, policy/uniform_box.hpp) and particle
// beliefs; the exact filter, the learned belief models and the exact objectives stay
// finite-action (require_index_actions).
// Every draw must come from g alone (runs are pure functions of the seed). Satisfied by
// user simulators, e.g. the continuous room of examples/plug_in/continuous_room.hpp (used by
// tests/unit/test_generative.cpp and maxent-plug-in).
//
// StateBinning (what MSE and the reported true-state entropy count for such a world):
//   m.num_state_bins()                       -> std::size_t, > 0
//   m.state_bin(s)                           -> std::size_t, < num_state_bins()
// Added to any generative model by with_state_binning(model, bins, fn) (model/wrappers.hpp).
// ---------------------------------------------------------------------------------------
template <class M>
concept GenerativePomdp = concept_checks::has_copyable_state_type<M> && concept_checks::has_action_space<M> &&
                          (concept_checks::has_num_observations<M> || !concept_checks::index_observations<M>) &&
                          concept_checks::has_horizon<M> &&
                          concept_checks::has_sample_initial_state<M> &&
                          concept_checks::has_sample_initial_observation<M> &&
                          concept_checks::has_sample_next_state<M> && concept_checks::has_sample_observation<M>;

template <class M>
concept StateBinning = concept_checks::has_num_state_bins<M> && concept_checks::has_state_bin<M>;

// ---------------------------------------------------------------------------------------
// ObservationLikelihood (an opt-in refinement of GenerativePomdp): the simulator can also
// WEIGH an observation, which is what a particle filter of the world needs
// (belief/particle_filter.hpp). Required expression, for `const M m`, an action `a`
// (std::size_t, or `const action_type&` for continuous actions), an
// observation `o` (std::size_t, or the declared observation_type) and a state `s` of type
// `typename M::state_type`:
//   m.observation_likelihood(a, o, s)  -> double: a weight proportional to Obs(o | s, a),
//                                         the probability of observing o on arriving in s
//                                         after action a; finite and >= 0. Any factor that
//                                         depends on (a, o) only may be dropped (a density
//                                         of a discretised sensor is fine).
// or instead (or as well; the filter then weighs in logs):
//   m.observation_log_likelihood(a, o, s) -> double: its log, -inf for 0, never NaN or +inf
// It must agree with sample_observation(a, s, g) (the filter weighs by it what the world
// draws by the other); a NaN, negative or infinite value is a model_error naming it,
// raised by the filter. Satisfied by the rescue world (model/rescue_world.hpp) and by
// as_generative(explicit model) (model/generative_view.hpp); with_state_binning forwards it.
// ---------------------------------------------------------------------------------------
template <class M>
concept ObservationLikelihood = GenerativePomdp<M> && (concept_checks::has_observation_likelihood<M> ||
                                                       concept_checks::has_observation_log_likelihood<M>);

// ---------------------------------------------------------------------------------------
// ExplicitPomdp: finite enumerated states. Required expressions, for `const M m` and
// `std::size_t s, a, o`:
//   m.num_states(), m.num_actions(), m.num_observations()  -> std::size_t, > 0
//   m.horizon()                                             -> std::size_t, T >= 1
//   m.initial_distribution()   -> const Eigen::VectorXd&  μ
//   m.transition(s, a)         -> SparseDistribution      P(· | s, a)
//   m.observation(a, s)        -> SparseDistribution      Obs(· | s, a): the observation
//                                                         emitted on arriving in s after a
//   m.initial_observation(s)   -> SparseDistribution      the law of o_1 given s_1
// Models generalise the paper's Obs(o | s) to Obs(o | s', a), as in the POMDP file format; a
// model whose observations ignore the action returns the same row for every action.
// Satisfied by maxent::FinitePomdp<State, Action, Observation> (model/finite_pomdp.hpp),
// hence by every grid world and every model read from a file.
//
// TabularPomdp, in addition:
//   m.likelihood(a, o)         -> SparseDistribution over s' (not normalised): the non-zero
//                                 entries of the column Obs(o | ·, a)
// (optional, see core/optional_members.hpp: m.transition_matrix_transposed(a)).
//
// LabelledPomdp, in addition: typename M::state_type, action_type, observation_type (the
// user's labels) and m.state_label(i), m.action_label(i), m.observation_label(i) -> const
// label&, m.state_index(x), m.action_index(x), m.observation_index(x) -> std::size_t. Only
// messages use them.
// ---------------------------------------------------------------------------------------
template <class M>
concept ExplicitPomdp = concept_checks::has_num_states<M> && concept_checks::has_num_actions<M> &&
                        concept_checks::has_num_observations<M> && concept_checks::has_horizon<M> &&
                        concept_checks::has_initial_distribution<M> && concept_checks::has_transition<M> &&
                        concept_checks::has_observation<M> && concept_checks::has_initial_observation<M>;

template <class M>
concept TabularPomdp = ExplicitPomdp<M> && concept_checks::has_likelihood<M>;

template <class M>
concept LabelledPomdp = ExplicitPomdp<M> && concept_checks::has_label_maps<M>;

/// What the rollout and the trainer accept: an explicit model, or a simulator whose states
/// can be counted.
template <class M>
concept Environment = ExplicitPomdp<M> || (GenerativePomdp<M> && StateBinning<M>);

// --- readable messages ------------------------------------------------------------------------

/// Call in a static_assert at entry points that only handle action indices (the exact
/// filter, learned belief models, exact objectives): a simulator with a continuous
/// action_type gets one message saying so. require_pomdp and require_tabular_pomdp check it
/// first.
template <class M>
consteval bool require_index_actions() {
    static_assert(concept_checks::index_actions<M> || concept_checks::looks_explicit<M>,
                  "maxent: this entry point is finite-action (the exact Bayes filter, the learned IOHMM belief models "
                  "and the exact objectives enumerate actions {0..A-1}) but the world declares a continuous "
                  "action_type: use a ParticleFilter belief and a continuous-action policy (GaussianPolicy, "
                  "UniformBoxPolicy) with the Sampler/Trainer");
    return true;
}

template <class M>
consteval bool require_pomdp() {
    using namespace concept_checks;
    if constexpr (!index_actions<M> && !looks_explicit<M>) {
        return require_index_actions<M>();
    } else {
        static_assert(has_num_states<M>, "maxent::ExplicitPomdp: missing `std::size_t num_states() const`");
        static_assert(has_num_actions<M>, "maxent::ExplicitPomdp: missing `std::size_t num_actions() const`");
        static_assert(has_num_observations<M>,
                      "maxent::ExplicitPomdp: missing `std::size_t num_observations() const`");
        static_assert(has_horizon<M>, "maxent::ExplicitPomdp: missing `std::size_t horizon() const`");
        static_assert(has_initial_distribution<M>,
                      "maxent::ExplicitPomdp: missing `const Eigen::VectorXd& initial_distribution() const`");
        static_assert(has_transition<M>,
                      "maxent::ExplicitPomdp: missing `SparseDistribution transition(std::size_t s, std::size_t a) const`");
        static_assert(has_observation<M>,
                      "maxent::ExplicitPomdp: missing `SparseDistribution observation(std::size_t a, std::size_t s) const`");
        static_assert(has_initial_observation<M>,
                      "maxent::ExplicitPomdp: missing `SparseDistribution initial_observation(std::size_t s) const`");
        return true;
    }
}

template <class M>
consteval bool require_tabular_pomdp() {
    static_assert(require_pomdp<M>());
    static_assert(concept_checks::has_likelihood<M> || (!concept_checks::index_actions<M> &&
                                                        !concept_checks::looks_explicit<M>),
                  "maxent::TabularPomdp: missing `SparseDistribution likelihood(std::size_t a, std::size_t o) const`"
                  " (the column Obs(o | ., a) the exact filter needs)");
    return true;
}

template <class M>
consteval bool require_generative_pomdp() {
    using namespace concept_checks;
    static_assert(has_copyable_state_type<M>,
                  "maxent::GenerativePomdp: missing `using state_type = ...;` (any copyable type)");
    static_assert(!takes_floating_action_without_type<M>,
                  "maxent::GenerativePomdp: sample_next_state takes a floating-point action but the model declares "
                  "no action_type, so it would be passed action indices; declare the type and its bounds in the "
                  "model: `using action_type = double;` (or std::array<double, d>, an Eigen vector of doubles) and "
                  "`maxent::ActionBox action_box() const`");
    static_assert(!takes_index_action_with_type<M>,
                  "maxent::GenerativePomdp: the model declares a continuous action_type but sample_next_state takes "
                  "an index (the action would be truncated); take `const action_type& a`");
    static_assert(has_action_vector_type<M>,
                  "maxent::GenerativePomdp: action_type must be an integral type (action indices) or a continuous "
                  "action: double, std::array<double, d> or an Eigen column vector of doubles");
    static_assert(!index_actions<M> || has_num_actions<M> || takes_floating_action_without_type<M>,
                  "maxent::GenerativePomdp: missing `std::size_t num_actions() const` (actions are indices unless "
                  "the model declares `using action_type = ...;`)");
    static_assert(index_actions<M> || has_action_box<M>,
                  "maxent::GenerativePomdp: the model declares a continuous action_type but no bounds: missing "
                  "`maxent::ActionBox action_box() const` (core/actions.hpp: lower and upper bound per coordinate)");
    static_assert(!returns_floating_index<M>,
                  "maxent::GenerativePomdp: sample_observation returns a floating-point value but the model declares "
                  "no observation_type, so the value would be read as an observation index; declare the type in the "
                  "model: `using observation_type = double;` (or std::array<double, N>, an Eigen vector, a struct)");
    static_assert(has_num_observations<M> || !index_observations<M>,
                  "maxent::GenerativePomdp: missing `std::size_t num_observations() const` (observations are "
                  "indices unless the model declares `using observation_type = ...;`)");
    static_assert(has_horizon<M>, "maxent::GenerativePomdp: missing `std::size_t horizon() const`");
    static_assert(has_sample_initial_state<M>,
                  "maxent::GenerativePomdp: missing `state_type sample_initial_state(G& g) const` (templated on "
                  "the generator)");
    // A floating-point result has had its message above: the two below would only repeat it.
    static_assert(has_sample_initial_observation<M> || returns_floating_index<M>,
                  "maxent::GenerativePomdp: missing `std::size_t sample_initial_observation(const state_type& s, "
                  "G& g) const` (observation_type instead of std::size_t when the model declares one)");
    static_assert(has_sample_next_state<M> || takes_floating_action_without_type<M> ||
                      takes_index_action_with_type<M>,
                  "maxent::GenerativePomdp: missing `state_type sample_next_state(const state_type& s, std::size_t "
                  "a, G& g) const` (`const action_type& a` when the model declares an action_type)");
    static_assert(has_sample_observation<M> || returns_floating_index<M> || takes_floating_action_without_type<M> ||
                      takes_index_action_with_type<M>,
                  "maxent::GenerativePomdp: missing `std::size_t sample_observation(std::size_t a, const "
                  "state_type& s, G& g) const` (observation_type instead of std::size_t when the model declares one; "
                  "`const action_type& a` when it declares an action_type)");
    return true;
}

/// Call in a static_assert at entry points that weigh observations of a simulator
/// (ParticleFilter).
template <class M>
consteval bool require_observation_likelihood() {
    static_assert(require_generative_pomdp<M>());
    static_assert(concept_checks::has_observation_likelihood<M> || concept_checks::has_observation_log_likelihood<M>,
                  "maxent::ObservationLikelihood: missing `double observation_likelihood(std::size_t a, std::size_t o, "
                  "const state_type& s) const` (a weight proportional to Obs(o | s, a), which a particle filter needs; "
                  "o is an observation_type and a a `const action_type&` when the model declares them; or its log: "
                  "`double observation_log_likelihood(a, o, s) const`)");
    return true;
}

/// Call in a static_assert at entry points that sample a world (Sampler, Trainer).
template <class M>
consteval bool require_environment() {
    if constexpr (ExplicitPomdp<M>) {
        return true;
    } else if constexpr (concept_checks::looks_explicit<M>) {
        return require_pomdp<M>();
    } else {
        static_assert(require_generative_pomdp<M>());
        static_assert(concept_checks::has_num_state_bins<M> && concept_checks::has_state_bin<M>,
                      "maxent::Environment: a generative model must say how its true states are counted: "
                      "`std::size_t num_state_bins() const` and `std::size_t state_bin(const state_type&) const`, "
                      "or wrap it: maxent::with_state_binning(model, bins, fn)");
        return true;
    }
}

// ---------------------------------------------------------------------------------------
// What a rollout holds of a world. `world_state_t<M>` is the true state: std::size_t (an
// index) for explicit models, M::state_type for generative ones. The functions that draw
// and count them are in model/draws.hpp.
// ---------------------------------------------------------------------------------------
namespace detail {
template <class M>
struct world_state {
    using type = typename M::state_type;
};
template <ExplicitPomdp M>
struct world_state<M> {
    using type = std::size_t;
};
}  // namespace detail

template <class M>
using world_state_t = typename detail::world_state<M>::type;

/// What a rollout holds as an action: std::size_t (an index) for explicit models and index
/// simulators, M::action_type for simulators that declare a continuous one (core/actions.hpp).
template <class M>
using world_action_t = std::conditional_t<ExplicitPomdp<M>, std::size_t, typename concept_checks::action_of<M>::type>;

/// Whether the world's actions are continuous (an ActionVector action_type with an ActionBox).
template <class M>
inline constexpr bool continuous_actions = !std::same_as<world_action_t<M>, std::size_t>;

/// How the library passes an action of M: by value for an index, by const reference for a
/// continuous action.
template <class M>
using action_arg_t = std::conditional_t<continuous_actions<M>, const world_action_t<M>&, std::size_t>;

/// What a rollout holds as an observation: std::size_t (an index) for explicit models and
/// index-observing simulators, M::observation_type for simulators that declare a non-integral one.
template <class M>
using world_observation_t =
    std::conditional_t<ExplicitPomdp<M>, std::size_t, typename concept_checks::observation_of<M>::type>;

/// Whether the world's observations are indices 0..O-1 (the paper's, the finite models').
template <class M>
inline constexpr bool indexed_observations = std::same_as<world_observation_t<M>, std::size_t>;

/// Whether the world's observations read as points of R^d: a PointLike observation_type, or
/// m.observation_point_dimension() and m.observation_point(o, std::span<double> out) (structs).
template <class M>
inline constexpr bool has_observation_points =
    !indexed_observations<M> && (concept_checks::has_observation_point<M> || PointLike<world_observation_t<M>>);

/// Whether true states read as points: m.state_point_dimension() and m.state_point(s, out),
/// the user's map state -> R^d (or with_state_points(model, d, fn), model/wrappers.hpp).
template <class M>
inline constexpr bool has_state_points = concept_checks::has_state_point<M>;

}  // namespace maxent
