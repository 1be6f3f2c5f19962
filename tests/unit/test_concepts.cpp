// Compile-time tests of model/concepts.hpp and belief/concepts.hpp: what satisfies
// ExplicitPomdp, TabularPomdp, LabelledPomdp, GenerativePomdp, Environment and BeliefUpdater
// and what does not. Every type missing exactly one required member fails its concept, and
// the named check in maxent::concept_checks for that member is the one that is false (all
// other checks stay true), so require_*() reports that member only.
// The types below are declarations only: concepts never call their members.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <random>
#include <string>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace test_concepts {

namespace concepts_test {

using maxent::SparseDistribution;

// --- building blocks of an ExplicitPomdp, one per required expression group ------------------------
struct LabelTypes {
    using state_type = int;
    using action_type = char;
    using observation_type = std::string;
};
struct LabelTypesWithoutState {  // no state_type typedef
    using action_type = char;
    using observation_type = std::string;
};
struct NumStates {
    std::size_t num_states() const;
};
struct OtherSizes {
    std::size_t num_actions() const;
    std::size_t num_observations() const;
};
struct Horizon {
    std::size_t horizon() const;
};
struct LabelMaps {
    const int& state_label(std::size_t) const;
    const char& action_label(std::size_t) const;
    const std::string& observation_label(std::size_t) const;
    std::size_t state_index(const int&) const;
    std::size_t action_index(const char&) const;
    std::size_t observation_index(const std::string&) const;
};
struct LabelMapsWithoutObservation {  // observation_label/observation_index missing
    const int& state_label(std::size_t) const;
    const char& action_label(std::size_t) const;
    std::size_t state_index(const int&) const;
    std::size_t action_index(const char&) const;
};
struct Initial {
    const Eigen::VectorXd& initial_distribution() const;
};
struct Transition {
    SparseDistribution transition(std::size_t s, std::size_t a) const;
};
struct DenseTransition {  // wrong return type: a dense vector instead of SparseDistribution
    Eigen::VectorXd transition(std::size_t s, std::size_t a) const;
};
struct Observations {
    SparseDistribution observation(std::size_t a, std::size_t s) const;
    SparseDistribution initial_observation(std::size_t s) const;
};
struct Likelihood {
    SparseDistribution likelihood(std::size_t a, std::size_t o) const;
};

// A minimal hand-written ExplicitPomdp (no likelihood, so not a TabularPomdp) and its tabular form.
struct MinimalPomdp : LabelTypes, NumStates, OtherSizes, Horizon, LabelMaps, Initial, Transition, Observations {};
struct MinimalTabular : MinimalPomdp, Likelihood {};

// Each missing exactly one member (or one group of label maps).
struct NoHorizon : LabelTypes, NumStates, OtherSizes, LabelMaps, Initial, Transition, Observations {};
struct NoNumStates : LabelTypes, OtherSizes, Horizon, LabelMaps, Initial, Transition, Observations {};
struct WrongTransition : LabelTypes, NumStates, OtherSizes, Horizon, LabelMaps, Initial, DenseTransition,
                         Observations {};
struct NoStateType : LabelTypesWithoutState, NumStates, OtherSizes, Horizon, LabelMaps, Initial, Transition,
                     Observations {};
struct NoLabelMaps : LabelTypes, NumStates, OtherSizes, Horizon, Initial, Transition, Observations {};
struct NoObservationMap : LabelTypes, NumStates, OtherSizes, Horizon, LabelMapsWithoutObservation, Initial,
                          Transition, Observations {};
struct NoInitial : LabelTypes, NumStates, OtherSizes, Horizon, LabelMaps, Transition, Observations {};

// The ten named checks of ExplicitPomdp, in the order of `Check` below.
enum class Check : std::size_t {
    label_types,
    num_states,
    num_actions,
    num_observations,
    horizon,
    label_maps,
    initial_distribution,
    transition,
    observation,
    initial_observation,
    check_count
};
constexpr std::size_t num_checks = static_cast<std::size_t>(Check::check_count);

template <class M>
constexpr std::array<bool, num_checks> pomdp_checks{
    maxent::concept_checks::has_label_types<M>,      maxent::concept_checks::has_num_states<M>,
    maxent::concept_checks::has_num_actions<M>,      maxent::concept_checks::has_num_observations<M>,
    maxent::concept_checks::has_horizon<M>,          maxent::concept_checks::has_label_maps<M>,
    maxent::concept_checks::has_initial_distribution<M>, maxent::concept_checks::has_transition<M>,
    maxent::concept_checks::has_observation<M>,      maxent::concept_checks::has_initial_observation<M>};

/// All checks true except the listed ones.
template <class... Failing>
constexpr std::array<bool, num_checks> all_but(Failing... failing) {
    std::array<bool, num_checks> expected{};
    expected.fill(true);
    ((expected[static_cast<std::size_t>(failing)] = false), ...);
    return expected;
}

// --- BeliefUpdater archetypes ---------------------------------------------------------------
struct ArchetypeUpdater {
    std::size_t dimension() const;
    void initial(Eigen::VectorXd& b) const;
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& g);
};
struct NoUpdate {
    std::size_t dimension() const;
    void initial(Eigen::VectorXd& b) const;
};
struct UpdateWithoutGenerator {  // update(b, a, o): no generator parameter
    std::size_t dimension() const;
    void initial(Eigen::VectorXd& b) const;
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o);
};
struct NoInitialBelief {
    std::size_t dimension() const;
    template <class G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& g);
};
struct NoUpdaterDimension {
    void initial(Eigen::VectorXd& b) const;
    template <class G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& g);
};

}  // namespace concepts_test

