// runtime/algorithm.cpp — make_policy (the one mapping from PolicyClass to the library's
// policy types) and policy_type_name (algorithm.hpp).
#include "algorithm.hpp"

#include <string>

#include "maxent/core/error.hpp"

namespace maxent::programs {

AnyPolicy make_policy(PolicyClass c, std::size_t rows, std::size_t actions) {
    switch (c) {
        case PolicyClass::observation: return ObservationPolicy(rows, actions);
        case PolicyClass::belief_averaged: return BeliefAveragedPolicy(rows, actions);
        case PolicyClass::believed_state: return BelievedStatePolicy(rows, actions);
        case PolicyClass::belief_mixture: return BeliefMixturePolicy(rows, actions);
        case PolicyClass::belief_state: return TabularBeliefPolicy(rows, actions);
    }
    throw config_error(cat("unknown policy class ", std::to_string(static_cast<int>(c))));
}

std::string_view policy_type_name(const AnyPolicy& p) {
    static constexpr std::string_view names[] = {"ObservationPolicy",   "BeliefAveragedPolicy", "BelievedStatePolicy",
                                                 "BeliefMixturePolicy", "TabularBeliefPolicy",  "ObservationFeaturePolicy",
                                                 "GaussianPolicy"};
    static_assert(std::size(names) == std::variant_size_v<AnyPolicy>);
    return names[p.index()];
}

}  // namespace maxent::programs
