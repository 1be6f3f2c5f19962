// maxent/belief/particle_filter.hpp — a particle-filter belief model for any simulator that
// weighs its observations (GenerativePomdp + ObservationLikelihood, model/concepts.hpp).
//
// Paper, Section 5 (beliefs the agent can afford): the belief is n weighted particles x_i with
// weights w_i summing to 1. One update after action a and observation o (bootstrap filter):
//   predict    x_i <- sample_next_state(x_i, a, g)          (the model's own sampler)
//   reweight   w_i <- w_i · observation_likelihood(a, o, x_i); with observation_log_likelihood
//              ℓ, w_i ∝ exp(log w_i + ℓ_i - max_j(log w_j + ℓ_j))
//   resample   when n_eff = 1 / Σ w_i² falls below threshold · n: systematic resampling (one
//              uniform draw for all n), then equal weights.
// b_1: n draws of sample_initial_state made ONCE at construction, the same in every episode.
// A BatchedParticleModel (the bundled rescue worlds) moves and weighs the whole set per call,
// with the per-particle loop's draws and bits; when Σw² already shows no resampling is due,
// normalisation, n_eff, the histogram and φ(b) (once features() was asked for) share a pass.
//
// The belief vector the library sees (BeliefUpdater) is the histogram of the weighted
// particles over the agent's binning, b_j = Σ_{i: bin(x_i) = j} w_i; the particles are the
// updater's own state. MBE's s̃_t ~ b_t is one particle drawn by weight, reported by its bin;
// Reg-MBE's H(b_t) is a plug-in estimate (ParticleEntropy); with a StateFeatureMap
// (belief/state_features.hpp), φ(b) = Σ_i w_i φ(x_i).
// Depletion (every weight zero): re-seed from the prior weighed by o; if these vanish too,
// equal weights (o ignored); both counted, never NaN. Errors: config_error for 0 particles, 0
// bins or a threshold outside [0, 1]; model_error for a bad (log-)likelihood or bin, naming
// the value, action, observation and particle. Updates allocate nothing (buffers sized at
// construction) unless the model's state type does.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/state_features.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

/// Which belief entropy a particle filter reports for Reg-MBE. The plug-in entropy of the
/// binned weighted particles, with n_eff roughly independent draws over m occupied bins, is
/// biased low by about (m - 1) / (2 n_eff) nats (Miller, 1955) on top of the particle
/// approximation's own error; miller_madow adds that term back (through belief_entropy(b),
/// which the rollout records instead of H(b); core/optional_members.hpp). After resampling n_eff = n
/// counts duplicated particles as distinct, so the correction is a heuristic.
enum class ParticleEntropy {
    plug_in,      ///< H(b): the entropy of the binned weighted particles (biased low)
    miller_madow  ///< H(b) + (m - 1) / (2 n_eff), m the occupied bins, n_eff = 1 / Σ w_i²
};

struct ParticleFilterOptions {
    std::size_t particles = 1000;                     ///< n > 0
    double resample_threshold = 0.5;                  ///< resample when n_eff < threshold · n; in [0, 1]
    ParticleEntropy entropy = ParticleEntropy::plug_in;
};

namespace detail {
template <class M>
using particle_observation_t = typename concept_checks::observation_of<M>::type;
template <class M>
concept batched_transitions = requires(const M& m, std::span<typename M::state_type> xs, std::size_t a, DefaultRng& g) {
    m.sample_next_states(xs, a, g);
};
template <class M>
concept batched_log_likelihoods = requires(const M& m, std::size_t a, const particle_observation_t<M>& o,
                                           std::span<const typename M::state_type> xs, std::span<double> out) {
    m.observation_log_likelihoods(a, o, xs, out);
};
template <class M>
concept batched_likelihoods = requires(const M& m, std::size_t a, const particle_observation_t<M>& o,
                                       std::span<const typename M::state_type> xs, std::span<double> out) {
    m.observation_likelihoods(a, o, xs, out);
};
}  // namespace detail

