// runtime/algorithm_index.cpp — run_algorithm1 for finite worlds over indices (IndexPomdp: the
// Python module's Model, and the model files' worlds, which train_file.cpp copies into one),
// plain and learned (algorithm_finite.hpp), in maxent_runtime.
#include "algorithm_finite.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const IndexPomdp&, const NoisyFilter<IndexPomdp>&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const IndexPomdp&, const LearnedBelief&, const RunChoices&, const RunControl&);

}  // namespace maxent::programs
