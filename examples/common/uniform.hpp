// examples/common/uniform.hpp — the uniformly random policy and its true-state entropy: the
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
#include <random>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/objective/feedbacks.hpp"
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
    RolloutOptions options;
    options.counting = counting;
    Sampler<Model, BayesFilter<Model>> sampler(m, BayesFilter<Model>(m), options);
    UniformPolicy policy(m.num_actions());
    Eigen::MatrixXd score;  // the uniform policy has no parameters: stays 0 x 0
    EmpiricalCounter counter(m.num_states());
    const std::uint64_t base = derive_seed(seed, uniform_stream_run);
    double sum = 0.0;
    for (std::size_t n = 0; n < episodes; ++n) {
        DefaultRng g = stream(base, 0, n);
        sum += true_state_entropy(sampler.run(policy, g, score), counter);
    }
    return sum / static_cast<double>(episodes);
}

}  // namespace maxent::programs
