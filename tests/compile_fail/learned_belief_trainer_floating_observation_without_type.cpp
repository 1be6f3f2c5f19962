// tests/compile_fail/learned_belief_trainer_floating_observation_without_type.cpp — a
// simulator whose sample_observation returns a range in metres (a double) but which declares
// no observation_type must be rejected by maxent::LearnedBeliefTrainer (through
// `static_assert(maxent::require_environment<M>())`) with the message saying how to declare
// the type.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the sensor reports
// the range as an index (whole metres; a learned belief model is over observation indices)
// and the file must compile; without it the compilation must fail with:
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
#include <cstddef>

#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A robot on a 10 m track reading the range to the far wall, counted in 1 m bins.
#ifdef MAXENT_COMPILE_FAIL_CONTROL
using Reading = std::size_t;  // whole metres
#else
using Reading = double;  // metres
#endif
struct RangeTrack {
    using state_type = double;
    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 11; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const { return 10.0 * maxent::uniform01(g); }
    template <class G>
    Reading sample_initial_observation(double x, G& g) const { return sample_observation(0, x, g); }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const { return a == 1 ? x + 1.0 : x - 1.0; }
    template <class G>
    Reading sample_observation(std::size_t, double x, G&) const { return static_cast<Reading>(10.0 - x); }
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return static_cast<std::size_t>(x) % 10; }
};

}  // namespace

int main() {
    const RangeTrack track;
    maxent::TrainerConfig config;
    config.iterations = 2;
    maxent::LearnedBeliefOptions options;
    options.fit.latent_states = 2;
    maxent::LearnedBeliefTrainer trainer(track, maxent::BeliefAveragedPolicy(2, 2), maxent::MBE{},
                                         maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config, options);
    return trainer.run().history.size() == 2 ? 0 : 1;
}
