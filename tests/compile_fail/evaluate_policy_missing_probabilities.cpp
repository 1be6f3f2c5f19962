// tests/compile_fail/evaluate_policy_missing_probabilities.cpp — a policy without
// probabilities(v, out) must be rejected by maxent::evaluate through
// `static_assert(maxent::require_policy<P>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::Policy: missing `void probabilities(const AgentView&, Eigen::VectorXd& out) const`
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/policy/concepts.hpp"

namespace {

// A user's policy that always takes action 0.
struct AlwaysFirst {
    static constexpr bool needs_belief = false;
    std::size_t num_actions() const { return 4; }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void probabilities(const maxent::AgentView&, Eigen::VectorXd& out) const { out = Eigen::VectorXd::Unit(4, 0); }
#endif
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const maxent::AgentView&, G&, Eigen::MatrixXd&) const {
        return 0;
    }
    void check_dimensions(const maxent::AgentDimensions&) const {}
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    const maxent::Evaluation e = maxent::evaluate(model, maxent::BayesFilter(model), AlwaysFirst{}, 10, 0);
    return e.episodes == 10 ? 0 : 1;
}
