// runtime/algorithm_grid_learned.cpp — run_algorithm1 for the paper's grid worlds (GridPomdp)
// with a learned belief model (LearnedBelief, algorithm_finite.hpp), in maxent_runtime_core;
// the noisy exact filter's is algorithm_grid.cpp.
#include "algorithm_finite.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const GridPomdp&, const LearnedBelief&, const RunChoices&, const RunControl&);

}  // namespace maxent::programs
