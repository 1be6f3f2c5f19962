// runtime/algorithm_control.cpp — run_algorithm1 for the continuous-action worlds
// (algorithm_control.hpp), in maxent_runtime_control.
#include "algorithm_control.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const PendulumWorld&, const PendulumControlFilter&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const RescueVelocityWorld&, const RescueVelocityControlFilter&,
                                      const RunChoices&, const RunControl&);

}  // namespace maxent::programs
