// runtime/algorithm_finite.hpp — the finite worlds' run_algorithm1 (algorithm.hpp), compiled
// once in the runtime (algorithm_index.cpp) for worlds over indices (IndexPomdp), with the noisy
// exact filter (NoisyBelief<BayesFilter<M>>; σ = 0 is the exact filter bit for bit) and with a
// learned belief model (LearnedBelief). Every finite world trains there: the Python module's
// Model is one; the paper's grid worlds and the model files' worlds are copied into one
// (index_pomdp: the same matrices, so the same bits), so no trainer is compiled per label type.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_world.hpp"

#include "algorithm.hpp"

namespace maxent::programs {

/// The model file reader's world (model/pomdp_file.hpp), which maxent-explore trains on (as an
/// IndexPomdp: train_file.cpp).
using FileModel = FinitePomdp<std::string, std::string, std::string>;
/// A finite world over indices (the Python module's Model, a learned belief model's world).
using IndexPomdp = FinitePomdp<std::size_t, std::size_t, std::size_t>;
/// The agent's noisy exact filter on world M (Figure 3's oracle).
template <class M>
using NoisyFilter = NoisyBelief<BayesFilter<M>>;

/// World `m` over indices: the same sparse matrices, μ, horizon, tolerance and law of o_1 (the
/// labels, which training never reads, become 0..n-1), so training it gives the same bits as
/// training `m`. O(S + nnz); how run_curve_seed trains a grid world or a model file's world.
template <class State, class Action, class Observation>
[[nodiscard]] IndexPomdp index_pomdp(const FinitePomdp<State, Action, Observation>& m) {
    const auto indices = [](std::size_t n) {
        std::vector<std::size_t> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = i;
        return v;
    };
    std::vector<SparseMatrix> P, Z;
    P.reserve(m.num_actions());
    for (std::size_t a = 0; a < m.num_actions(); ++a) P.push_back(m.transition_matrix(a));
    const std::size_t slots = m.observation_depends_on_action() ? m.num_actions() : 1;
    Z.reserve(slots);
    for (std::size_t a = 0; a < slots; ++a) Z.push_back(m.observation_matrix(a));
    IndexPomdp out(indices(m.num_states()), indices(m.num_actions()), indices(m.num_observations()), std::move(P),
                   std::move(Z), m.initial_distribution(), m.horizon(), {.tolerance = m.tolerance()});
    // The law of o_1 when it is not the (first) observation matrix itself.
    if (&m.initial_observation_matrix() != &m.observation_matrix(0))
        out.set_initial_observation(m.initial_observation_matrix());
    return out;
}

extern template Algorithm1Run run_algorithm1(const IndexPomdp&, const NoisyFilter<IndexPomdp>&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const IndexPomdp&, const LearnedBelief&, const RunChoices&,
                                             const RunControl&);

}  // namespace maxent::programs
