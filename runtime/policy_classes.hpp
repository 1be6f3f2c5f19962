// runtime/policy_classes.hpp — the policy classes chosen at run time (PolicyClass): the rows
// each class's parameters have, and the one refusal of a class a learned belief model cannot
// serve. (The class's policy type: make_policy and AnyPolicy, algorithm.hpp.) The runner and the
// Python module both build their policies through it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "maxent/core/error.hpp"

#include "choices.hpp"
#include "text.hpp"

namespace maxent::programs {

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