/// A simulator that moves and weighs a whole particle set per call: ParticleFilter's fast path,
/// used instead of its per-particle loop when the model offers it. Required, for `const M& m`,
/// `std::span<state_type> xs`, `std::span<const state_type> cxs`, `std::span<double> out` (as
/// long as xs), an action a, an observation o of the model's type and a generator g:
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

/// The identity binning of a finite state (as_generative views, integer states).
struct IdentityBinning {
    [[nodiscard]] std::size_t operator()(std::size_t s) const noexcept { return s; }
};

/// No feature map: the policy reads b itself.
struct NoStateFeatures {};

/// Systematic (low-variance) resampling: out[j] = the index i whose cumulative weight
/// interval holds (u + j) / m, j < m = out.size(), for one u ~ U[0, 1). Every index is drawn
/// floor(m w_i) or ceil(m w_i) times, and n w_i times in expectation (unbiased). `weights`
/// must be non-negative with a positive, finite sum (they are normalised here). Throws
/// config_error for an empty input or output, numeric_error naming a bad weight or sum.
template <std::uniform_random_bit_generator G>
void systematic_resample(std::span<const double> weights, std::span<std::size_t> out, G& g);

namespace detail {
/// systematic_resample for weights known to be valid and summing to `total` > 0.
template <class G>
void systematic_resample_unchecked(std::span<const double> weights, double total, std::span<std::size_t> out, G& g) {
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
}  // namespace detail

template <std::uniform_random_bit_generator G>
void systematic_resample(std::span<const double> weights, std::span<std::size_t> out, G& g) {
    if (weights.empty() || out.empty())
        throw config_error(detail::message("systematic_resample: ", weights.size(), " weights and ", out.size(),
                                           " draws; both must be positive"));
    double total = 0.0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (!(weights[i] >= 0.0) || !std::isfinite(weights[i]))
            throw numeric_error(detail::message("systematic_resample: weight ", i, " is ", weights[i],
                                                "; weights must be finite and >= 0"));
        total += weights[i];
    }
    if (!(total > 0.0) || !std::isfinite(total))
        throw numeric_error(detail::message("systematic_resample: the weights sum to ", total,
                                            "; the sum must be positive and finite"));
    detail::systematic_resample_unchecked(weights, total, out, g);
}

namespace detail {
/// An observation as a message shows it: streamed when it can be, its coordinates when it is a
/// point, else a placeholder.
template <class O>
std::string observation_text(const O& o) {
    if constexpr (requires(std::ostream& os) { os << o; }) {
        std::ostringstream os;
        os << o;
        return os.str();
    } else if constexpr (PointLike<O>) {
        std::ostringstream os;
        std::vector<double> x(point_dimension(o));
        write_point(o, std::span<double>(x));
        os << '(';
        for (std::size_t j = 0; j < x.size(); ++j) os << (j ? ", " : "") << x[j];
        os << ')';
        return os.str();
    } else {
        return "(an observation)";
    }
}
}  // namespace detail

template <class M, class Binning, class Features = NoStateFeatures>
class ParticleFilter {
    static_assert(require_observation_likelihood<M>());

public:
    using state_type = typename M::state_type;
    /// The world's observations (an index unless the model declares a non-integral observation_type).
    using observation_type = typename concept_checks::observation_of<M>::type;
    /// Whether particles are weighed in logs (the model has observation_log_likelihood).
    static constexpr bool weighs_in_logs = concept_checks::has_observation_log_likelihood<M>;
    static constexpr bool has_state_features = !std::is_same_v<Features, NoStateFeatures>;
    /// Whether updates take the model's batched fast path (BatchedParticleModel).
    static constexpr bool batched = BatchedParticleModel<M>;
    /// Whether the feature map accumulates a span of particles per call (optional member
    /// `accumulate_all(std::span<const state_type>, std::span<const double> w, Eigen::VectorXd&)`,
    /// the same additions as accumulate per particle; BilinearGridFeatures has it).
    static constexpr bool batched_features =
        requires(const Features& f, std::span<const state_type> xs, std::span<const double> w, Eigen::VectorXd& acc) {
            f.accumulate_all(xs, w, acc);
        };
    static_assert(std::is_invocable_r_v<std::size_t, const Binning&, const state_type&>,
                  "maxent::ParticleFilter: the binning must be callable as `std::size_t bin(const state_type&)`");
    static consteval bool check_features() {
        if constexpr (has_state_features)
            return require_state_feature_map<Features, state_type>();
        else
            return true;
    }
    static_assert(check_features());

