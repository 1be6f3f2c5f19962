// runtime/uniform.hpp — the uniformly random policy and its true-state entropy: the
// baseline both programs print and draw (maxent-explore's table and plot, maxent-paper's
// uniform.csv and plot).
//
// π(a | i) = 1 / A is what every softmax policy class is at θ = 0, so it is where every
// curve starts. Its mean H(d(τ_S)) for a seed is averaged over M episodes drawn from the
// streams (derive_seed(seed, uniform_stream_run), 0, n), n = 0..M-1, disjoint from the
// training's streams (seed, k, n); it depends on the world, T and the counting convention
// only, not on the objective, the policy class or the belief model.
#pragma once

#include <cstddef>
#include <cstdint>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/uniform.hpp"

namespace maxent::programs {

using maxent::UniformPolicy;  // policy/uniform.hpp: the library's, drawn as a softmax at θ = 0

/// The `run` of the uniform baseline's streams (see the header comment).
inline constexpr std::uint64_t uniform_stream_run = 0x756e69666f726dULL;  // "uniform"

/// Mean H(d(τ_S)) of `episodes` episodes of the uniform policy on the tabular model `m`
/// for seed `seed`.
template <class Model>
[[nodiscard]] double uniform_entropy(const Model& m, StateCounting counting, std::uint64_t seed,
                                     std::size_t episodes) {
    EmpiricalCounter counter(m.num_states());
    double sum = 0.0;
    rollout_fixed_policy(m, BayesFilter<Model>(m), UniformPolicy(m.num_actions()), RolloutOptions{counting, {}},
                         derive_seed(seed, uniform_stream_run), 0, 0, episodes,
                         [&](std::size_t, const Trajectory& t, DefaultRng&) { sum += true_state_entropy(t, counter); });
    return sum / static_cast<double>(episodes);
}

}  // namespace maxent::programs
