// runtime/algorithm_rescue.hpp — the rescue worlds' run_algorithm1 (algorithm.hpp), compiled
// once in the runtime (algorithm_rescue.cpp, library maxent_runtime_rescue, which maxent-rescue
// links): the rescue robot (model/rescue_world.hpp) with its cell sensor and with its range
// sensor, true states counted in a grid (RescueBinned), filtered by a particle filter whose
// belief is a grid histogram and whose features are bilinear (RescueFilter). maxent-rescue
// trains the belief-averaged policy only, so that is the one class compiled for them.
#pragma once

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/model/rescue_world.hpp"

#include "algorithm.hpp"

namespace maxent::programs {

/// A rescue world W with its true states counted in a grid (with_state_binning).
template <class W>
using RescueBinned = BinnedModel<W, RescueGridBinning>;
/// The agent's particle filter on rescue world W: a grid histogram belief, bilinear features.
template <class W>
using RescueFilter = ParticleFilter<W, RescueGridBinning, BilinearGridFeatures<RescuePosition>>;

template <class W>
    requires(std::is_same_v<W, RescueWorld> || std::is_same_v<W, RescueRangeWorld>)
struct Algorithm1Policies<RescueBinned<W>, RescueFilter<W>> {
    static constexpr unsigned offered = 1u << 1;  // AnyPolicy's BeliefAveragedPolicy
};
static_assert(std::is_same_v<std::variant_alternative_t<1, AnyPolicy>, BeliefAveragedPolicy>);

extern template Algorithm1Run run_algorithm1(const RescueBinned<RescueWorld>&, const RescueFilter<RescueWorld>&,
                                             const RunChoices&, const RunControl&);
extern template Algorithm1Run run_algorithm1(const RescueBinned<RescueRangeWorld>&,
                                             const RescueFilter<RescueRangeWorld>&, const RunChoices&,
                                             const RunControl&);

}  // namespace maxent::programs
