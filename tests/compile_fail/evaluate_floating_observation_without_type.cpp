// tests/compile_fail/evaluate_floating_observation_without_type.cpp — a simulator whose
// sample_observation returns a range in metres (a double) but which declares no
// observation_type must be rejected by each of optim/evaluate.hpp's entry points (evaluate,
// evaluate_uniform, visit_counts, rollout_fixed_policy; each with its own world) with the
// message saying how to declare the type.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model declares
// `using observation_type = double;` and the file must compile; without it the compilation
// must fail with the message 4 times (one per entry point):
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/policy/uniform.hpp"

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

template <int Entry>
using Agent = Blind<maxent::world_observation_t<RangeTrack<Entry>>>;

}  // namespace

int main() {
    const RangeTrack<0> a;
    const RangeTrack<1> b;
    const RangeTrack<2> c;
    const RangeTrack<3> d;
    const maxent::UniformPolicy policy(2);
    const double h = maxent::evaluate(a, Agent<0>{}, policy, 10, 0).true_entropy.mean +
                     maxent::evaluate_uniform(b, Agent<1>{}, 10, 0).true_entropy.mean +
                     maxent::visit_counts(c, Agent<2>{}, policy, maxent::StateCounting::paper, 0, 0, 10).mean_entropy;
    std::size_t steps = 0;
    maxent::rollout_fixed_policy(d, Agent<3>{}, policy, maxent::RolloutOptions{}, 0, 0, 0, 10,
                                 [&](std::size_t, const maxent::Trajectory& t, maxent::DefaultRng&) {
                                     steps += t.actions.size();
                                 });
    return h > 0.0 && steps > 0 ? 0 : 1;
}