    /// A filter of `model` (which must outlive it) with `bins` bins; b_1's particles are
    /// drawn now from g.
    template <std::uniform_random_bit_generator G>
    ParticleFilter(const M& model, std::size_t bins, Binning binning, ParticleFilterOptions options, G& g)
        requires(!has_state_features)
        : ParticleFilter(model, bins, std::move(binning), Features{}, options, g) {}

    /// The same, with a feature map of states: the filter then gives φ(b) = Σ_i w_i φ(x_i).
    template <std::uniform_random_bit_generator G>
    ParticleFilter(const M& model, std::size_t bins, Binning binning, Features features, ParticleFilterOptions options,
                   G& g)
        : model_(&model), bins_(bins), binning_(std::move(binning)), features_(std::move(features)), options_(options) {
        const std::size_t n = options.particles;
        if (n == 0) throw config_error("ParticleFilter: 0 particles; at least 1 is needed");
        if (bins == 0) throw config_error("ParticleFilter: 0 bins; the belief needs at least 1");
        if (!(options.resample_threshold >= 0.0 && options.resample_threshold <= 1.0))
            throw config_error(detail::message("ParticleFilter: resample_threshold ", options.resample_threshold,
                                               " must be in [0, 1]"));
        if constexpr (has_state_features) {
            if (features_.dimension() == 0) throw config_error("ParticleFilter: the feature map has dimension 0");
        }
        prior_.reserve(n);
        for (std::size_t i = 0; i < n; ++i) prior_.push_back(model.sample_initial_state(g));
        for (std::size_t i = 0; i < n; ++i) check_bin(prior_[i], i, "the prior");
        particles_ = prior_;
        scratch_ = prior_;
        weights_.assign(n, 1.0 / static_cast<double>(n));
        if constexpr (weighs_in_logs || batched) values_.assign(n, 0.0);
        index_.assign(n, 0);
    }
    template <class... Args>
    ParticleFilter(const M&&, Args&&...) = delete;

    // --- BeliefUpdater -------------------------------------------------------------------
    /// L: the number of bins of the agent's belief.
    [[nodiscard]] std::size_t dimension() const noexcept { return bins_; }

    /// Resets the particles to b_1's (the prior set drawn at construction), equal weights,
    /// and writes their histogram into b. (const as BeliefUpdater requires; the particle
    /// set is the updater's per-episode state, hence mutable.)
    void initial(Eigen::VectorXd& b) const {
        const std::size_t n = prior_.size();
        for (std::size_t i = 0; i < n; ++i) particles_[i] = prior_[i];
        weights_.assign(n, 1.0 / static_cast<double>(n));
        uniform_weights_ = true;
        ess_ = static_cast<double>(n);
        write_belief(b);
    }

