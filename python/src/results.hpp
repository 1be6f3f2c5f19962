// python/src/results.hpp — a run of the runtime's run_algorithm1 (runtime/algorithm.hpp) as Python
// sees it: its final policy as a bound one. Shared by train.cpp and sim_train.cpp, the two files
// that train (the others do not parse the runtime's algorithm header).
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "common.hpp"
#include "runtime/algorithm.hpp"

namespace maxent::python {

/// A runtime policy (a run's final one) as a bound one; nullopt for the observation-feature
/// policy (its θ is the result's `parameters`).
inline std::optional<PolicyVariant> bound_policy(programs::AnyPolicy&& p) {
    return std::visit(
        [](auto&& q) -> std::optional<PolicyVariant> {
            using P = std::decay_t<decltype(q)>;
            if constexpr (std::is_constructible_v<PolicyVariant, P&&>) return PolicyVariant(std::move(q));
            else return std::nullopt;
        },
        std::move(p));
}

}  // namespace maxent::python
