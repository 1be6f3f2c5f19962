// maxent/maxent.hpp — convenience header: modelling, beliefs, policies, objectives and
// training in one include.
//
// Not included, because most programs need neither and they cost compile time in every
// translation unit: the model-file reader (maxent/model/pomdp_file.hpp) and the belief
// models learned from data with the loop that learns them (maxent/belief/learned_model.hpp,
// maxent/optim/learned_belief.hpp). The library's own tests,
// examples and benchmarks include the narrow headers; the README's "Which headers to
// include" says which to pick. See docs/architecture.md for the layers.
#pragma once

#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/draws.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/point.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/generative_view.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/labels.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/belief_index.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/reachable_beliefs.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/row_score.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/objective/knn_feedbacks.hpp"
#include "maxent/objective/proxy_gaps.hpp"
#include "maxent/objective/state_observed.hpp"
#include "maxent/optim/estimator_quality.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/row_sparse_batch.hpp"
#include "maxent/optim/row_sparse_path.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
