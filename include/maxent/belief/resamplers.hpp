// maxent/belief/resamplers.hpp — how a particle filter resamples (a Resampler) and when (a
// ResamplingCriterion), as swappable parts of ParticleFilter (belief/particle_filter.hpp).
//
// A resampler turns n weights w_i (non-negative, summing to `total` > 0) into m ancestor
// indices: out[j] = i makes particle j of the new set a copy of particle i. Every resampler
// here is unbiased: particle i is copied m w_i / total times in expectation. They differ in
// the spread of the counts N_i, and draw only from the caller's generator:
//   SystematicResampler  (the default) one uniform u for all: out[j] is the index whose
//                        cumulative-weight interval holds (u + j) / m; N_i is floor or ceil of
//                        m w_i, the least spread of the three
//   MultinomialResampler m independent draws by weight: N_i ~ Binomial(m, w_i), variance
//                        m w_i (1 - w_i), the textbook reference; O(n + m) through sorted
//                        uniforms, no buffer
//   ResidualResampler    floor(m w_i) copies of each i kept deterministically, the m - Σ floor
//                        remaining copies drawn multinomially from the fractional parts
// A criterion decides from n_eff = 1 / Σ w_i² (normalised weights) and n whether an update
// resamples: EssThreshold (the default: n_eff < fraction · n, the fraction being
// ParticleFilterOptions::resample_threshold), AlwaysResample, NeverResample. Checked entry
// points (systematic_resample, multinomial_resample, residual_resample) validate the weights
// (numeric_error naming a bad one) and sizes (config_error); the filter calls the members
// directly on weights it knows to be valid.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <string_view>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

/// How a particle filter draws its new set. Required, for `const R r`, `std::span<const double>
/// w` (n >= 1 non-negative weights), their sum `total` > 0 (as the caller computed it; a filter
/// passes 1 for its normalised weights), `std::span<std::size_t> out` (m >= 1) and a generator g:
///   r.resample(w, total, out, g)   out[j] = the ancestor of new particle j, an index i < n with
///                                  w_i > 0, copied m w_i / total times in expectation; draws
///                                  only from g
/// Satisfied by SystematicResampler, MultinomialResampler, ResidualResampler.
template <class R>
concept Resampler = std::default_initializable<R> &&
                    requires(const R& r, std::span<const double> w, double total, std::span<std::size_t> out,
                             DefaultRng& g) { r.resample(w, total, out, g); };

template <class R>
consteval bool require_resampler() {
    static_assert(std::default_initializable<R>,
                  "maxent::Resampler: must be default-constructible (a filter builds its own; a resampler draws "
                  "only from the generator it is given)");
    static_assert(requires(const R& r, std::span<const double> w, double total, std::span<std::size_t> out,
                           DefaultRng& g) { r.resample(w, total, out, g); },
                  "maxent::Resampler: missing `void resample(std::span<const double> w, double total, "
                  "std::span<std::size_t> out, Rng& g) const` (out[j] = the ancestor of new particle j)");
    return true;
}

/// When a particle filter resamples. Required, for `const C c`, n_eff = 1 / Σ w_i² of the
/// normalised weights and the particle count n:
///   c.due(n_eff, n) -> bool   whether this update resamples
/// A filter builds its criterion from ParticleFilterOptions::resample_threshold when the
/// criterion is constructible from a double, else default-constructs it.
/// Satisfied by EssThreshold, AlwaysResample, NeverResample.
template <class C>
concept ResamplingCriterion = requires(const C& c, double ess, std::size_t n) {
    { c.due(ess, n) } -> std::convertible_to<bool>;
};

template <class C>
consteval bool require_resampling_criterion() {
    static_assert(requires(const C& c, double ess, std::size_t n) {
        { c.due(ess, n) } -> std::convertible_to<bool>;
    }, "maxent::ResamplingCriterion: missing `bool due(double n_eff, std::size_t n) const` (whether to resample)");
    return true;
}

/// Resample when n_eff < fraction · n (fraction in [0, 1]: 0 never, 1 whenever the weights are
/// unequal).
struct EssThreshold {
    double fraction = 0.5;
    constexpr EssThreshold() = default;
    constexpr explicit EssThreshold(double f) : fraction(f) {}
    [[nodiscard]] constexpr bool due(double ess, std::size_t n) const noexcept {
        return ess < fraction * static_cast<double>(n);
    }
};

/// Resample after every update (the classic bootstrap filter); the threshold is not read.
struct AlwaysResample {
    [[nodiscard]] constexpr bool due(double, std::size_t) const noexcept { return true; }
};

/// Never resample (sequential importance sampling); the threshold is not read.
struct NeverResample {
    [[nodiscard]] constexpr bool due(double, std::size_t) const noexcept { return false; }
};

