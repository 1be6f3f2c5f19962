// runtime/algorithm_grid.cpp — run_algorithm1 for the paper's grid worlds (GridPomdp) with the
// noisy exact filter (algorithm_finite.hpp), in maxent_runtime_core; the learned-belief one is
// algorithm_grid_learned.cpp, so that two cores compile the two halves of maxent-paper's
// trainers at once.
#include "algorithm_finite.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const GridPomdp&, const NoisyFilter<GridPomdp>&, const RunChoices&,
                                      const RunControl&);

}  // namespace maxent::programs
