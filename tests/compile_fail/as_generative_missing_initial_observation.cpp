// tests/compile_fail/as_generative_missing_initial_observation.cpp — maxent::as_generative
// (an explicit model seen as a simulator) given a model with every member of
// maxent::ExplicitPomdp except initial_observation(s) must reject it through
// `static_assert(maxent::require_pomdp<M>())` with the message naming the missing member
// (not a raw constraint failure).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::ExplicitPomdp: missing `SparseDistribution initial_observation(std::size_t s) const`
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/model/generative_view.hpp"

namespace {

// One state, one action, one observation.
struct Point {
    std::size_t num_states() const { return 1; }
    std::size_t num_actions() const { return 1; }
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 1; }
    const Eigen::VectorXd& initial_distribution() const { return mu; }
    maxent::SparseDistribution transition(std::size_t, std::size_t) const { return certain(); }
    maxent::SparseDistribution observation(std::size_t, std::size_t) const { return certain(); }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    maxent::SparseDistribution initial_observation(std::size_t) const { return certain(); }
#endif

    maxent::SparseDistribution certain() const { return {{&zero, 1}, {&one, 1}}; }
    maxent::sparse_index zero = 0;
    double one = 1.0;
    Eigen::VectorXd mu = Eigen::VectorXd::Ones(1);
};

}  // namespace

int main() {
    const Point model;
    const auto view = maxent::as_generative(model);
    return view.num_state_bins() == 1 ? 0 : 1;
}
