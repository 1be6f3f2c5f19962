// runtime/algorithm_finite.hpp — the finite worlds' run_algorithm1 (algorithm.hpp), compiled
// once each in the runtime: the paper's grid worlds (GridPomdp: algorithm_grid.cpp) and worlds
// over indices (IndexPomdp: algorithm_index.cpp; the Python module's Model, and the model files'
// worlds, which train_file.cpp copies into one), each with the noisy exact filter
// (NoisyBelief<BayesFilter<M>>; σ = 0 is the exact filter bit for bit) and with a learned
// belief model (LearnedBelief).
#pragma once

#include <string>

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

extern template Algorithm1Run run_algorithm1(const GridPomdp&, const NoisyFilter<GridPomdp>&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const GridPomdp&, const LearnedBelief&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const IndexPomdp&, const NoisyFilter<IndexPomdp>&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const IndexPomdp&, const LearnedBelief&, const RunChoices&,
                                             const RunControl&);

}  // namespace maxent::programs
