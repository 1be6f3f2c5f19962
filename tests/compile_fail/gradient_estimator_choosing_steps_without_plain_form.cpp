// tests/compile_fail/gradient_estimator_choosing_steps_without_plain_form.cpp — an estimator
// that chooses per-step information at run time (`bool uses_steps() const`, core/optional_members.hpp)
// must also have the form without steps, which the trainer calls when it declines; one with
// the per-step form only must be rejected by maxent::train through
// `static_assert(maxent::require_gradient_estimator<E>())` with a message naming both forms.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the plain form is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::GradientEstimator: an estimator with `bool uses_steps() const` chooses at run time whether it wants per-step scores, so it needs both
#include <span>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/step_scores.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's switchable estimator: the per-step baseline when `per_step`, else nothing to say
// for the plain form — which it forgot to write.
struct Switchable {
    bool per_step = true;
    maxent::PerStepBaseline inner{};
    [[nodiscard]] bool uses_steps() const { return per_step; }
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, const maxent::StepScores& steps,
                  Eigen::MatrixXd& out) {
        inner.estimate(f, s, steps, out);
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) {
        maxent::BatchMeanBaseline{}.estimate(f, s, out);
    }
#endif
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(model, maxent::BayesFilter(model),
                                      maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions()),
                                      maxent::MSE{}, Switchable{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
