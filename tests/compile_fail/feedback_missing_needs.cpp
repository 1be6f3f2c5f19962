// tests/compile_fail/feedback_missing_needs.cpp — a feedback with operator()(t, g) but no
// needs() must be rejected by the trainer's entry point, maxent::train (maxent::Trainer),
// through `static_assert(maxent::require_feedback<F>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::Feedback: missing `RolloutNeeds needs() const`
#include <cstddef>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's feedback: the number of distinct true states the trajectory visited. It reads
// only the true states, which every rollout records, but must still say so.
struct DistinctStates {
    template <class G>
    double operator()(const maxent::Trajectory& t, G&) const {
        std::size_t distinct = 0;
        for (std::size_t i = 0; i < t.states.size(); ++i) {
            bool seen = false;
            for (std::size_t j = 0; j < i; ++j) seen = seen || t.states[j] == t.states[i];
            if (!seen) ++distinct;
        }
        return static_cast<double>(distinct);
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    maxent::RolloutNeeds needs() const { return {}; }
#endif
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(model, maxent::BayesFilter(model),
                                      maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions()),
                                      DistinctStates{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
