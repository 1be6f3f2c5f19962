// tests/compile_fail/with_state_binning_floating_observation_without_type.cpp — a simulator
// whose sample_observation returns a range in metres (a double) but which declares no
// observation_type must be rejected by maxent::with_state_binning with the message saying how
// to declare the type (not a raw constraint failure, and not silently wrapped: the wrapper's
// own sample_observation would turn the double into an observation index).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model declares
// `using observation_type = double;` and the file must compile; without it the compilation
// must fail with:
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
#include <cstddef>
#include <type_traits>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/uniform.hpp"

namespace {

// A robot on a 10 m track reading the range to the far wall, in metres; no state binning.
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
    const RangeTrack track;
    const auto world = maxent::with_state_binning(track, 10, [](double x) { return static_cast<std::size_t>(x) % 10; });
    // What the user does next adds no error of its own.
    using World = std::remove_cvref_t<decltype(world)>;
    maxent::Sampler sampler(world, Blind<maxent::world_observation_t<World>>{});
    maxent::UniformPolicy policy(2);
    maxent::DefaultRng g = maxent::stream(0);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(1, 2);
    return sampler.run(policy, g, score).horizon == 5 ? 0 : 1;
}
