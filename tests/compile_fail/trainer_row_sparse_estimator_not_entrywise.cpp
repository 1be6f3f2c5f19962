// tests/compile_fail/trainer_row_sparse_estimator_not_entrywise.cpp — training a row-sparse
// policy (the belief-state class B, which has sample_rows) with a user's gradient estimator
// that does not declare itself entry-wise must be rejected at the trainer by one readable
// static_assert: on that path the estimator sees only the rows the batch touched.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the estimator
// declares `entrywise = true` and the file must compile; without it the compilation must
// fail with:
// expect-error: maxent::Trainer: the policy is row-sparse (it has sample_rows)
// expect-error: the estimator must declare `static constexpr bool entrywise = true;`
// expect-errors: 1
#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

namespace {

// A user's estimator: the plain average of F_n g_n (REINFORCE without a baseline).
struct AverageEstimator {
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        out = Eigen::MatrixXd::Zero(s[0].rows(), s[0].cols());
        for (std::size_t n = 0; n < f.size(); ++n) out += f[n] * s[n];
        out /= static_cast<double>(f.size());
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    static constexpr bool entrywise = true;
#endif
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(model, maxent::BayesFilter(model),
                                      maxent::TabularBeliefPolicy(model.num_states(), model.num_actions()),
                                      maxent::StateEntropy{}, AverageEstimator{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
