// maxent/belief/particle_steps.hpp — the steps a particle filter's update is composed of
// (ParticleFilter, belief/particle_filter.hpp, composes them as a bootstrap filter):
//   predict    x_i <- sample_next_state(x_i, a, g)                    ParticleSteps::predict
//              (a an index, or the world's continuous action_type: action_arg_t<M>)
//   weigh      d_i <- observation_(log_)likelihood(a, o, x_i)         ParticleSteps::weigh
//   reweight   w_i <- w_i · d_i (or, in logs, exp(log w_i + d_i - max))   reweight()
//   normalise  w_i <- w_i / Σ w, returning Σ w_i² (n_eff = 1 / Σ w_i²)     normalise_weights()
//   resample   x <- copies of x by a Resampler, w_i <- 1 / n          resample_particles()
// The model-facing steps (predict, weigh) come as one type per kind of model, with one
// interface: LoopedParticleSteps calls the model once per particle (the reference);
// BatchedParticleSteps hands the model the whole set when it offers the batched members
// (BatchedParticleModel: the rescue worlds), with the same draws in the same order and the same
// densities. particle_steps_t<M> picks the batched one when M allows it. The arithmetic steps
// are plain functions of spans, so another filter can compose them differently.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "maxent/belief/resamplers.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

namespace detail {
template <class M>
using particle_observation_t = typename concept_checks::observation_of<M>::type;
template <class M>
concept batched_transitions = requires(const M& m, std::span<typename M::state_type> xs,
                                      const typename concept_checks::action_of<M>::type& a, DefaultRng& g) {
    m.sample_next_states(xs, a, g);
};
template <class M>
concept batched_log_likelihoods = requires(const M& m, const typename concept_checks::action_of<M>::type& a,
                                           const particle_observation_t<M>& o,
                                           std::span<const typename M::state_type> xs, std::span<double> out) {
    m.observation_log_likelihoods(a, o, xs, out);
};
template <class M>
concept batched_likelihoods = requires(const M& m, const typename concept_checks::action_of<M>::type& a,
                                       const particle_observation_t<M>& o,
                                       std::span<const typename M::state_type> xs, std::span<double> out) {
    m.observation_likelihoods(a, o, xs, out);
};
}  // namespace detail

/// A simulator that moves and weighs a whole particle set per call: the particle filter's fast
/// path (BatchedParticleSteps), used instead of the per-particle loop when the model offers it.
/// Required, for `const M& m`, `std::span<state_type> xs`, `std::span<const state_type> cxs`,
/// `std::span<double> out` (as long as xs), an action a, an observation o of the model's type
/// and a generator g:
///   m.sample_next_states(xs, a, g)                  xs[i] <- sample_next_state(xs[i], a, g) for
///                                                   i = 0, 1, ... in order, drawing from g what
///                                                   those calls draw (the same particles, bit for bit)
///   m.observation_log_likelihoods(a, o, cxs, out)   out[i] = observation_log_likelihood(a, o, cxs[i])
///                                                   (models weighing in logs), or else
///   m.observation_likelihoods(a, o, cxs, out)       out[i] = observation_likelihood(a, o, cxs[i])
/// The filter checks the values as it checks single ones. Satisfied by RescueWorld and
/// RescueRangeWorld (model/rescue_world.hpp); a model without these members takes the
/// per-particle loop, with the same results.
template <class M>
concept BatchedParticleModel =
    detail::batched_transitions<M> &&
    (concept_checks::has_observation_log_likelihood<M> ? detail::batched_log_likelihoods<M>
                                                       : detail::batched_likelihoods<M>);

/// The reference predict and weigh steps: one model call per particle, in particle order.
/// (ParticleSteps interface: state_type, observation_type, in_logs, model(), predict, weigh.)
template <class M>
class LoopedParticleSteps {
public:
    using state_type = typename M::state_type;
    using observation_type = detail::particle_observation_t<M>;
    /// Whether weigh gives log-densities (the model has observation_log_likelihood).
    static constexpr bool in_logs = concept_checks::has_observation_log_likelihood<M>;

    explicit LoopedParticleSteps(const M& m) noexcept : model_(&m) {}
    [[nodiscard]] const M& model() const noexcept { return *model_; }

    /// xs[i] <- sample_next_state(xs[i], a, g), i = 0, 1, ...
    template <class G>
    void predict(std::span<state_type> xs, action_arg_t<M> a, G& g) const {
        for (state_type& x : xs) x = model_->sample_next_state(x, a, g);
    }
    /// out[i] <- observation_log_likelihood(a, o, xs[i]) (in_logs) or observation_likelihood,
    /// unchecked (reweight flags bad values).
    void weigh(action_arg_t<M> a, const observation_type& o, std::span<const state_type> xs, std::span<double> out) const {
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if constexpr (in_logs)
                out[i] = model_->observation_log_likelihood(a, o, xs[i]);
            else
                out[i] = model_->observation_likelihood(a, o, xs[i]);
        }
    }

private:
    const M* model_;
};

/// The same steps through a BatchedParticleModel's set-wide members: the same draws, in the
/// same order, and the same densities as LoopedParticleSteps.
template <class M>
    requires BatchedParticleModel<M>
class BatchedParticleSteps {
public:
    using state_type = typename M::state_type;
    using observation_type = detail::particle_observation_t<M>;
    static constexpr bool in_logs = concept_checks::has_observation_log_likelihood<M>;

    explicit BatchedParticleSteps(const M& m) noexcept : model_(&m) {}
    [[nodiscard]] const M& model() const noexcept { return *model_; }

