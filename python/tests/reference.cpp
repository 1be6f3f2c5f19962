// python/tests/reference.cpp — the C++ side of the Python bit-identity test
// (python/tests/test_bit_identity.py): trains three configurations with the library alone (no
// bindings: the grid world's own type, the plain BayesFilter, the component types themselves)
// and prints θ and the per-iteration history as %.17g, one number per line after a label.
#include <cstdio>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/believed_state_policy.hpp"

namespace {
void print(const char* run, const maxent::TrainResult& r) {
    std::printf("run %s\n", run);
    const Eigen::MatrixXd& t = r.parameters;
    std::printf("theta %lld %lld\n", static_cast<long long>(t.rows()), static_cast<long long>(t.cols()));
    for (Eigen::Index i = 0; i < t.rows(); ++i)
        for (Eigen::Index j = 0; j < t.cols(); ++j) std::printf("%.17g\n", t(i, j));
    std::printf("history %zu\n", r.history.size());
    for (const maxent::IterationMetrics& m : r.history)
        std::printf("%.17g %.17g %.17g %.17g\n", m.true_entropy, m.feedback, m.belief_entropy_sum, m.gradient_norm);
}
}  // namespace

int main() {
    // 1. A 4 x 4 room, slip 0.1, Gaussian observations of variance 10; Reg-MBE with BA.
    const maxent::GridPomdp room = maxent::single_room(4, 4, 0.1, maxent::observe::gaussian_variance(10.0));
    maxent::TrainerConfig c1;
    c1.iterations = 40;
    c1.batch = 10;
    c1.seed = 3;
    print("1", maxent::train(room, maxent::BayesFilter(room), maxent::BeliefAveragedPolicy(16, 4), maxent::RegMBE(0.02),
                             maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c1));
    // 2. Four rooms 6 x 6 with room-id observations; MBE with the believed-state class, Adam,
    //    the leave-one-out baseline and the authors' counting.
    const maxent::GridPomdp rooms = maxent::four_rooms(6, 6, 0.0, maxent::observe::room_id());
    maxent::TrainerConfig c2;
    c2.iterations = 25;
    c2.batch = 8;
    c2.seed = 11;
    c2.counting = maxent::StateCounting::authors;
    print("2", maxent::train(rooms, maxent::BayesFilter(rooms), maxent::BelievedStatePolicy(36, 4), maxent::MBE{},
                             maxent::LeaveOneOutBaseline{}, maxent::Adam(0.05), c2));
    // 3. The 4 x 4 room again; MSE with BA, the per-step baseline (per-step scores recorded)
    //    and lazy Adam with its constants set.
    maxent::TrainerConfig c3;
    c3.iterations = 20;
    c3.batch = 6;
    c3.seed = 5;
    print("3", maxent::train(room, maxent::BayesFilter(room), maxent::BeliefAveragedPolicy(16, 4), maxent::MSE{},
                             maxent::PerStepBaseline{}, maxent::LazyAdam(0.1, 0.8, 0.99, 1e-6), c3));
    return 0;
}