using namespace concepts_test;
namespace cc = maxent::concept_checks;

TEST_CASE("FinitePomdp satisfies ExplicitPomdp and TabularPomdp", "[concepts]") {
    using Strings = maxent::FinitePomdp<std::string, std::string, std::string>;
    using Ints = maxent::FinitePomdp<int, int, int>;
    STATIC_REQUIRE(maxent::ExplicitPomdp<Strings>);
    STATIC_REQUIRE(maxent::TabularPomdp<Strings>);
    STATIC_REQUIRE(maxent::ExplicitPomdp<Ints>);
    STATIC_REQUIRE(maxent::TabularPomdp<Ints>);
    STATIC_REQUIRE(maxent::LabelledPomdp<Ints>);
    STATIC_REQUIRE(maxent::Environment<Ints>);
    STATIC_REQUIRE(maxent::require_environment<Ints>());
    // Its label typedefs are labels, not sampled states: it is not a simulator.
    STATIC_REQUIRE_FALSE(maxent::GenerativePomdp<Ints>);
    STATIC_REQUIRE(pomdp_checks<Ints> == all_but());
    STATIC_REQUIRE(maxent::require_pomdp<Ints>());
    STATIC_REQUIRE(maxent::require_tabular_pomdp<Ints>());
    // Concepts look at the type only: a pointer or an unrelated type is not a model.
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<Ints*>);
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<int>);
    STATIC_REQUIRE_FALSE(maxent::BeliefUpdater<Ints>);
}

TEST_CASE("a minimal hand-written model is an ExplicitPomdp but, without likelihood(), not a TabularPomdp", "[concepts]") {
    STATIC_REQUIRE(maxent::ExplicitPomdp<MinimalPomdp>);
    STATIC_REQUIRE(pomdp_checks<MinimalPomdp> == all_but());
    STATIC_REQUIRE(maxent::require_pomdp<MinimalPomdp>());
    STATIC_REQUIRE_FALSE(cc::has_likelihood<MinimalPomdp>);
    STATIC_REQUIRE_FALSE(maxent::TabularPomdp<MinimalPomdp>);
    // Adding likelihood(a, o) makes it tabular.
    STATIC_REQUIRE(cc::has_likelihood<MinimalTabular>);
    STATIC_REQUIRE(maxent::TabularPomdp<MinimalTabular>);
    STATIC_REQUIRE(maxent::require_tabular_pomdp<MinimalTabular>());
}

TEST_CASE("no horizon(): only has_horizon is false", "[concepts]") {
    STATIC_REQUIRE_FALSE(cc::has_horizon<NoHorizon>);
    STATIC_REQUIRE(pomdp_checks<NoHorizon> == all_but(Check::horizon));
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<NoHorizon>);
    STATIC_REQUIRE_FALSE(maxent::TabularPomdp<NoHorizon>);
}

TEST_CASE("no num_states(): only has_num_states is false", "[concepts]") {
    STATIC_REQUIRE_FALSE(cc::has_num_states<NoNumStates>);
    STATIC_REQUIRE(pomdp_checks<NoNumStates> == all_but(Check::num_states));
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<NoNumStates>);
}

TEST_CASE("transition() returning a dense vector: only has_transition is false", "[concepts]") {
    STATIC_REQUIRE_FALSE(cc::has_transition<WrongTransition>);
    STATIC_REQUIRE(pomdp_checks<WrongTransition> == all_but(Check::transition));
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<WrongTransition>);
}

