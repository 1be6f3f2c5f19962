// tests/compile_fail/bayes_filter_continuous_actions.cpp — the exact Bayes filter enumerates
// actions {0..A-1}: given a world with a continuous action_type it must be rejected at compile
// time by `static_assert(maxent::require_tabular_pomdp<M>())`, with one message saying it is
// finite-action and what to use instead (not a list of the explicit model's missing members).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the filter is of a grid
// world (finite actions) and the file must compile; without it the compilation must fail with:
// expect-error: this entry point is finite-action (the exact Bayes filter, the learned IOHMM belief models and the exact objectives enumerate actions {0..A-1}) but the world declares a continuous action_type: use a ParticleFilter belief
#include <array>
#include <cstddef>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/actions.hpp"
#include "maxent/model/grid_world.hpp"

namespace {

// A planar robot steered by a velocity vector.
struct Rover {
    using state_type = std::array<double, 2>;
    using action_type = std::array<double, 2>;
    maxent::ActionBox action_box() const { return maxent::ActionBox::uniform(2, -1.0, 1.0); }
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 5; }
    template <class G>
    state_type sample_initial_state(G&) const {
        return {0.0, 0.0};
    }
    template <class G>
    std::size_t sample_initial_observation(const state_type&, G&) const {
        return 0;
    }
    template <class G>
    state_type sample_next_state(const state_type& x, const action_type& v, G&) const {
        return {x[0] + v[0], x[1] + v[1]};
    }
    template <class G>
    std::size_t sample_observation(const action_type&, const state_type&, G&) const {
        return 0;
    }
};

#ifdef MAXENT_COMPILE_FAIL_CONTROL
using Filtered = maxent::GridPomdp;
#else
using Filtered = Rover;
#endif

}  // namespace

int main() {
    return sizeof(maxent::BayesFilter<Filtered>) > 0 ? 0 : 1;
}
