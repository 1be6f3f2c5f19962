// tests/compile_fail/with_state_points_floating_observation_without_type.cpp — a simulator whose
// sample_observation returns a range in metres (a double) but which declares no
// observation_type must be rejected by maxent::with_state_points with the message saying how
// to declare the type (not a raw constraint failure).
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the model declares
// `using observation_type = double;` and the file must compile; without it the compilation
// must fail with:
// expect-error: sample_observation returns a floating-point value but the model declares no observation_type
#include <cstddef>
#include <span>

#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/wrappers.hpp"

namespace {

// A robot on a 10 m track reading the range to the far wall, in metres, counted in 1 m bins.
struct RangeTrack {
    using state_type = double;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    using observation_type = double;
#endif
    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 1; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const { return 10.0 * maxent::uniform01(g); }
    template <class G>
    double sample_initial_observation(double x, G& g) const { return sample_observation(0, x, g); }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const { return a == 1 ? x + 1.0 : x - 1.0; }
    template <class G>
    double sample_observation(std::size_t, double x, G&) const { return 10.0 - x; }
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return static_cast<std::size_t>(x) % 10; }
};

}  // namespace

int main() {
    const RangeTrack track;
    const auto world = maxent::with_state_points(track, 1, [](double x, std::span<double> out) { out[0] = x; });
    return world.state_point_dimension() == 1 ? 0 : 1;
}
