// tests/compile_fail/generative_pomdp_floating_action_without_type.cpp — a simulator steered by a
// velocity (a double) that declares no action_type must be rejected at compile time (it would
// be passed action indices), by the rollout's entry point maxent::Sampler through
// `static_assert(maxent::require_environment<M>())`, with a message saying what to declare.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model declares
// `using action_type = double;` and its action_box() and the file must compile; without them
// the compilation must fail with:
// expect-error: sample_next_state takes a floating-point action but the model declares no action_type, so it would be passed action indices; declare the type and its bounds in the model: `using action_type = double;`
#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/uniform.hpp"
#include "maxent/policy/uniform_box.hpp"

namespace {

// A cart on a track pushed with a velocity in [-1, 1] m/s.
struct Cart {
    using state_type = double;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    using action_type = double;
    maxent::ActionBox action_box() const { return maxent::ActionBox::uniform(1, -1.0, 1.0); }
#endif
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G&) const {
        return 0.0;
    }
    template <class G>
    std::size_t sample_initial_observation(double, G&) const {
        return 0;
    }
    template <class G>
    double sample_next_state(double x, double velocity, G&) const {
        return x + velocity;
    }
    template <class G>
    std::size_t sample_observation(double, double, G&) const {
        return 0;
    }
    std::size_t num_state_bins() const { return 1; }
    std::size_t state_bin(double) const { return 0; }
};

// An agent without a belief.
struct Blind {
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    using action_type = double;
#endif
    std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <class A, class G>
    void update(Eigen::VectorXd&, const A&, std::size_t, G&) {}
};

}  // namespace

int main() {
    const Cart world;
    maxent::Sampler sampler(world, Blind{});
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    maxent::UniformBoxPolicy policy(maxent::ActionBox::uniform(1, -1.0, 1.0));
#else
    maxent::UniformPolicy policy(2);
#endif
    maxent::DefaultRng g = maxent::stream(0);
    Eigen::MatrixXd score;
    return sampler.run(policy, g, score).horizon == 5 ? 0 : 1;
}
