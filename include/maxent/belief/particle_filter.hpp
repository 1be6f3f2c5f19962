// maxent/belief/particle_filter.hpp — a particle-filter belief model for any simulator that
// weighs its observations (GenerativePomdp + ObservationLikelihood, model/concepts.hpp):
// ParticleFilter<M, Binning, Features, Resample, Criterion>.
//
// Paper, Section 5: the belief is n particles x_i with weights w_i summing to 1. update(b, a,
// o, g) is a bootstrap filter composed of belief/particle_steps.hpp's steps (a an action index
// or the world's action_type, which the filter then declares):
//   predict    x_i <- sample_next_state(x_i, a, g), per particle or batched (same bits)
//   reweight   w_i <- w_i · observation_likelihood(a, o, x_i) (or in logs), normalised
//   resample   when the Criterion says so (default EssThreshold on 1 / Σ w_i²), by the
//              Resampler (default SystematicResampler; belief/resamplers.hpp)
// b_1: n draws of sample_initial_state made once at construction. The belief vector the library
// sees is the particles' weight per bin of the agent's binning; MBE's s̃_t is one particle drawn
// by weight; Reg-MBE's H(b_t) a plug-in estimate; with a StateFeatureMap, φ(b) = Σ_i w_i φ(x_i).
// Depletion (every weight zero): re-seed from the prior weighed by o, else equal weights; both
// counted, never NaN. config_error for 0 particles, 0 bins or a threshold outside [0, 1];
// model_error naming a bad (log-)likelihood or bin. Updates allocate nothing (unless the
// model's state type does).
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

#include "maxent/belief/particle_steps.hpp"
#include "maxent/belief/resamplers.hpp"
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
                                                      ///< (read by EssThreshold, the default criterion)
    ParticleEntropy entropy = ParticleEntropy::plug_in;
};

/// The identity binning of a finite state (as_generative views, integer states).
struct IdentityBinning {
    [[nodiscard]] std::size_t operator()(std::size_t s) const noexcept { return s; }
};

/// No feature map: the policy reads b itself.
struct NoStateFeatures {};

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

/// The criterion a filter builds from its options: from the threshold when C takes a double.
template <class C>
C make_criterion(const ParticleFilterOptions& options) {
    if constexpr (std::is_constructible_v<C, double>)
        return C(options.resample_threshold);
    else
        return C{};
}
}  // namespace detail

namespace detail {
/// The action_type a particle filter declares: the world's, when its actions are continuous
/// (what the rollout checks the updater reads: updater_action_t, belief/concepts.hpp).
template <class M>
struct filter_action_type {};
template <class M>
    requires(!concept_checks::index_actions<M>)
struct filter_action_type<M> {
    using action_type = typename concept_checks::action_of<M>::type;
};
}  // namespace detail

template <class M, class Binning, class Features = NoStateFeatures, class Resample = SystematicResampler,
          class Criterion = EssThreshold>
class ParticleFilter : public detail::filter_action_type<M> {
    static_assert(require_observation_likelihood<M>());
    static_assert(require_resampler<Resample>());
    static_assert(require_resampling_criterion<Criterion>());

public:
    using state_type = typename M::state_type;
    /// The world's observations (an index unless the model declares a non-integral observation_type).
    using observation_type = typename concept_checks::observation_of<M>::type;
    /// Whether particles are weighed in logs (the model has observation_log_likelihood).
    static constexpr bool weighs_in_logs = concept_checks::has_observation_log_likelihood<M>;
    static constexpr bool has_state_features = !std::is_same_v<Features, NoStateFeatures>;
    /// Whether updates take the model's batched fast path (BatchedParticleModel).
    static constexpr bool batched = BatchedParticleModel<M>;
    /// The predict and weigh steps (belief/particle_steps.hpp): batched when the model allows.
    using steps_type = particle_steps_t<M>;
    using resampler_type = Resample;
    using criterion_type = Criterion;
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
        : steps_(model),
          bins_(bins),
          binning_(std::move(binning)),
          features_(std::move(features)),
          options_(options),
          criterion_(detail::make_criterion<Criterion>(options)) {
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
        values_.assign(n, 0.0);
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

    /// One bootstrap-filter step: predict, weigh, reweight, normalise, resample when the
    /// criterion says so (n_eff < threshold · n by default); b <- the particles' histogram (and
    /// φ(b) with a feature map). When the unnormalised weights already show that no resampling
    /// is due (the criterion asked with total² / Σ w_i², a hair lower), normalisation, n_eff
    /// and the belief share one pass; the bits are those of the separate passes.
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, action_arg_t<M> a, const observation_type& o, G& g) {
        const std::size_t n = particles_.size();
        steps_.predict(std::span<state_type>(particles_), a, g);
        steps_.weigh(a, o, std::span<const state_type>(particles_), std::span<double>(values_));
        const Reweighting r = reweight<weighs_in_logs>(std::span<double>(weights_), values_, uniform_weights_);
        if (r.bad) bad_density(a, o);
        const double total = r.total;
        if (total > 0.0 && std::isfinite(total) && std::isfinite(1.0 / total) &&
            !criterion_.due(total * (total / r.squares) / 1.000001, n)) {
            uniform_weights_ = false;
            ess_ = 1.0 / normalise_and_write_belief(1.0 / total, b);
            if (criterion_.due(ess_, n)) {
                resample(g);
                write_belief(b);
            }
            return;
        }
        double sum_squares;
        if (!(total > 0.0)) {
            sum_squares = reseed(a, o, g);
        } else {
            sum_squares = normalise_weights(std::span<double>(weights_), total);
            uniform_weights_ = false;
        }
        ess_ = 1.0 / sum_squares;
        if (criterion_.due(ess_, n)) resample(g);
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
    [[nodiscard]] const Resample& resampler() const noexcept { return resampler_; }
    [[nodiscard]] const Criterion& criterion() const noexcept { return criterion_; }
    /// Bytes held for particles, weights, densities and indices (3 particle sets: the prior,
    /// the current one, the resampling buffer).
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return (prior_.capacity() + particles_.capacity() + scratch_.capacity()) * sizeof(state_type) +
               (weights_.capacity() + values_.capacity()) * sizeof(double) + index_.capacity() * sizeof(std::size_t);
    }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "particles"; }

