// runtime/algorithm_simulator.hpp — run_algorithm1 (algorithm.hpp) for worlds seen as
// simulators and filtered by a particle filter, compiled once in the runtime
// (algorithm_simulator.cpp, compiled inside the Python module's one translation unit):
// the run-time simulators of simulator.hpp (the Python module's worlds written in Python),
// observing indices or vectors, and an explicit finite model seen as a simulator
// (GenerativeView), and run-time simulators with continuous actions (ContinuousSimulator).
// Classes: O, BA, S̃ and BM with index observations; BA and the observation-feature policy with
// vector observations (class B needs the exact filter); the Gaussian policy (AnyGaussianPolicy)
// with continuous actions, the one class compiled for that kind.
#pragma once

#include "maxent/belief/particle_filter.hpp"
#include "maxent/model/generative_view.hpp"

#include "algorithm.hpp"
#include "algorithm_finite.hpp"
#include "simulator.hpp"

namespace maxent::programs {

using IndexSimulatorFilter = ParticleFilter<IndexSimulator, SimulatorBinning>;
using VectorSimulatorFilter = ParticleFilter<VectorSimulator, SimulatorBinning>;
using ContinuousSimulatorFilter = ParticleFilter<ContinuousSimulator, SimulatorBinning>;
using IndexPomdpView = GenerativeView<IndexPomdp>;
using IndexPomdpViewFilter = ParticleFilter<IndexPomdpView, IdentityBinning>;

extern template Algorithm1Run run_algorithm1(const IndexSimulator&, const IndexSimulatorFilter&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const VectorSimulator&, const VectorSimulatorFilter&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const IndexPomdpView&, const IndexPomdpViewFilter&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const ContinuousSimulator&, const ContinuousSimulatorFilter&,
                                             const RunChoices&, const RunControl&);

}  // namespace maxent::programs
