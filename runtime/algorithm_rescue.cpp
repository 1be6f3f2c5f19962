// runtime/algorithm_rescue.cpp — run_algorithm1 for the rescue worlds (algorithm_rescue.hpp),
// in maxent_runtime_rescue.
#include "algorithm_rescue.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const RescueBinned<RescueWorld>&, const RescueFilter<RescueWorld>&,
                                      const RunChoices&, const RunControl&);
template Algorithm1Run run_algorithm1(const RescueBinned<RescueRangeWorld>&, const RescueFilter<RescueRangeWorld>&,
                                      const RunChoices&, const RunControl&);

}  // namespace maxent::programs