TEST_CASE("no state_type typedef: has_label_types is false (and the label maps, stated in it)", "[concepts]") {
    STATIC_REQUIRE_FALSE(cc::has_label_types<NoStateType>);
    // has_label_maps is written in terms of M::state_type (state_index takes one), so it
    // cannot hold without the typedef; every other check still holds.
    STATIC_REQUIRE_FALSE(cc::has_label_maps<NoStateType>);
    STATIC_REQUIRE(pomdp_checks<NoStateType> == all_but(Check::label_types, Check::label_maps));
    // Labels are an optional refinement (messages only): still an explicit model.
    STATIC_REQUIRE(maxent::ExplicitPomdp<NoStateType>);
    STATIC_REQUIRE_FALSE(maxent::LabelledPomdp<NoStateType>);
}

TEST_CASE("no label maps: only has_label_maps is false", "[concepts]") {
    STATIC_REQUIRE_FALSE(cc::has_label_maps<NoLabelMaps>);
    STATIC_REQUIRE(pomdp_checks<NoLabelMaps> == all_but(Check::label_maps));
    STATIC_REQUIRE(maxent::ExplicitPomdp<NoLabelMaps>);
    STATIC_REQUIRE_FALSE(maxent::LabelledPomdp<NoLabelMaps>);
    // Missing only the observation map is enough to fail the labelled refinement.
    STATIC_REQUIRE_FALSE(cc::has_label_maps<NoObservationMap>);
    STATIC_REQUIRE(pomdp_checks<NoObservationMap> == all_but(Check::label_maps));
    STATIC_REQUIRE_FALSE(maxent::LabelledPomdp<NoObservationMap>);
}

TEST_CASE("no initial_distribution(): only has_initial_distribution is false", "[concepts]") {
    STATIC_REQUIRE_FALSE(cc::has_initial_distribution<NoInitial>);
    STATIC_REQUIRE(pomdp_checks<NoInitial> == all_but(Check::initial_distribution));
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<NoInitial>);
}

TEST_CASE("a minimal archetype with a templated update satisfies BeliefUpdater", "[concepts]") {
    STATIC_REQUIRE(cc::has_updater_dimension<ArchetypeUpdater>);
    STATIC_REQUIRE(cc::has_initial_belief<ArchetypeUpdater>);
    STATIC_REQUIRE(cc::has_update<ArchetypeUpdater>);
    STATIC_REQUIRE(maxent::BeliefUpdater<ArchetypeUpdater>);
    STATIC_REQUIRE(maxent::require_belief_updater<ArchetypeUpdater>());
    // update() is non-const: a const updater is not an updater.
    STATIC_REQUIRE_FALSE(maxent::BeliefUpdater<const ArchetypeUpdater>);
    // An updater is not a model.
    STATIC_REQUIRE_FALSE(maxent::ExplicitPomdp<ArchetypeUpdater>);
}

TEST_CASE("updaters missing one member fail BeliefUpdater on that member's check", "[concepts]") {
    SECTION("no update") {
        STATIC_REQUIRE(cc::has_updater_dimension<NoUpdate>);
        STATIC_REQUIRE(cc::has_initial_belief<NoUpdate>);
        STATIC_REQUIRE_FALSE(cc::has_update<NoUpdate>);
        STATIC_REQUIRE_FALSE(maxent::BeliefUpdater<NoUpdate>);
    }
    SECTION("update without a generator parameter") {
        STATIC_REQUIRE(cc::has_updater_dimension<UpdateWithoutGenerator>);
        STATIC_REQUIRE(cc::has_initial_belief<UpdateWithoutGenerator>);
        STATIC_REQUIRE_FALSE(cc::has_update<UpdateWithoutGenerator>);
        STATIC_REQUIRE_FALSE(maxent::BeliefUpdater<UpdateWithoutGenerator>);
    }
    SECTION("no initial") {
        STATIC_REQUIRE(cc::has_updater_dimension<NoInitialBelief>);
        STATIC_REQUIRE_FALSE(cc::has_initial_belief<NoInitialBelief>);
        STATIC_REQUIRE(cc::has_update<NoInitialBelief>);
        STATIC_REQUIRE_FALSE(maxent::BeliefUpdater<NoInitialBelief>);
    }
    SECTION("no dimension") {
        STATIC_REQUIRE_FALSE(cc::has_updater_dimension<NoUpdaterDimension>);
        STATIC_REQUIRE(cc::has_initial_belief<NoUpdaterDimension>);
        STATIC_REQUIRE(cc::has_update<NoUpdaterDimension>);
        STATIC_REQUIRE_FALSE(maxent::BeliefUpdater<NoUpdaterDimension>);
    }
}

}  // namespace test_concepts
