// tests/compile_fail/estimator_quality_missing_estimate.cpp — an estimator whose member is
// misspelt (estimates instead of estimate) must be rejected by the estimator-quality entry
// points, maxent::estimator_quality and maxent::compare_estimators, through
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
#include "maxent/optim/estimator_quality.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

struct Misspelt {
    void estimates(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        out = Eigen::MatrixXd::Zero(s[0].rows(), s[0].cols());
        for (std::size_t n = 0; n < f.size(); ++n) out += f[n] * s[n];
        out /= static_cast<double>(f.size());
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        estimates(f, s, out);
    }
#endif
};

}  // namespace

int main() {
    auto model = maxent::single_room(2, 2);
    model.set_horizon(3);
    const maxent::BeliefAveragedPolicy policy(model.num_states(), model.num_actions());
    const auto q = maxent::estimator_quality(model, maxent::BayesFilter(model), policy, maxent::MSE{},
                                             {.batch = 2, .repetitions = 2}, Misspelt{});
    const auto both = maxent::compare_estimators(model, maxent::BayesFilter(model), policy, maxent::MSE{},
                                                 {.batch = 2, .repetitions = 2}, maxent::Reinforce{}, Misspelt{});
    return q.repetitions == 2 && both.size() == 2 ? 0 : 1;
}
