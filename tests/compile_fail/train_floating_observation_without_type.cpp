// tests/compile_fail/train_floating_observation_without_type.cpp — a simulator whose
// sample_observation returns a range in metres (a double) but which declares no
// observation_type must be rejected by maxent::train and maxent::Trainer (each with its own
// world) through `static_assert(maxent::require_environment<M>())`, with the message saying
// how to declare the type.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model declares
// `using observation_type = double;` and the file must compile; without it the compilation
// must fail with the message 2 times (one per entry point):
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A robot on a 10 m track reading the range to the far wall, in metres, counted in 1 m bins; one type per entry point.
template <int Entry>
struct RangeTrack {
    using state_type = double;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    using observation_type = double;
#endif
    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const { return 10.0 * maxent::uniform01(g); }
    template <class G>
    double sample_initial_observation(double x, G& g) const { return sample_observation(0, x, g); }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const { return a == 1 ? x + 1.0 : x - 1.0; }
    template <class G>
    double sample_observation(std::size_t, double x, G&) const { return 10.0 - x; }
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return static_cast<std::size_t>(x) % 10; }
};

// An agent without a belief that reads the world's observations.
template <class O>
struct Blind {
    using observation_type = O;
    std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <class G>
    void update(Eigen::VectorXd&, std::size_t, const O&, G&) {}
};

}  // namespace

int main() {
    maxent::TrainerConfig config;
    config.iterations = 2;
    const RangeTrack<0> a;
    const auto result = maxent::train(a, Blind<maxent::world_observation_t<RangeTrack<0>>>{},
                                      maxent::BeliefAveragedPolicy(1, 2), maxent::MSE{}, maxent::BatchMeanBaseline{},
                                      maxent::ConstantStep(0.3), config);
    const RangeTrack<1> b;
    maxent::Trainer trainer(b, Blind<maxent::world_observation_t<RangeTrack<1>>>{}, maxent::BeliefAveragedPolicy(1, 2),
                            maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == trainer.run().history.size() ? 0 : 1;
}
