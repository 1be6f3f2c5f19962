// tests/compile_fail/step_rule_missing_reset.cpp — a step rule with apply(theta, g) but no
// reset() must be rejected by the trainer's entry point, maxent::train (maxent::Trainer),
// through `static_assert(maxent::require_step_rule<R>())` with a message naming reset()
// alone (not apply, which the rule has).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::StepRule: missing `void reset()`
#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's step rule: normalised gradient ascent, θ += α g / |g|, which has no state and
// so did not think of reset().
struct NormalisedStep {
    double alpha = 0.3;
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) const {
        const double norm = g.norm();
        if (norm > 0.0) theta += (alpha / norm) * g;
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void reset() {}
#endif
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
