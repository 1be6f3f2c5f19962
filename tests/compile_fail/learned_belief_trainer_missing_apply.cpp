// tests/compile_fail/learned_belief_trainer_missing_apply.cpp — a step rule with reset() but
// no apply(theta, g) must be rejected by the entry point of training without a simulator,
// maxent::LearnedBeliefTrainer, through `static_assert(maxent::require_step_rule<R>())` with
// a message naming the member (not a trace from inside the Trainer it builds).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::StepRule: missing `void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g)`
#include <Eigen/Core>

#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's step rule: plain gradient ascent with a fixed step.
struct HalfStep {
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    void apply(Eigen::MatrixXd& theta, const Eigen::MatrixXd& g) { theta += 0.5 * g; }
#endif
    void reset() {}
};

}  // namespace

int main() {
    const auto world = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    maxent::LearnedBeliefOptions o;
    o.fit.latent_states = 4;
    o.warmup_episodes = 5;
    maxent::LearnedBeliefTrainer t(world, maxent::BeliefAveragedPolicy(4, world.num_actions()), maxent::MBE{},
                                   maxent::BatchMeanBaseline{}, HalfStep{}, config, o);
    return t.run().history.size() == 2 ? 0 : 1;
}
