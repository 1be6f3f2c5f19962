// tests/compile_fail/step_rule_missing_apply.cpp — a step rule with reset() but no
// apply(theta, g) must be rejected by the trainer's entry point, maxent::train
// (maxent::Trainer), through `static_assert(maxent::require_step_rule<R>())` with a message
// naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::StepRule: missing `void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g)`
#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's step rule: normalised gradient ascent, θ += α g / |g|, with its step under
// another name than apply().
struct NormalisedStep {
    double alpha = 0.3;
    void step(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) const {
        const double norm = g.norm();
        if (norm > 0.0) theta += (alpha / norm) * g;
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) const { step(theta, g); }
#endif
    void reset() {}
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(model, maxent::BayesFilter(model),
                                      maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions()),
                                      maxent::MSE{}, maxent::BatchMeanBaseline{}, NormalisedStep{}, config);
    return result.history.size() == 2 ? 0 : 1;
}
