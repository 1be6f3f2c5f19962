// tests/compile_fail/particle_filter_missing_observation_likelihood.cpp — a simulator (a
// maxent::GenerativePomdp) that cannot weigh its observations, i.e. lacks
// observation_likelihood(a, o, s), must be rejected by maxent::ParticleFilter through
// `static_assert(maxent::require_observation_likelihood<M>())` with a message naming the
// member (model/concepts.hpp, ObservationLikelihood).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::ObservationLikelihood: missing `double observation_likelihood(std::size_t a, std::size_t o, const state_type& s) const`
#include <cmath>
#include <cstddef>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/core/random.hpp"

namespace {

// A robot on a circle of circumference 1: actions 0 (back) and 1 (forward) move it by 0.1;
// its sensor says, right with probability 0.9, whether it is in the first half.
struct Ring {
    using state_type = double;

    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 2; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const {
        return maxent::uniform01(g);
    }
    template <class G>
    std::size_t sample_initial_observation(double s, G& g) const {
        return sample_observation(0, s, g);
    }
    template <class G>
    double sample_next_state(double s, std::size_t a, G&) const {
        const double x = s + (a == 1 ? 0.1 : -0.1);
        return x - std::floor(x);
    }
    template <class G>
    std::size_t sample_observation(std::size_t, double s, G& g) const {
        const std::size_t half = s < 0.5 ? 0 : 1;
        return maxent::uniform01(g) < 0.9 ? half : 1 - half;
    }
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    double observation_likelihood(std::size_t, std::size_t o, double s) const {
        return o == (s < 0.5 ? 0U : 1U) ? 0.9 : 0.1;
    }
#endif
};

struct Halves {
    std::size_t operator()(double s) const { return s < 0.5 ? 0 : 1; }
};

}  // namespace

int main() {
    const Ring world;
    maxent::DefaultRng g = maxent::stream(0);
    maxent::ParticleFilter filter(world, 2, Halves{}, maxent::ParticleFilterOptions{.particles = 10}, g);
    Eigen::VectorXd b;
    filter.initial(b);
    filter.update(b, 1, 0, g);
    return b.size() == 2 ? 0 : 1;
}
