// tests/compile_fail/visit_counts_missing_state_binning.cpp — maxent::visit_counts given a
// simulator without a state binning (no num_state_bins() / state_bin(s)) must reject it
// through `static_assert(maxent::require_environment<M>())` with the message naming the
// binning, before it counts anything (not a raw "no member named num_state_bins").
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model has the
// binning and the file must compile; without it the compilation must fail with:
// expect-error: maxent::Environment: a generative model must say how its true states are counted
// expect-errors: 1
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/policy/uniform.hpp"

namespace {

// A robot on a 10 m track whose sensor says which half it is in.
struct HalfTrack {
    using state_type = double;
    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 2; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const { return 10.0 * maxent::uniform01(g); }
    template <class G>
    std::size_t sample_initial_observation(double x, G& g) const { return sample_observation(0, x, g); }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const { return a == 1 ? x + 1.0 : x - 1.0; }
    template <class G>
    std::size_t sample_observation(std::size_t, double x, G&) const { return x < 5.0 ? 0 : 1; }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return static_cast<std::size_t>(x) % 10; }
#endif
};

// An agent without a belief model.
struct NoBelief {
    std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <class G>
    void update(Eigen::VectorXd&, std::size_t, std::size_t, G&) {}
};

}  // namespace

int main() {
    const HalfTrack track;
    const maxent::VisitCounts v =
        maxent::visit_counts(track, NoBelief{}, maxent::UniformPolicy(2), maxent::StateCounting::paper, 0, 0, 10);
    return v.episodes == 10 ? 0 : 1;
}
