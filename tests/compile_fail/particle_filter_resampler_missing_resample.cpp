// tests/compile_fail/particle_filter_resampler_missing_resample.cpp — a resampler type
// without resample(w, total, out, g) must be rejected by maxent::ParticleFilter through
// `static_assert(maxent::require_resampler<R>())`, with a message naming the member.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the member is
// present and the file must compile; without it the compilation must fail with:
// expect-error: maxent::Resampler: missing `void resample(std::span<const double> w, double total, std::span<std::size_t> out, Rng& g) const`
#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/generative_view.hpp"
#include "maxent/model/grid_world.hpp"

namespace {

// Always the first particle: a (biased) stand-in, enough to type-check.
struct FirstParticle {
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    template <class G>
    void resample(std::span<const double>, double, std::span<std::size_t> out, G&) const {
        for (std::size_t& i : out) i = 0;
    }
#endif
};

}  // namespace

int main() {
    const maxent::GridPomdp room = maxent::single_room(3, 3);
    const maxent::GenerativeView<maxent::GridPomdp> view(room);
    maxent::DefaultRng g(1);
    maxent::ParticleFilter<maxent::GenerativeView<maxent::GridPomdp>, maxent::IdentityBinning, maxent::NoStateFeatures,
                           FirstParticle>
        filter(view, 9, {}, {.particles = 10}, g);
    Eigen::VectorXd b;
    filter.initial(b);
    return b.size() == 9 ? 0 : 1;
}
