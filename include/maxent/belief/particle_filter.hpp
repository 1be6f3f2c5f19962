// maxent/belief/particle_filter.hpp — a particle-filter belief model for any simulator that
// weighs its observations (GenerativePomdp + ObservationLikelihood, model/concepts.hpp).
//
// Paper, Section 5 (beliefs the agent can afford) for worlds the exact filter cannot
// enumerate: the belief is n weighted particles x_i (states of the model) with weights w_i
// summing to 1. One update after action a and observation o (bootstrap filter):
//   predict    x_i <- sample_next_state(x_i, a, g)          (the model's own sampler)
//   reweight   w_i <- w_i · observation_likelihood(a, o, x_i), o of the world's own type; with
//              observation_log_likelihood ℓ, w_i ∝ exp(log w_i + ℓ_i - max_j(log w_j + ℓ_j))
//   resample   when the effective sample size 1 / Σ w_i² falls below threshold · n:
//              systematic resampling (one uniform draw for all n), then equal weights.
// b_1: n draws of sample_initial_state made ONCE at construction, the same in every episode.
//
// The belief vector the library sees (BeliefUpdater) is the histogram of the weighted
// particles over the agent's binning, b_j = Σ_{i: bin(x_i) = j} w_i; the particles are the
// updater's own state (update() does not read b). So MBE's s̃_t ~ b_t is one particle drawn by
// weight, reported by its bin; Reg-MBE's H(b_t) is a plug-in estimate (ParticleEntropy); with
// a StateFeatureMap (belief/state_features.hpp), φ(b) = Σ_i w_i φ(x_i).
//
// Depletion (every weight zero after reweighting): re-seed n particles from the prior, weighed
// by the likelihood of o; if these vanish too, keep them with equal weights (o ignored). Both
// are counted (depletions(), uninformed_recoveries()); neither produces NaN. Sums that overflow
// or are denormal are rescaled by the largest weight; log weights keep underflowing densities.
// Errors: config_error for 0 particles, 0 bins or a threshold outside [0, 1]; model_error for a
// likelihood that is NaN, negative or infinite (a log-likelihood that is NaN or +inf), or a bin out of range (naming the value, the
// action, the observation and the particle). Updates allocate nothing (buffers sized at
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
    for (std::size_t k = 0; k < n; ++k)
        if (weights[k] > 0.0) last_positive = k;
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
        if constexpr (weighs_in_logs) log_weights_.assign(n, 0.0);
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
        ess_ = static_cast<double>(n);
        write_histogram(b);
    }

    /// Predict, reweight, resample if n_eff < threshold · n; b <- the particles' histogram.
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, const observation_type& o, G& g) {
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
                log_weights_[i] = lw;
                top = std::max(top, lw);
            }
            if (top > -std::numeric_limits<double>::infinity()) {
                for (std::size_t i = 0; i < n; ++i) {
                    const double w = std::exp(log_weights_[i] - top);
                    weights_[i] = w;
                    total += w;
                }
            }
        } else {
            for (std::size_t i = 0; i < n; ++i) {
                particles_[i] = m.sample_next_state(particles_[i], a, g);
                const double w = weights_[i] * checked_likelihood(a, o, particles_[i], i);
                weights_[i] = w;
                total += w;
            }
        }
        if (!(total > 0.0)) {
            reseed(a, o, g);
        } else {
            normalise(total);
        }
        double sum_squares = 0.0;
        for (const double w : weights_) sum_squares += w * w;
        ess_ = 1.0 / sum_squares;
        if (ess_ < options_.resample_threshold * static_cast<double>(n)) resample(g);
        write_histogram(b);
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
        const auto F = static_cast<Eigen::Index>(features_.dimension());
        if (phi.size() != F) phi.resize(F);
        phi.setZero();
        for (std::size_t i = 0; i < particles_.size(); ++i) features_.accumulate(particles_[i], weights_[i], phi);
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
    /// Bytes held for particles, weights and indices (3 particle sets: the prior, the
    /// current one, the resampling buffer).
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return (prior_.capacity() + particles_.capacity() + scratch_.capacity()) * sizeof(state_type) +
               weights_.capacity() * sizeof(double) + index_.capacity() * sizeof(std::size_t);
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "particles"; }