    /// Predict, reweight, resample if n_eff < threshold · n; b <- the particles' histogram
    /// (and φ(b) with a feature map, in the same sweep). With a BatchedParticleModel the
    /// moves and densities come per set, and normalisation, n_eff and the belief share a pass
    /// when no resampling is due.
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, const observation_type& o, G& g) {
        const std::size_t n = particles_.size();
        double total;
        const double threshold = options_.resample_threshold * static_cast<double>(n);
        double sum_squares;
        if constexpr (batched) {
            double raw_squares = 0.0;
            total = reweigh_batched(a, o, g, raw_squares);
            // When total² / Σ w_i² (n_eff before rounding) says no resampling, normalisation, n_eff,
            // histogram and φ(b) share one pass; should the exact n_eff say otherwise after all,
            // the resampling and the belief follow as on the other path (the same bits).
            if (total > 0.0 && std::isfinite(total) && std::isfinite(1.0 / total) &&
                total * total > threshold * 1.000001 * raw_squares) {
                uniform_weights_ = false;
                ess_ = 1.0 / normalise_and_write_belief(1.0 / total, b);
                if (ess_ < threshold) {
                    resample(g);
                    write_belief(b);
                }
                return;
            }
        } else {
            total = reweigh(a, o, g);
        }
        if (!(total > 0.0)) {
            sum_squares = reseed(a, o, g);
        } else {
            sum_squares = normalise(total);
            uniform_weights_ = false;
        }
        ess_ = 1.0 / sum_squares;
        if (ess_ < threshold) resample(g);
        write_belief(b);
    }

    // --- BeliefFeatures (with a feature map) -----------------------------------------------
    [[nodiscard]] std::size_t feature_dimension() const
        requires has_state_features
    {
        return features_.dimension();
    }
    /// phi <- Σ_i w_i φ(x_i) of the current particles (b must be this filter's belief).
    void features(const Eigen::VectorXd& b, Eigen::VectorXd& phi) const
        requires has_state_features
    {
        if (static_cast<std::size_t>(b.size()) != bins_)
            throw config_error(detail::message("ParticleFilter::features: the belief has ", b.size(),
                                               " entries; the filter's has ", bins_));
        if (!phi_current_) {  // the first call: later updates accumulate φ(b) with the histogram
            const auto F = static_cast<Eigen::Index>(features_.dimension());
            if (phi_.size() != F) phi_.resize(F);
            phi_.setZero();
            for (std::size_t i = 0; i < particles_.size(); ++i) features_.accumulate(particles_[i], weights_[i], phi_);
            phi_current_ = true;
        }
        phi = phi_;
    }

    // --- the belief entropy Reg-MBE records (core/optional_members.hpp) -----------------------------
    /// H(b) (plug_in) or H(b) + (m - 1) / (2 n_eff) (miller_madow); see the header.
    [[nodiscard]] double belief_entropy(const Eigen::VectorXd& b) const {
        const double h = entropy_unchecked(b);
        if (options_.entropy == ParticleEntropy::plug_in) return h;
        Eigen::Index occupied = 0;
        for (Eigen::Index j = 0; j < b.size(); ++j) occupied += b[j] > 0.0 ? 1 : 0;
        return h + static_cast<double>(occupied - 1) / (2.0 * effective_sample_size());
    }

    // --- inspection -----------------------------------------------------------------------
    [[nodiscard]] std::size_t particle_count() const noexcept { return particles_.size(); }
    [[nodiscard]] std::span<const state_type> particles() const noexcept { return particles_; }
    [[nodiscard]] std::span<const double> weights() const noexcept { return weights_; }
    /// 1 / Σ w_i² of the current weights (before the last resampling, if one happened).
    [[nodiscard]] double effective_sample_size() const noexcept {
        return ess_ > 0.0 ? ess_ : static_cast<double>(particles_.size());
    }
    /// Updates where every weight vanished (re-seeded from the prior).
    [[nodiscard]] std::size_t depletions() const noexcept { return depletions_; }
    /// Depletions where the re-seeded particles' weights vanished too (o ignored).
    [[nodiscard]] std::size_t uninformed_recoveries() const noexcept { return uninformed_; }
    /// Updates that resampled.
    [[nodiscard]] std::size_t resamples() const noexcept { return resamples_; }
    [[nodiscard]] const ParticleFilterOptions& options() const noexcept { return options_; }
    /// Bytes held for particles, weights, densities and indices (3 particle sets: the prior,
    /// the current one, the resampling buffer).
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return (prior_.capacity() + particles_.capacity() + scratch_.capacity()) * sizeof(state_type) +
               (weights_.capacity() + values_.capacity()) * sizeof(double) + index_.capacity() * sizeof(std::size_t);
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "particles"; }

