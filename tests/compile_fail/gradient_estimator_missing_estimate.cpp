// tests/compile_fail/gradient_estimator_missing_estimate.cpp — a gradient estimator written
// as a function object, without the member estimate(f, s, out), must be rejected by the
// trainer's entry point, maxent::train (maxent::Trainer), through
// `static_assert(maxent::require_gradient_estimator<E>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::GradientEstimator: missing `void estimate(std::span<const double> feedbacks, std::span<const Eigen::MatrixXd> scores, Eigen::MatrixXd& out)`
#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's estimator: the plain average of F_n g_n (REINFORCE without a baseline), written
// as operator() instead of estimate().
struct AverageEstimator {
    void operator()(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        out = Eigen::MatrixXd::Zero(s[0].rows(), s[0].cols());
        for (std::size_t n = 0; n < f.size(); ++n) out += f[n] * s[n];
        out /= static_cast<double>(f.size());
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        (*this)(f, s, out);
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
                                      maxent::MSE{}, AverageEstimator{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
