// tests/compile_fail/sampler_index_policy_continuous_world.cpp — a policy that draws action
// indices (the uniform policy over A actions) given a world with continuous actions must be
// rejected at compile time by the rollout's entry point maxent::Sampler::run through
// `static_assert(maxent::require_policy_for_actions<P, continuous>())`, with one message naming
// the policies to use instead.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the policy is the uniform
// policy of the action box and the file must compile; without it the compilation must fail with:
// expect-error: the world's actions are continuous (it declares action_type and action_box()) but the policy draws action indices; use a continuous-action policy
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/random.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/uniform.hpp"
#include "maxent/policy/uniform_box.hpp"

namespace {

// A boat pushed by a thrust in [0, 3].
struct Boat {
    using state_type = double;
    using action_type = double;
    maxent::ActionBox action_box() const { return maxent::ActionBox::uniform(1, 0.0, 3.0); }
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
    double sample_next_state(double x, const double& thrust, G&) const {
        return x + thrust;
    }
    template <class G>
    std::size_t sample_observation(const double&, double, G&) const {
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
    const Boat world;
    maxent::Sampler sampler(world, Blind{});
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    maxent::UniformBoxPolicy policy(world.action_box());
#else
    maxent::UniformPolicy policy(3);
#endif
    maxent::DefaultRng g = maxent::stream(0);
    Eigen::MatrixXd score;
    return sampler.run(policy, g, score).horizon == 5 ? 0 : 1;
}