namespace detail {
/// The first and last indices with a positive weight (the scans' guards against rounding that
/// would stop on a zero weight at either end); n >= 1.
template <class Weight>
std::size_t first_positive(std::size_t n, Weight weight) {
    std::size_t k = 0;
    while (k + 1 < n && !(weight(k) > 0.0)) ++k;
    return k;
}

/// m = out.size() independent draws by weight(i) / total, i < n, written in increasing index
/// order: sorted uniforms generated from the largest down (U_(k) = U_(k+1) · V^(1/k), V uniform
/// on (0, 1]; one draw each) matched against the cumulative weights in one scan from the top.
template <class Weight, class G>
void multinomial_draws(std::size_t n, Weight weight, double total, std::span<std::size_t> out, G& g) {
    const std::size_t first = first_positive(n, weight);
    std::size_t i = n - 1;
    double lower = total - weight(i);  // the cumulative weight below index i
    double log_u = 0.0;
    for (std::size_t j = out.size(); j-- > 0;) {
        log_u += std::log(1.0 - uniform01(g)) / static_cast<double>(j + 1);
        const double position = std::exp(log_u) * total;
        while (i > 0 && (!(weight(i) > 0.0) || position < lower)) {
            --i;
            lower -= weight(i);
        }
        out[j] = weight(i) > 0.0 ? i : first;
    }
}
}  // namespace detail

/// Systematic (low-variance) resampling, one uniform draw for all m.
struct SystematicResampler {
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "systematic"; }
    template <class G>
    void resample(std::span<const double> weights, double total, std::span<std::size_t> out, G& g) const {
        const std::size_t m = out.size(), n = weights.size();
        const double step = total / static_cast<double>(m);
        double position = uniform01(g) * step;
        double cumulative = weights[0];
        std::size_t i = 0;
        std::size_t last_positive = 0;
        for (std::size_t k = n; k-- > 0;)
            if (weights[k] > 0.0) {
                last_positive = k;
                break;
            }
        for (std::size_t j = 0; j < m; ++j) {
            while (cumulative <= position && i + 1 < n) cumulative += weights[++i];
            // Rounding at the end of the scan may leave i on a trailing zero weight.
            out[j] = weights[i] > 0.0 ? i : last_positive;
            position += step;
        }
    }
};

/// Multinomial resampling: m independent draws by weight (one uniform each), indices in
/// increasing order.
struct MultinomialResampler {
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "multinomial"; }
    template <class G>
    void resample(std::span<const double> weights, double total, std::span<std::size_t> out, G& g) const {
        detail::multinomial_draws(weights.size(), [&](std::size_t i) { return weights[i]; }, total, out, g);
    }
};

/// Residual resampling: floor(m w_i / total) copies of each i first (no draws), then the
/// remaining R copies drawn multinomially by the fractional parts m w_i / total - floor(·).
struct ResidualResampler {
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "residual"; }
    template <class G>
    void resample(std::span<const double> weights, double total, std::span<std::size_t> out, G& g) const {
        const std::size_t m = out.size(), n = weights.size();
        const double scale = static_cast<double>(m) / total;
        std::size_t k = 0;
        for (std::size_t i = 0; i < n && k < m; ++i) {
            const double copies = std::floor(weights[i] * scale);
            for (std::size_t c = 0; c < static_cast<std::size_t>(copies) && k < m; ++c) out[k++] = i;
        }
        if (k == m) return;
        const auto fraction = [&](std::size_t i) {
            const double x = weights[i] * scale;
            return x - std::floor(x);
        };
        double residual = 0.0;
        for (std::size_t i = 0; i < n; ++i) residual += fraction(i);
        if (residual > 0.0)
            detail::multinomial_draws(n, fraction, residual, out.subspan(k), g);
        else  // rounding left copies to place but no fractional part: draw them by the weights
            detail::multinomial_draws(n, [&](std::size_t i) { return weights[i]; }, total, out.subspan(k), g);
    }
};

namespace detail {
/// r.resample after checking sizes and weights; `who` names the entry point in messages.
template <class R, class G>
void checked_resample(const R& r, const char* who, std::span<const double> weights, std::span<std::size_t> out, G& g) {
    if (weights.empty() || out.empty())
        throw config_error(detail::message(who, ": ", weights.size(), " weights and ", out.size(),
                                           " draws; both must be positive"));
    double total = 0.0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (!(weights[i] >= 0.0) || !std::isfinite(weights[i]))
            throw numeric_error(detail::message(who, ": weight ", i, " is ", weights[i],
                                                "; weights must be finite and >= 0"));
        total += weights[i];
    }
    if (!(total > 0.0) || !std::isfinite(total))
        throw numeric_error(detail::message(who, ": the weights sum to ", total,
                                            "; the sum must be positive and finite"));
    r.resample(weights, total, out, g);
}
}  // namespace detail

/// out[j] <- the ancestors of out.size() particles drawn from `weights` (non-negative, positive
/// finite sum; normalised here) by systematic, multinomial or residual resampling. Throws
/// config_error for an empty input or output, numeric_error naming a bad weight or sum.
template <std::uniform_random_bit_generator G>
void systematic_resample(std::span<const double> weights, std::span<std::size_t> out, G& g) {
    detail::checked_resample(SystematicResampler{}, "systematic_resample", weights, out, g);
}
template <std::uniform_random_bit_generator G>
void multinomial_resample(std::span<const double> weights, std::span<std::size_t> out, G& g) {
    detail::checked_resample(MultinomialResampler{}, "multinomial_resample", weights, out, g);
}
template <std::uniform_random_bit_generator G>
void residual_resample(std::span<const double> weights, std::span<std::size_t> out, G& g) {
    detail::checked_resample(ResidualResampler{}, "residual_resample", weights, out, g);
}

}  // namespace maxent
