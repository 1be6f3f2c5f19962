// tests/compile_fail/generative_pomdp_missing_sample_observation.cpp — a simulator (a
// maxent::GenerativePomdp with a state binning) that lacks sample_observation(a, s, g)
// must be rejected by the rollout's entry point, maxent::Sampler, through
// `static_assert(maxent::require_environment<M>())` (which checks the generative rung when
// the type has no member of an explicit model) with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::GenerativePomdp: missing `std::size_t sample_observation(std::size_t a, const state_type& s, G& g) const`
#include <cmath>
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/observation_policy.hpp"

namespace {

// A robot on a circle of circumference 1: actions 0 (back) and 1 (forward) move it by
// 0.1 plus noise; its sensor says whether it is in the first half. States are counted in
// four quarters.
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
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    template <class G>
    std::size_t sample_observation(std::size_t, const state_type& s, G&) const {
        return s.x < 0.5 ? 0 : 1;
    }
#endif
    std::size_t num_state_bins() const { return 4; }
    std::size_t state_bin(const state_type& s) const { return static_cast<std::size_t>(4.0 * s.x) % 4; }
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
    const Ring world;
    maxent::Sampler sampler(world, NoBelief{});
    maxent::ObservationPolicy policy(world.num_observations(), world.num_actions());
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(policy.parameters().rows(), policy.parameters().cols());
    maxent::DefaultRng g = maxent::stream(0);
    const auto& trajectory = sampler.run(policy, g, score);
    return trajectory.states.empty() ? 1 : 0;
}
