// runtime/algorithm_control.hpp — run_algorithm1 (algorithm.hpp) for the bundled worlds with
// continuous actions, compiled once in the runtime (algorithm_control.cpp, library
// maxent_runtime_control, which maxent-control links): the partially observed pendulum
// (model/pendulum.hpp) and the rescue robot steered by a velocity (model/rescue_velocity.hpp),
// each filtered by a particle filter whose belief is a grid histogram and whose features are
// bilinear on a grid (PendulumControlFilter, RescueVelocityControlFilter). A continuous world is
// offered the Gaussian policy alone (AnyGaussianPolicy), so that is the one trainer per world.
#pragma once

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/model/pendulum.hpp"
#include "maxent/model/rescue_velocity.hpp"

#include "algorithm.hpp"

namespace maxent::programs {

/// The pendulum's particle filter: a grid histogram over (θ, ω), bilinear features over the phase plane.
using PendulumControlFilter = ParticleFilter<PendulumWorld, PendulumGridBinning, BilinearGridFeatures<PendulumPhase>>;
/// The velocity-steered robot's particle filter: a grid histogram over the arena, bilinear features over (x, y).
using RescueVelocityControlFilter =
    ParticleFilter<RescueVelocityWorld, RescueGridBinning, BilinearGridFeatures<RescuePosition>>;

extern template Algorithm1Run run_algorithm1(const PendulumWorld&, const PendulumControlFilter&, const RunChoices&,
                                             const RunControl&);
extern template Algorithm1Run run_algorithm1(const RescueVelocityWorld&, const RescueVelocityControlFilter&,
                                             const RunChoices&, const RunControl&);

}  // namespace maxent::programs
