// tests/compile_fail/differentiable_policy_missing_log_gradient.cpp — a maxent::Policy with
// parameters() but no log_gradient(v, a, grad) must be rejected by the trainer's entry
// point, maxent::train (maxent::Trainer), through
// `static_assert(maxent::require_differentiable_policy<P>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::DifferentiablePolicy: missing `void log_gradient(const AgentView&, std::size_t a, Eigen::MatrixXd& grad) const`
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/concepts.hpp"

namespace {

// A user's decorator of the belief-averaged policy that forgot to forward log_gradient().
struct Decorated {
    maxent::BeliefAveragedPolicy inner;

    std::size_t num_actions() const { return inner.num_actions(); }
    void probabilities(const maxent::AgentView& v, Eigen::VectorXd& out) const { inner.probabilities(v, out); }
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const maxent::AgentView& v, G& g, Eigen::MatrixXd& score) {
        return inner.sample(v, g, score);
    }
    void check_dimensions(const maxent::AgentDimensions& d) const { inner.check_dimensions(d); }
    Eigen::MatrixXd& parameters() { return inner.parameters(); }
    const Eigen::MatrixXd& parameters() const { return inner.parameters(); }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void log_gradient(const maxent::AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        inner.log_gradient(v, a, grad);
    }
#endif
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(model, maxent::BayesFilter(model),
                                      Decorated{maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions())},
                                      maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