private:
    double checked_likelihood(std::size_t a, const observation_type& o, const state_type& x, std::size_t i) const
        requires concept_checks::has_observation_likelihood<M>
    {
        const double l = model_->observation_likelihood(a, o, x);
        if (!(l >= 0.0) || !std::isfinite(l))
            throw model_error(detail::message("ParticleFilter: observation_likelihood(a = ", a, ", o = ",
                                              detail::observation_text(o), ", particle ", i, ") is ", l,
                                              "; it must be finite and >= 0"));
        return l;
    }

    /// ℓ = observation_log_likelihood(a, o, x): -inf (density 0) is allowed, NaN and +inf are not.
    double checked_log_likelihood(std::size_t a, const observation_type& o, const state_type& x,
                                  std::size_t i) const
        requires weighs_in_logs
    {
        const double l = model_->observation_log_likelihood(a, o, x);
        if (std::isnan(l) || l == std::numeric_limits<double>::infinity())
            throw model_error(detail::message("ParticleFilter: observation_log_likelihood(a = ", a, ", o = ",
                                              detail::observation_text(o), ", particle ", i, ") is ", l,
                                              "; it must be < +inf (and not NaN)"));
        return l;
    }

    void check_bin(const state_type& x, std::size_t i, const char* which) const {
        const std::size_t j = binning_(x);
        if (j >= bins_)
            throw model_error(detail::message("ParticleFilter: the binning put particle ", i, " of ", which, " in bin ",
                                              j, "; bins must be < ", bins_));
    }

    /// w <- w / total (total > 0). When the sum overflowed, or is so small (denormal) that
    /// 1 / total overflows, the weights are first divided by the largest one (then 1 <= sum <=
    /// n); ordinary sums take the plain path, whose arithmetic is unchanged.
    void normalise(double total) {
        double inverse = 1.0 / total;
        if (!std::isfinite(total) || !std::isfinite(inverse)) {
            double largest = 0.0;
            for (const double w : weights_) largest = std::max(largest, w);
            total = 0.0;
            for (double& w : weights_) total += (w /= largest);
            inverse = 1.0 / total;
        }
        for (double& w : weights_) w *= inverse;
    }

    /// Depletion: fresh particles from the prior weighed by o; equal weights if those vanish.
    template <class G>
    void reseed(std::size_t a, const observation_type& o, G& g) {
        ++depletions_;
        const std::size_t n = particles_.size();
        double total = 0.0;
        if constexpr (weighs_in_logs) {
            double top = -std::numeric_limits<double>::infinity();
            for (std::size_t i = 0; i < n; ++i) {
                particles_[i] = model_->sample_initial_state(g);
                log_weights_[i] = checked_log_likelihood(a, o, particles_[i], i);
                top = std::max(top, log_weights_[i]);
            }
            for (std::size_t i = 0; i < n; ++i) {
                weights_[i] = top > -std::numeric_limits<double>::infinity() ? std::exp(log_weights_[i] - top) : 0.0;
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
            normalise(total);
        } else {
            ++uninformed_;
            for (double& w : weights_) w = 1.0 / static_cast<double>(n);
        }
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
    }

    void write_histogram(Eigen::VectorXd& b) const {
        const auto L = static_cast<Eigen::Index>(bins_);
        if (b.size() != L) b.resize(L);
        b.setZero();
        for (std::size_t i = 0; i < particles_.size(); ++i) {
            const std::size_t j = binning_(particles_[i]);
            if (j >= bins_) check_bin(particles_[i], i, "the current set");
            b[static_cast<Eigen::Index>(j)] += weights_[i];
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
    std::vector<double> log_weights_;          // log w_i + ℓ_i (weighs_in_logs only)
    std::vector<std::size_t> index_;           // resampled indices
    mutable double ess_ = 0.0;                 // 1 / Σ w_i² after the last reweighting
    std::size_t depletions_ = 0, uninformed_ = 0, resamples_ = 0;
};

}  // namespace maxent
