// tests/compile_fail/policy_missing_sample.cpp — a policy with num_actions(),
// probabilities(v, out) and check_dimensions(d) but no sample(v, g, score) must be rejected
// by the rollout's entry point, maxent::Sampler::run, through
// `static_assert(maxent::require_policy<P>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::Policy: missing `std::size_t sample(const AgentView&, G& g, Eigen::MatrixXd& score)`
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/concepts.hpp"

namespace {

// A user's decorator of the belief-averaged policy that forgot to forward sample().
struct Decorated {
    maxent::BeliefAveragedPolicy inner;

    std::size_t num_actions() const { return inner.num_actions(); }
    void probabilities(const maxent::AgentView& v, Eigen::VectorXd& out) const { inner.probabilities(v, out); }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const maxent::AgentView& v, G& g, Eigen::MatrixXd& score) {
        return inner.sample(v, g, score);
    }
#endif
    void check_dimensions(const maxent::AgentDimensions& d) const { inner.check_dimensions(d); }
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::Sampler sampler(model, maxent::BayesFilter(model));
    Decorated policy{maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions())};
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(model.num_states()),
                                                  static_cast<Eigen::Index>(model.num_actions()));
    maxent::DefaultRng g = maxent::stream(0);
    const auto& trajectory = sampler.run(policy, g, score);
    return trajectory.actions.empty() ? 1 : 0;
}
