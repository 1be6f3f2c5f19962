// tests/compile_fail/environment_missing_state_binning.cpp — a complete maxent::GenerativePomdp
// without a state binning (no num_state_bins() / state_bin(s)) is not a maxent::Environment:
// the trainer's entry point, maxent::train (maxent::Trainer), must reject it through
// `static_assert(maxent::require_environment<M>())` with the message telling the user to add
// the binning or to wrap the model with maxent::with_state_binning.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model is
// wrapped, `maxent::with_state_binning(ring, 4, quarter)` (the message's remedy), and the
// file must compile; without it the compilation must fail with:
// expect-error: maxent::Environment: a generative model must say how its true states are counted
// expect-error: `std::size_t num_state_bins() const` and `std::size_t state_bin(const state_type&) const`
// expect-error: or wrap it: maxent::with_state_binning(model, bins, fn)
// expect-errors: 1
#include <cmath>
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/model/concepts.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/observation_policy.hpp"

namespace {

// A robot on a circle of circumference 1: actions 0 (back) and 1 (forward) move it by
// 0.1 plus noise; its sensor says whether it is in the first half. Nothing says how its
// continuous states are counted.
struct Ring {
    struct Position {
        double x;
    };
    using state_type = Position;

    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 2; }
    std::size_t horizon() const { return 5; }
    template <class G>
    state_type sample_initial_state(G& g) const {
        return {std::uniform_real_distribution<double>(0.0, 1.0)(g)};
    }
    template <class G>
    std::size_t sample_initial_observation(const state_type& s, G&) const {
        return s.x < 0.5 ? 0 : 1;
    }
    template <class G>
    state_type sample_next_state(const state_type& s, std::size_t a, G& g) const {
        const double move = (a == 1 ? 0.1 : -0.1) + std::normal_distribution<double>(0.0, 0.02)(g);
        const double x = s.x + move;
        return {x - std::floor(x)};
    }
    template <class G>
    std::size_t sample_observation(std::size_t, const state_type& s, G&) const {
        return s.x < 0.5 ? 0 : 1;
    }
};

// An agent without a belief model: one latent state, which no observation changes.
struct NoBelief {
    std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd&, std::size_t, std::size_t, G&) {}
};

}  // namespace

int main() {
    const Ring ring;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    const auto world = maxent::with_state_binning(ring, 4, [](const Ring::Position& s) {
        return static_cast<std::size_t>(4.0 * s.x) % 4;
    });
#else
    const Ring& world = ring;
#endif
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(world, NoBelief{},
                                      maxent::ObservationPolicy(world.num_observations(), world.num_actions()),
                                      maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
