// tests/compile_fail/belief_updater_missing_dimension.cpp — an updater written against the
// concept's earlier form, with num_states() instead of dimension(), must be rejected by the
// trainer's entry point, maxent::train (maxent::Trainer, and the maxent::Sampler it holds),
// through `static_assert(maxent::require_belief_updater<U>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::BeliefUpdater: missing `std::size_t dimension() const` (the length of its belief vector)
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

// A user's decorator of the exact filter, written when the belief's length was num_states().
template <class M>
struct Decorated {
    maxent::BayesFilter<M> inner;

    std::size_t num_states() const { return inner.dimension(); }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    std::size_t dimension() const { return inner.dimension(); }
#endif
    void initial(Eigen::VectorXd& b) const { inner.initial(b); }
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& g) {
        inner.update(b, a, o, g);
    }
};

}  // namespace

int main() {
    const auto model = maxent::single_room(3, 3);
    maxent::TrainerConfig config;
    config.iterations = 2;
    const auto result = maxent::train(model, Decorated<maxent::GridPomdp>{maxent::BayesFilter(model)},
                                      maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions()),
                                      maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    return result.history.size() == 2 ? 0 : 1;
}