private:
    double checked_likelihood(std::size_t a, const observation_type& o, const state_type& x, std::size_t i) const
        requires concept_checks::has_observation_likelihood<M>
    {
        const double l = model_->observation_likelihood(a, o, x);
        if (!(l >= 0.0) || !std::isfinite(l)) bad_likelihood(a, o, i, l);
        return l;
    }
    [[noreturn]] static void bad_likelihood(std::size_t a, const observation_type& o, std::size_t i, double l) {
        throw model_error(detail::message("ParticleFilter: observation_likelihood(a = ", a, ", o = ",
                                          detail::observation_text(o), ", particle ", i, ") is ", l,
                                          "; it must be finite and >= 0"));
    }
    [[noreturn]] static void bad_log_likelihood(std::size_t a, const observation_type& o, std::size_t i, double l) {
        throw model_error(detail::message("ParticleFilter: observation_log_likelihood(a = ", a, ", o = ",
                                          detail::observation_text(o), ", particle ", i, ") is ", l,
                                          "; it must be < +inf (and not NaN)"));
    }

    /// ℓ = observation_log_likelihood(a, o, x): -inf (density 0) is allowed, NaN and +inf are not.
    double checked_log_likelihood(std::size_t a, const observation_type& o, const state_type& x,
                                  std::size_t i) const
        requires weighs_in_logs
    {
        const double l = model_->observation_log_likelihood(a, o, x);
        if (std::isnan(l) || l == std::numeric_limits<double>::infinity()) bad_log_likelihood(a, o, i, l);
        return l;
    }

    void check_bin(const state_type& x, std::size_t i, const char* which) const {
        const std::size_t j = binning_(x);
        if (j >= bins_)
            throw model_error(detail::message("ParticleFilter: the binning put particle ", i, " of ", which, " in bin ",
                                              j, "; bins must be < ", bins_));
    }

    /// w <- w / total (total > 0); returns Σ w_i² of the normalised weights (the same pass).
    /// When the sum overflowed, or is so small (denormal) that 1 / total overflows, the
    /// weights are first divided by the largest one (then 1 <= sum <= n); ordinary sums take
    /// the plain path, whose arithmetic is unchanged.
    double normalise(double total) {
        double inverse = 1.0 / total;
        if (!std::isfinite(total) || !std::isfinite(inverse)) {
            double largest = 0.0;
            for (const double w : weights_) largest = std::max(largest, w);
            total = 0.0;
            for (double& w : weights_) total += (w /= largest);
            inverse = 1.0 / total;
        }
        double sum_squares = 0.0;
        for (double& w : weights_) {
            w *= inverse;
            sum_squares += w * w;
        }
        return sum_squares;
    }

    /// The per-particle predict and reweight: returns Σ_i of the unnormalised weights (0 when
    /// every weight vanished).
    template <class G>
    double reweigh(std::size_t a, const observation_type& o, G& g) {
        const M& m = *model_;
        const std::size_t n = particles_.size();
        double total = 0.0;
        if constexpr (weighs_in_logs) {
            // log w_i + ℓ_i, then exp relative to the largest: the same normalised weights as
            // the product when nothing underflows.
            double top = -std::numeric_limits<double>::infinity();
            for (std::size_t i = 0; i < n; ++i) {
                particles_[i] = m.sample_next_state(particles_[i], a, g);
                const double l = checked_log_likelihood(a, o, particles_[i], i);
                const double lw = weights_[i] > 0.0 ? std::log(weights_[i]) + l : -std::numeric_limits<double>::infinity();
                values_[i] = lw;
                top = std::max(top, lw);
            }
            total = exponentiate(top);
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                particles_[i] = m.sample_next_state(particles_[i], a, g);
                const double w = weights_[i] * checked_likelihood(a, o, particles_[i], i);
                weights_[i] = w;
                total += w;
            }
        }
        return total;
    }

    /// reweigh through the model's batched members: the same draws and the same weights.
    /// After a resampling every weight is 1/n, so log w_i is one logarithm for all.
    template <class G>
    double reweigh_batched(std::size_t a, const observation_type& o, G& g, double& raw_squares)
        requires batched
    {
        const M& m = *model_;
        const std::size_t n = particles_.size();
        m.sample_next_states(std::span<state_type>(particles_), a, g);
        double total = 0.0;
        bool bad = false;
        if constexpr (weighs_in_logs) {
            m.observation_log_likelihoods(a, o, std::span<const state_type>(particles_), std::span<double>(values_));
            constexpr double minus_infinity = -std::numeric_limits<double>::infinity();
            double top = minus_infinity;
            if (uniform_weights_) {
                const double log_w = std::log(weights_[0]);
                for (std::size_t i = 0; i < n; ++i) {
                    const double l = values_[i];
                    bad |= std::isnan(l) || l == std::numeric_limits<double>::infinity();
                    const double lw = log_w + l;
                    values_[i] = lw;
                    top = std::max(top, lw);
                }
            } else {
                for (std::size_t i = 0; i < n; ++i) {
                    const double l = values_[i];
                    bad |= std::isnan(l) || l == std::numeric_limits<double>::infinity();
                    const double lw = weights_[i] > 0.0 ? std::log(weights_[i]) + l : minus_infinity;
                    values_[i] = lw;
                    top = std::max(top, lw);
                }
            }
            if (bad) {
                m.observation_log_likelihoods(a, o, std::span<const state_type>(particles_), std::span<double>(values_));
                for (std::size_t i = 0; i < n; ++i)
                    if (std::isnan(values_[i]) || values_[i] == std::numeric_limits<double>::infinity())
                        bad_log_likelihood(a, o, i, values_[i]);
            }
            total = exponentiate(top, raw_squares);
        } else {
            m.observation_likelihoods(a, o, std::span<const state_type>(particles_), std::span<double>(values_));
            for (std::size_t i = 0; i < n; ++i) {
                const double l = values_[i];
                bad |= !(l >= 0.0) || !std::isfinite(l);
                const double w = weights_[i] * l;
                weights_[i] = w;
                total += w;
                raw_squares += w * w;
            }
            if (bad)
                for (std::size_t i = 0; i < n; ++i)
                    if (!(values_[i] >= 0.0) || !std::isfinite(values_[i])) bad_likelihood(a, o, i, values_[i]);
        }
        return total;
    }

    /// w_i <- exp(values_i - top) (0 for every i when top = -inf); returns their sum, and
    /// adds their squares to `squares`.
    double exponentiate(double top, double& squares)
        requires weighs_in_logs
    {
        double total = 0.0;
        const std::size_t n = particles_.size();
        if (top > -std::numeric_limits<double>::infinity()) {
            for (std::size_t i = 0; i < n; ++i) {
                const double w = std::exp(values_[i] - top);
                weights_[i] = w;
                total += w;
                squares += w * w;
            }
        }
        return total;
    }
    double exponentiate(double top)
        requires weighs_in_logs
    {
        double squares = 0.0;
        return exponentiate(top, squares);
    }

    /// Depletion: fresh particles from the prior weighed by o; equal weights if those vanish.
    /// Returns Σ w_i² of the new weights.
    template <class G>
    double reseed(std::size_t a, const observation_type& o, G& g) {
        ++depletions_;
        const std::size_t n = particles_.size();
        double total = 0.0;
        if constexpr (weighs_in_logs) {
            double top = -std::numeric_limits<double>::infinity();
            for (std::size_t i = 0; i < n; ++i) {
                particles_[i] = model_->sample_initial_state(g);
                values_[i] = checked_log_likelihood(a, o, particles_[i], i);
                top = std::max(top, values_[i]);
            }
            for (std::size_t i = 0; i < n; ++i) {
                weights_[i] = top > -std::numeric_limits<double>::infinity() ? std::exp(values_[i] - top) : 0.0;
                total += weights_[i];
            }
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                particles_[i] = model_->sample_initial_state(g);
                weights_[i] = checked_likelihood(a, o, particles_[i], i);
                total += weights_[i];
            }
        }
        if (total > 0.0) {
            uniform_weights_ = false;
            return normalise(total);
        }
        ++uninformed_;
        for (double& w : weights_) w = 1.0 / static_cast<double>(n);
        uniform_weights_ = true;
        double sum_squares = 0.0;
        for (const double w : weights_) sum_squares += w * w;
        return sum_squares;
    }

    template <class G>
    void resample(G& g) {
        ++resamples_;
        const std::size_t n = particles_.size();
        detail::systematic_resample_unchecked(std::span<const double>(weights_), 1.0, std::span<std::size_t>(index_),
                                              g);
        for (std::size_t j = 0; j < n; ++j) scratch_[j] = particles_[index_[j]];
        particles_.swap(scratch_);
        for (double& w : weights_) w = 1.0 / static_cast<double>(n);
        uniform_weights_ = true;
    }

    /// b <- the histogram of the weighted particles and, with a feature map once features()
    /// has been called, phi_ <- φ(b): one sweep in chunks that stay in the L1 cache, each
    /// adding in particle order as separate sweeps would (the same bits).
    void write_belief(Eigen::VectorXd& b) const {
        const auto L = static_cast<Eigen::Index>(bins_);
        if (b.size() != L) b.resize(L);
        b.setZero();
        const bool with_features = has_state_features && phi_.size() > 0;
        if (with_features) phi_.setZero();
        constexpr std::size_t chunk = 512;
        const std::size_t n = particles_.size();
        for (std::size_t start = 0; start < n; start += chunk) {
            const std::size_t end = std::min(n, start + chunk);
            for (std::size_t i = start; i < end; ++i) {
                const std::size_t j = binning_(particles_[i]);
                if (j >= bins_) check_bin(particles_[i], i, "the current set");
                b[static_cast<Eigen::Index>(j)] += weights_[i];
            }
            if constexpr (has_state_features) {
                if (with_features) accumulate_features(start, end);
            }
        }
        phi_current_ = with_features;
    }

    /// normalise (w_i <- w_i · inverse, its plain path) and write_belief in one sweep; returns
    /// Σ w_i² of the normalised weights. The same operations in the same order as the two.
    double normalise_and_write_belief(double inverse, Eigen::VectorXd& b) const {
        const auto L = static_cast<Eigen::Index>(bins_);
        if (b.size() != L) b.resize(L);
        b.setZero();
        const bool with_features = has_state_features && phi_.size() > 0;
        if (with_features) phi_.setZero();
        double sum_squares = 0.0;
        constexpr std::size_t chunk = 512;
        const std::size_t n = particles_.size();
        for (std::size_t start = 0; start < n; start += chunk) {
            const std::size_t end = std::min(n, start + chunk);
            for (std::size_t i = start; i < end; ++i) {
                const double w = weights_[i] * inverse;
                weights_[i] = w;
                sum_squares += w * w;
                const std::size_t j = binning_(particles_[i]);
                if (j >= bins_) check_bin(particles_[i], i, "the current set");
                b[static_cast<Eigen::Index>(j)] += w;
            }
            if constexpr (has_state_features) {
                if (with_features) accumulate_features(start, end);
            }
        }
        phi_current_ = with_features;
        return sum_squares;
    }

    /// phi_ += Σ_{start <= i < end} w_i φ(x_i), in particle order.
    void accumulate_features(std::size_t start, std::size_t end) const
        requires has_state_features
    {
        if constexpr (batched_features) {
            features_.accumulate_all(std::span<const state_type>(particles_.data() + start, end - start),
                                     std::span<const double>(weights_.data() + start, end - start), phi_);
        } else {
            for (std::size_t i = start; i < end; ++i) features_.accumulate(particles_[i], weights_[i], phi_);
        }
    }

    const M* model_;
    std::size_t bins_;
    Binning binning_;
    [[no_unique_address]] Features features_;
    ParticleFilterOptions options_;
    std::vector<state_type> prior_;            // b_1's particles, drawn at construction
    mutable std::vector<state_type> particles_;  // the current set (reset by initial())
    std::vector<state_type> scratch_;          // resampling target, swapped with particles_
    mutable std::vector<double> weights_;      // normalised
    std::vector<double> values_;               // log w_i + ℓ_i (weighs_in_logs), else the batched densities
    mutable Eigen::VectorXd phi_;              // φ(b), sized by the first features() call
    mutable bool phi_current_ = false;         // phi_ is φ(b) of the current particles
    mutable bool uniform_weights_ = true;      // every weight is 1/n (log w_i needs one logarithm)
    std::vector<std::size_t> index_;           // resampled indices
    mutable double ess_ = 0.0;                 // 1 / Σ w_i² after the last reweighting
    std::size_t depletions_ = 0, uninformed_ = 0, resamples_ = 0;
};

}  // namespace maxent