    template <class G>
    void predict(std::span<state_type> xs, action_arg_t<M> a, G& g) const {
        model_->sample_next_states(xs, a, g);
    }
    void weigh(action_arg_t<M> a, const observation_type& o, std::span<const state_type> xs, std::span<double> out) const {
        if constexpr (in_logs)
            model_->observation_log_likelihoods(a, o, xs, out);
        else
            model_->observation_likelihoods(a, o, xs, out);
    }

private:
    const M* model_;
};

/// The predict and weigh steps a filter of M takes: batched when M allows it.
template <class M>
struct particle_steps_of {
    using type = LoopedParticleSteps<M>;
};
template <BatchedParticleModel M>
struct particle_steps_of<M> {
    using type = BatchedParticleSteps<M>;
};
template <class M>
using particle_steps_t = typename particle_steps_of<M>::type;

/// What reweight leaves: the unnormalised weights' sum and sum of squares, and whether some
/// density was invalid (NaN, +inf, or a negative or infinite likelihood; the weights are then
/// meaningless and the caller reports it).
struct Reweighting {
    double total = 0.0;
    double squares = 0.0;
    bool bad = false;
};

/// Whether a density d is valid: a likelihood finite and >= 0; a log-likelihood < +inf, not
/// NaN (-inf: density 0).
template <bool in_logs>
[[nodiscard]] inline bool valid_density(double d) noexcept {
    if constexpr (in_logs)
        return !std::isnan(d) && d != std::numeric_limits<double>::infinity();
    else
        return d >= 0.0 && std::isfinite(d);
}

/// The first invalid density's index, or densities.size().
template <bool in_logs>
[[nodiscard]] std::size_t first_invalid_density(std::span<const double> densities) noexcept {
    std::size_t i = 0;
    while (i < densities.size() && valid_density<in_logs>(densities[i])) ++i;
    return i;
}

/// The reweight step: w_i <- w_i · d_i for likelihoods d; for log-likelihoods,
/// w_i <- exp(log w_i + d_i - max_k(log w_k + d_k)) (0 for all when every term is -inf): the
/// same normalised weights when nothing underflows. `uniform` says every w_i is the same (one
/// logarithm serves all). The weights come back unnormalised, with their sum and squares.
template <bool in_logs>
Reweighting reweight(std::span<double> w, std::span<const double> densities, bool uniform) {
    Reweighting r;
    const std::size_t n = w.size();
    if constexpr (in_logs) {
        constexpr double minus_infinity = -std::numeric_limits<double>::infinity();
        double top = minus_infinity;
        if (uniform) {
            const double log_w = std::log(w[0]);
            for (std::size_t i = 0; i < n; ++i) {
                const double l = densities[i];
                r.bad |= !valid_density<true>(l);
                const double lw = log_w + l;
                w[i] = lw;
                top = std::max(top, lw);
            }
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                const double l = densities[i];
                r.bad |= !valid_density<true>(l);
                const double lw = w[i] > 0.0 ? std::log(w[i]) + l : minus_infinity;
                w[i] = lw;
                top = std::max(top, lw);
            }
        }
        if (top > minus_infinity) {
            for (std::size_t i = 0; i < n; ++i) {
                const double x = std::exp(w[i] - top);
                w[i] = x;
                r.total += x;
                r.squares += x * x;
            }
        } else {
            for (double& x : w) x = 0.0;
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            const double l = densities[i];
            r.bad |= !valid_density<false>(l);
            const double x = w[i] * l;
            w[i] = x;
            r.total += x;
            r.squares += x * x;
        }
    }
    return r;
}

/// Weights from densities alone (fresh particles, no previous weights): w_i <- d_i, or
/// exp(d_i - max_k d_k) in logs (0 for all when every d_k is -inf). Returns their sum.
template <bool in_logs>
Reweighting weigh_fresh(std::span<double> w, std::span<const double> densities) {
    Reweighting r;
    const std::size_t n = w.size();
    if constexpr (in_logs) {
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < n; ++i) {
            r.bad |= !valid_density<true>(densities[i]);
            top = std::max(top, densities[i]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            w[i] = top > -std::numeric_limits<double>::infinity() ? std::exp(densities[i] - top) : 0.0;
            r.total += w[i];
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            r.bad |= !valid_density<false>(densities[i]);
            w[i] = densities[i];
            r.total += w[i];
        }
    }
    return r;
}

/// The normalise step: w <- w / total (total > 0, the weights' sum); returns Σ w_i² of the
/// normalised weights (the same pass). When the sum overflowed, or is so small (denormal) that
/// 1 / total overflows, the weights are first divided by the largest one (then 1 <= sum <= n);
/// ordinary sums take the plain path: w_i · (1 / total).
inline double normalise_weights(std::span<double> w, double total) {
    double inverse = 1.0 / total;
    if (!std::isfinite(total) || !std::isfinite(inverse)) {
        double largest = 0.0;
        for (const double x : w) largest = std::max(largest, x);
        total = 0.0;
        for (double& x : w) total += (x /= largest);
        inverse = 1.0 / total;
    }
    double sum_squares = 0.0;
    for (double& x : w) {
        x *= inverse;
        sum_squares += x * x;
    }
    return sum_squares;
}

/// The resample step: ancestors drawn by `resampler` from the normalised weights `w` (passed
/// with total 1) into `index`, `particles` <- their copies (through `scratch`, swapped in;
/// both as long as w), w_i <- 1 / n.
template <class R, class State, class G>
void resample_particles(const R& resampler, std::span<double> w, std::vector<State>& particles,
                        std::vector<State>& scratch, std::span<std::size_t> index, G& g) {
    const std::size_t n = particles.size();
    resampler.resample(std::span<const double>(w), 1.0, index, g);
    for (std::size_t j = 0; j < n; ++j) scratch[j] = particles[index[j]];
    particles.swap(scratch);
    for (double& x : w) x = 1.0 / static_cast<double>(n);
}

}  // namespace maxent
