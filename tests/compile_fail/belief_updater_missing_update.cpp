// tests/compile_fail/belief_updater_missing_update.cpp — an updater type with dimension()
// and initial(b) but no update(b, a, o, g) must be rejected at the entry point by
// `static_assert(maxent::require_belief_updater<U>())` with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::BeliefUpdater: missing `void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, Rng& g)`
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/model/concepts.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/core/random.hpp"

namespace {

struct NoUpdate {
    std::size_t dimension() const { return 2; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Constant(2, 0.5); }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd&, std::size_t, std::size_t, G&) {}
#endif
};

// An entry point in the style of the library's rollout: checks the concept member by member.
template <class U>
double entry_point(U& updater) {
    static_assert(maxent::require_belief_updater<U>());
    Eigen::VectorXd b;
    updater.initial(b);
    return b.sum();
}

}  // namespace

int main() {
    NoUpdate updater;
    return entry_point(updater) == 1.0 ? 0 : 1;
}
