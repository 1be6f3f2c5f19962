// runtime/algorithm_simulator.cpp — run_algorithm1 for simulators with particle filters
// (algorithm_simulator.hpp), compiled inside the Python module (python/CMakeLists.txt).
#include "algorithm_simulator.hpp"
#include "algorithm_impl.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const IndexSimulator&, const IndexSimulatorFilter&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const VectorSimulator&, const VectorSimulatorFilter&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const IndexPomdpView&, const IndexPomdpViewFilter&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const ContinuousSimulator&, const ContinuousSimulatorFilter&, const RunChoices&,
                                      const RunControl&);

}  // namespace maxent::programs
