// tests/compile_fail/generative_pomdp_floating_observation_without_type.cpp — a simulator whose
// sample_observation returns a range in metres (a double) but which declares no
// observation_type must be rejected at compile time (a double would otherwise convert to an
// observation index), by the rollout's entry point maxent::Sampler through
// `static_assert(maxent::require_environment<M>())`, with a message saying how to declare
// the type.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model declares
// `using observation_type = double;` and the file must compile; without it the compilation
// must fail with:
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type, so the value would be read as an observation index; declare the type in the model: `using observation_type = double;`
#include <algorithm>
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/uniform.hpp"

namespace {

// A robot on a 10 m track reading the range to the far wall, in metres, with noise.
struct RangeTrack {
    using state_type = double;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    using observation_type = double;
#endif

    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const {
        return 10.0 * maxent::uniform01(g);
    }
    template <class G>
    double sample_initial_observation(double x, G& g) const {
        return sample_observation(0, x, g);
    }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const {
        return std::clamp(x + (a == 1 ? 1.0 : -1.0), 0.0, 10.0);
    }
    template <class G>
    double sample_observation(std::size_t, double x, G& g) const {
        return 10.0 - x + 0.1 * maxent::standard_normal(g);
    }
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return std::min<std::size_t>(static_cast<std::size_t>(x), 9); }
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
    const RangeTrack world;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    maxent::Sampler sampler(world, Blind<double>{});
#else
    maxent::Sampler sampler(world, Blind<std::size_t>{});
#endif
    maxent::UniformPolicy policy(2);
    maxent::DefaultRng g = maxent::stream(0);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(1, 2);
    return sampler.run(policy, g, score).horizon == 5 ? 0 : 1;
}
