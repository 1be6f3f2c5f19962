// runtime/algorithm_grid.cpp — run_algorithm1 for the paper's grid worlds (GridPomdp), plain and
// learned (algorithm_finite.hpp), in maxent_runtime_core: all the trainers maxent-paper links.
#include "algorithm_finite.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const GridPomdp&, const NoisyFilter<GridPomdp>&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const GridPomdp&, const LearnedBelief&, const RunChoices&, const RunControl&);

}  // namespace maxent::programs
