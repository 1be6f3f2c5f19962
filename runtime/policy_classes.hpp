// runtime/policy_classes.hpp — the policy classes chosen at run time (PolicyClass):
// the one dispatch from the class to the library's type, the rows each class's parameters
// have, and the one refusal of a class a learned belief model cannot serve. The runner and the
// Python module both build their policies through it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

#include "maxent/core/error.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "choices.hpp"
#include "text.hpp"

namespace maxent::programs {

/// Calls f(std::type_identity<P>{}) with P the policy type of class `c`: ObservationPolicy,
/// BeliefAveragedPolicy, BelievedStatePolicy, BeliefMixturePolicy or TabularBeliefPolicy.
template <class F>
decltype(auto) with_policy_class(PolicyClass c, F&& f) {
    switch (c) {
        case PolicyClass::observation: return f(std::type_identity<ObservationPolicy>{});
        case PolicyClass::belief_averaged: return f(std::type_identity<BeliefAveragedPolicy>{});
        case PolicyClass::believed_state: return f(std::type_identity<BelievedStatePolicy>{});
        case PolicyClass::belief_mixture: return f(std::type_identity<BeliefMixturePolicy>{});
        case PolicyClass::belief_state: return f(std::type_identity<TabularBeliefPolicy>{});
    }
    throw config_error(cat("unknown policy class ", std::to_string(static_cast<int>(c))));
}

/// The rows of a class's parameters: the agent's observations for O, its belief states (the
/// world's S, or a learned model's L) for the belief classes.
[[nodiscard]] inline std::size_t policy_rows(PolicyClass c, std::size_t observations, std::size_t belief_states) {
    return c == PolicyClass::observation ? observations : belief_states;
}

/// Why a learned-belief curve cannot use the belief-state class B.
inline constexpr std::string_view learned_class_b_refusal =
    "learned beliefs: the belief-state class B is not offered with a learned model (its table rows are beliefs, "
    "which change meaning at every refit)";

/// Throws config_error("<who>: " + learned_class_b_refusal) for class B with a learned belief
/// model; returns otherwise.
inline void refuse_learned_class_b(PolicyClass c, std::string_view who) {
    if (c == PolicyClass::belief_state) throw config_error(cat(who, ": ", learned_class_b_refusal));
}

}  // namespace maxent::programs
