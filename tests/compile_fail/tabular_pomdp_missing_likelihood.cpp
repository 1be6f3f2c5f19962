// tests/compile_fail/tabular_pomdp_missing_likelihood.cpp — a model type that is a
// maxent::ExplicitPomdp but lacks likelihood(a, o) must be rejected at an entry point that needs a TabularPomdp by
// `static_assert(maxent::require_tabular_pomdp<M>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::TabularPomdp: missing `SparseDistribution likelihood(std::size_t a, std::size_t o) const`
#include <cstddef>

#include <Eigen/Core>

#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"

namespace {

struct NoLikelihood {
    using state_type = int;
    using action_type = int;
    using observation_type = int;

    std::size_t num_states() const { return 1; }
    std::size_t num_actions() const { return 1; }
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 1; }
    const int& state_label(std::size_t) const { return label; }
    const int& action_label(std::size_t) const { return label; }
    const int& observation_label(std::size_t) const { return label; }
    std::size_t state_index(const int&) const { return 0; }
    std::size_t action_index(const int&) const { return 0; }
    std::size_t observation_index(const int&) const { return 0; }
    const Eigen::VectorXd& initial_distribution() const { return mu; }
    maxent::SparseDistribution transition(std::size_t, std::size_t) const { return certain(); }
    maxent::SparseDistribution observation(std::size_t, std::size_t) const { return certain(); }
    maxent::SparseDistribution initial_observation(std::size_t) const { return certain(); }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    maxent::SparseDistribution likelihood(std::size_t, std::size_t) const { return certain(); }
#endif

    maxent::SparseDistribution certain() const { return {{&zero, 1}, {&one, 1}}; }
    int label = 0;
    maxent::sparse_index zero = 0;
    double one = 1.0;
    Eigen::VectorXd mu = Eigen::VectorXd::Ones(1);
};

// An entry point in the style of the library's exact filter: needs a TabularPomdp.
template <class M>
std::size_t entry_point(const M& model) {
    static_assert(maxent::require_tabular_pomdp<M>());
    return model.num_states();
}

}  // namespace

int main() { return entry_point(NoLikelihood{}) == 1 ? 0 : 1; }
