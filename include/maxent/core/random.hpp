// maxent/core/random.hpp — random numbers with the generator always passed in.
//
// The library never owns a hidden generator: every function that draws takes a
// `std::uniform_random_bit_generator auto&`. This header provides
//   * `Xoshiro256pp`, a small, fast generator (xoshiro256++, Blackman & Vigna) that the
//     library's own runs use; any standard generator (std::mt19937_64, ...) works as well;
//   * `uniform01`, `standard_normal`: distributions written out here, so a seed gives the
//     same numbers with every standard library (std::*_distribution are
//     implementation-defined);
//   * `derive_seed(seed, run, index)` / `stream(seed, run, index)`: independent streams per
//     (experiment seed, run, trajectory), so results never depend on the order in which
//     runs or trajectories are executed, nor on the number of threads.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>

namespace maxent {

/// SplitMix64 finaliser: a bijective 64-bit mixer (Steele, Lea & Flood, 2014).
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/// A 64-bit seed for the stream identified by (seed, run, index). Distinct triples give
/// statistically independent streams; the value depends on nothing else.
[[nodiscard]] constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t run = 0,
                                                  std::uint64_t index = 0) noexcept {
    std::uint64_t h = splitmix64(seed ^ 0x6A09E667F3BCC909ULL);
    h = splitmix64(h ^ (run + 0x3C6EF372FE94F82BULL));
    h = splitmix64(h ^ (index + 0xA54FF53A5F1D36F1ULL));
    return h;
}

/// xoshiro256++ 1.0: 256 bits of state, period 2^256 - 1, passes BigCrush.
/// Satisfies std::uniform_random_bit_generator. Seeded through SplitMix64 so that any
/// 64-bit seed (including 0) gives a valid, well-mixed state.
class Xoshiro256pp {
public:
    using result_type = std::uint64_t;

    constexpr Xoshiro256pp() noexcept : Xoshiro256pp(0) {}
    constexpr explicit Xoshiro256pp(std::uint64_t seed) noexcept { reseed(seed); }

    /// Fills the state with the SplitMix64 sequence started at `seed`.
    constexpr void reseed(std::uint64_t seed) noexcept {
        std::uint64_t x = seed;
        for (auto& word : s_) {
            word = splitmix64(x);
            x += 0x9E3779B97F4A7C15ULL;
        }
    }

    static constexpr result_type min() noexcept { return 0; }
    static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

    constexpr result_type operator()() noexcept {
        const std::uint64_t result = std::rotl(s_[0] + s_[3], 23) + s_[0];
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = std::rotl(s_[3], 45);
        return result;
    }

    friend constexpr bool operator==(const Xoshiro256pp&, const Xoshiro256pp&) = default;

private:
    std::array<std::uint64_t, 4> s_{};
};

static_assert(std::uniform_random_bit_generator<Xoshiro256pp>);

/// The generator type the library's own trainers and examples use.
using DefaultRng = Xoshiro256pp;

/// A generator for the independent stream (seed, run, index); see derive_seed.
[[nodiscard]] constexpr DefaultRng stream(std::uint64_t seed, std::uint64_t run = 0,
                                          std::uint64_t index = 0) noexcept {
    return DefaultRng(derive_seed(seed, run, index));
}

namespace detail {
/// 64 uniformly random bits from any standard generator (handles generators whose range
/// is narrower than 64 bits, such as std::mt19937 or std::minstd_rand).
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::uint64_t bits64(G& g) {
    using R = typename G::result_type;
    constexpr auto lo = static_cast<std::uint64_t>(G::min());
    constexpr auto hi = static_cast<std::uint64_t>(G::max());
    if constexpr (lo == 0 && hi == std::numeric_limits<std::uint64_t>::max()) {
        return static_cast<std::uint64_t>(g());
    } else {
        static_assert(hi > lo, "generator with an empty range");
        constexpr std::uint64_t range = hi - lo;  // range + 1 values
        // Concatenate whole bits: use floor(log2(range + 1)) bits per call.
        constexpr int bits_per_call = std::bit_width(range + 1 == 0 ? range : range + 1) - 1;
        static_assert(bits_per_call > 0, "generator with fewer than 2 values");
        std::uint64_t out = 0;
        int have = 0;
        while (have < 64) {
            std::uint64_t v = static_cast<std::uint64_t>(static_cast<R>(g())) - lo;
            if constexpr (bits_per_call < 64) v &= (std::uint64_t{1} << bits_per_call) - 1;
            out = have == 0 ? v : (out << bits_per_call) | v;
            have += bits_per_call;
        }
        return out;
    }
}
}  // namespace detail

/// A uniform double in [0, 1) with 53 random bits.
template <std::uniform_random_bit_generator G>
[[nodiscard]] double uniform01(G& g) {
    return static_cast<double>(detail::bits64(g) >> 11) * 0x1.0p-53;
}

/// A standard normal variate (Box–Muller on two uniform01 draws; uses two draws per call,
/// so streams stay aligned whatever the values).
template <std::uniform_random_bit_generator G>
[[nodiscard]] double standard_normal(G& g) {
    const double u1 = 1.0 - uniform01(g);  // (0, 1]
    const double u2 = uniform01(g);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// A uniform integer in [0, n) (n > 0), by Lemire's nearly-divisionless method.
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::uint64_t uniform_index(G& g, std::uint64_t n) {
    // 128-bit multiply-shift with rejection of the biased low range.
    __extension__ using u128 = unsigned __int128;
    u128 m = static_cast<u128>(detail::bits64(g)) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
        const std::uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            m = static_cast<u128>(detail::bits64(g)) * n;
            low = static_cast<std::uint64_t>(m);
        }
    }
    return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace maxent
