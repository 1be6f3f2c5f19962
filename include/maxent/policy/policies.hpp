// maxent/policy/policies.hpp — convenience header: every policy class of the paper.
//
// Paper, Section 4 and Appendix D (docs/reference.md, "Policy classes"): the belief-averaged
// policy in its logit form (BeliefAveragedPolicy, what the authors' experiments run) and
// mixture form (BeliefMixturePolicy), the policy Markovian over observations
// (ObservationPolicy, class O) and over believed states (BelievedStatePolicy, class S̃),
// the policy over features of observations of any type (ObservationFeaturePolicy), with
// the Policy / DifferentiablePolicy concepts they satisfy.
#pragma once

#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/belief_mixture.hpp"
#include "maxent/policy/believed_state_policy.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/observation_features.hpp"
#include "maxent/policy/observation_policy.hpp"
#include "maxent/policy/parameter_table.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"
