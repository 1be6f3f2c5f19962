// tests/compile_fail/generative_pomdp_index_action_with_type.cpp — a simulator that declares a
// continuous action_type (a torque) but whose sample_next_state takes an index must be rejected
// at compile time (the torque would be truncated to an integer), by maxent::Sampler through
// `static_assert(maxent::require_environment<M>())`, with a message saying what to take.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL sample_next_state takes
// `const action_type&` and the file must compile; without it the compilation must fail with:
// expect-error: the model declares a continuous action_type but sample_next_state takes an index (the action would be truncated); take `const action_type& a`
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/uniform_box.hpp"

namespace {

// A pendulum's angle driven by a torque in [-2, 2].
struct Swing {
    using state_type = double;
    using action_type = double;
    maxent::ActionBox action_box() const { return maxent::ActionBox::uniform(1, -2.0, 2.0); }
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
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    template <class G>
    double sample_next_state(double x, const action_type& torque, G&) const {
        return x + 0.05 * torque;
    }
#else
    template <class G>
    double sample_next_state(double x, std::size_t torque, G&) const {
        return x + 0.05 * static_cast<double>(torque);
    }
#endif
    template <class G>
    std::size_t sample_observation(const action_type&, double, G&) const {
        return 0;
    }
    std::size_t num_state_bins() const { return 1; }
    std::size_t state_bin(double) const { return 0; }
};

struct Blind {
    using action_type = double;
    std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <class G>
    void update(Eigen::VectorXd&, const double&, std::size_t, G&) {}
};

}  // namespace

int main() {
    const Swing world;
    maxent::Sampler sampler(world, Blind{});
    maxent::UniformBoxPolicy policy(maxent::ActionBox::uniform(1, -2.0, 2.0));
    maxent::DefaultRng g = maxent::stream(0);
    Eigen::MatrixXd score;
    return sampler.run(policy, g, score).horizon == 5 ? 0 : 1;
}