private:
    /// model_error naming the first invalid density in values_ (reweight flagged one).
    [[noreturn]] void bad_density(action_arg_t<M> a, const observation_type& o) const {
        const std::size_t i = first_invalid_density<weighs_in_logs>(values_);
        const double l = i < values_.size() ? values_[i] : std::numeric_limits<double>::quiet_NaN();
        if constexpr (weighs_in_logs)
            throw model_error(detail::message("ParticleFilter: observation_log_likelihood(a = ", detail::action_text(a),
                                              ", o = ",
                                              detail::observation_text(o), ", particle ", i, ") is ", l,
                                              "; it must be < +inf (and not NaN)"));
        else
            throw model_error(detail::message("ParticleFilter: observation_likelihood(a = ", detail::action_text(a),
                                              ", o = ",
                                              detail::observation_text(o), ", particle ", i, ") is ", l,
                                              "; it must be finite and >= 0"));
    }

    void check_bin(const state_type& x, std::size_t i, const char* which) const {
        const std::size_t j = binning_(x);
        if (j >= bins_)
            throw model_error(detail::message("ParticleFilter: the binning put particle ", i, " of ", which, " in bin ",
                                              j, "; bins must be < ", bins_));
    }

    /// Depletion (every weight vanished): fresh particles from the prior weighed by o; equal
    /// weights if those vanish too. Returns Σ w_i² of the new weights.
    template <class G>
    double reseed(action_arg_t<M> a, const observation_type& o, G& g) {
        ++depletions_;
        const std::size_t n = particles_.size();
        for (std::size_t i = 0; i < n; ++i) particles_[i] = steps_.model().sample_initial_state(g);
        steps_.weigh(a, o, std::span<const state_type>(particles_), std::span<double>(values_));
        const Reweighting r = weigh_fresh<weighs_in_logs>(std::span<double>(weights_), values_);
        if (r.bad) bad_density(a, o);
        if (r.total > 0.0) {
            uniform_weights_ = false;
            return normalise_weights(std::span<double>(weights_), r.total);
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
        resample_particles(resampler_, std::span<double>(weights_), particles_, scratch_, std::span<std::size_t>(index_),
                           g);
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

    steps_type steps_;                         // predict and weigh (the model's batched members when it has them)
    std::size_t bins_;
    Binning binning_;
    [[no_unique_address]] Features features_;
    ParticleFilterOptions options_;
    [[no_unique_address]] Resample resampler_;
    [[no_unique_address]] Criterion criterion_;
    std::vector<state_type> prior_;            // b_1's particles, drawn at construction
    mutable std::vector<state_type> particles_;  // the current set (reset by initial())
    std::vector<state_type> scratch_;          // resampling target, swapped with particles_
    mutable std::vector<double> weights_;      // normalised
    std::vector<double> values_;               // the last densities (ℓ_i in logs, else l_i)
    mutable Eigen::VectorXd phi_;              // φ(b), sized by the first features() call
    mutable bool phi_current_ = false;         // phi_ is φ(b) of the current particles
    mutable bool uniform_weights_ = true;      // every weight is 1/n (log w_i needs one logarithm)
    std::vector<std::size_t> index_;           // resampled indices
    mutable double ess_ = 0.0;                 // 1 / Σ w_i² after the last reweighting
    std::size_t depletions_ = 0, uninformed_ = 0, resamples_ = 0;
};

}  // namespace maxent
