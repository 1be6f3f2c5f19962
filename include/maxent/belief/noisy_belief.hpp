// maxent/belief/noisy_belief.hpp — the noisy belief oracle: Gaussian noise after every update.
//
// Paper, Section 5, Assumption 5.1 (an oracle belief approximator with bounded error) as
// instantiated in Section 6.3 / Figure 3: after each exact update, every entry of the
// belief is perturbed by i.i.d. Gaussian noise, clipped to [0, 1] and renormalised; the
// noisy belief is what the next update starts from (docs/reference.md, "Beliefs").
// `NoisyBelief<U>` is a decorator over any BeliefUpdater U (typically BayesFilter<M>) and
// is itself a BeliefUpdater.
//
// σ is a STANDARD DEVIATION. The paper labels its noise levels {0, 0.01, 0.03, 0.04} as a
// variance s^2, but the authors' code uses these numbers as the standard deviation of the
// perturbation; this library takes σ, so the paper's figures are reproduced with
// σ ∈ {0, 0.01, 0.03, 0.04}.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <random>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

/// What the noisy oracle did since construction or the last reset_stats().
struct NoisyBeliefStats {
    std::size_t updates = 0;          ///< calls to update that returned normally
    std::size_t clipped_entries = 0;  ///< entries clipped to 0 or to 1 after adding noise
    std::size_t all_clipped = 0;      ///< fallback (a): every entry clipped to 0, exact posterior kept
    std::size_t relocalised = 0;      ///< fallback (b): zero likelihood under the noisy belief, restarted from the prior

    /// Number of fallback events of either kind.
    [[nodiscard]] std::size_t fallbacks() const noexcept { return all_clipped + relocalised; }
};

/// The noisy belief oracle over an inner updater U (paper, Assumption 5.1 and Figure 3).
///
/// One update, for σ > 0:
///   1. b <- inner.update(b, a, o, g[, step])  (the exact posterior of the noisy belief);
///   2. b~(s) = clip(b(s) + σ z_s, 0, 1) with z_s = standard_normal(g), one draw per state in
///      index order — so every update consumes exactly S normals from g (after whatever the
///      inner updater draws), whatever the values and whatever fallback happens;
///   3. b <- b~ / Σ b~.
/// For σ = 0 nothing is drawn and nothing is changed: the decorator is the inner updater,
/// bit for bit, including the exceptions it throws (no fallback applies).
///
/// The result is never NaN; for σ > 0 two fallbacks are defined and counted (stats()):
///   (a) every entry clipped to zero (Σ b~ = 0): the belief is the inner posterior of this
///       step, without noise;
///   (b) the inner update throws zero_likelihood_error (o is impossible under the noisy
///       belief, because noise moved all mass to states inconsistent with o): the oracle
///       re-localises — it applies the same (a, o) update to the inner updater's prior
///       (inner.initial) instead, and then adds noise as usual. If that update also has zero
///       likelihood the zero_likelihood_error is rethrown and b is left unchanged. With a
///       prior of full support (e.g. the uniform b_1 = U(S)) this cannot happen for an
///       observation the model can emit after action a: the true next state is then in the
///       support of the predicted prior.
/// Other exceptions of the inner updater (bad indices, ...) propagate unchanged.
///
/// `step` is forwarded to the inner updater when it accepts one (it only labels errors).
/// No allocation per call (scratch vectors sized at construction); one oracle per thread.
/// Satisfies BeliefUpdater; it forwards every speed hook of the inner updater
/// (UpdaterSpeedHooks, belief/concepts.hpp: support tracking, the prior start), and says the
/// support path pays only at σ = 0, where it is the inner updater bit for bit (so the
/// programs' σ = 0 curves keep the exact filter's fast paths on large grids).
///
/// Over an updater that keeps its own state and does not read b (ParticleFilter: b is the
/// histogram of its particles, belief/particle_filter.hpp) the noise reaches only the output:
/// MBE's believed-state draws, Reg-MBE's entropy and a policy reading b see the perturbed
/// histogram, but the next update starts from the unperturbed particles, so the noise does not
/// accumulate as it does over the exact filter (the paper's setting). The decorator is not a
/// BeliefFeatures: a policy over the particle filter's features φ(b) sees no noise at all, so
/// the programs pair NoisyBelief with the exact filter only. It reads what its inner updater
/// reads (it declares the inner updater's action_type and observation_type, when that declares
/// them): action indices over the exact filter, the world's continuous actions and typed
/// observations over a ParticleFilter of such a world.
namespace detail {
/// The action_type and observation_type NoisyBelief declares: its inner updater's, when that
/// declares them (a particle filter of a world with continuous actions or typed observations).
template <class U>
struct noisy_action_type {};
template <class U>
    requires requires { typename U::action_type; }
struct noisy_action_type<U> {
    using action_type = typename U::action_type;
};
template <class U>
struct noisy_observation_type {};
template <class U>
    requires requires { typename U::observation_type; }
struct noisy_observation_type<U> {
    using observation_type = typename U::observation_type;
};
/// How an updater's action or observation of type T is passed: indices by value, others by
/// reference.
template <class T>
using noisy_arg_t = std::conditional_t<std::same_as<T, std::size_t>, std::size_t, const T&>;
}  // namespace detail

template <class U>  // checked by static_assert(require_belief_updater<U>()) inside
class NoisyBelief : public detail::noisy_action_type<U>, public detail::noisy_observation_type<U> {
    static_assert(require_belief_updater<U>());

public:
    using inner_type = U;
    /// The actions and observations update() reads: the inner updater's (updater_action_t,
    /// updater_observation_t), passed by value when they are indices.
    using action_arg = detail::noisy_arg_t<updater_action_t<U>>;
    using observation_arg = detail::noisy_arg_t<updater_observation_t<U>>;

    /// Wraps `inner` (copied or moved in); σ must be finite and >= 0 (config_error otherwise).
    NoisyBelief(U inner, double sigma)
        : inner_(std::move(inner)),
          sigma_(checked_sigma(sigma)),
          noisy_(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(inner_.dimension()))),
          relocalised_(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(inner_.dimension()))) {
        static_assert(keeps_updater_speed_hooks<NoisyBelief, U>,
                      "NoisyBelief must forward every speed hook of its inner updater (belief/concepts.hpp)");
    }

    [[nodiscard]] std::size_t dimension() const { return inner_.dimension(); }

    /// The inner updater's prior, without noise.
    void initial(Eigen::VectorXd& b) const { inner_.initial(b); }

    /// The prior and its support (inner SupportTrackingUpdater only).
    void initial(Eigen::VectorXd& b, std::vector<sparse_index>& support) const
        requires SupportTrackingUpdater<U>
    {
        inner_.initial(b, support);
    }

    /// update() keeping the support: at σ = 0 the inner updater's update_on_support (same
    /// bits as update); at σ > 0 the noisy update, after which every state is in the support.
    template <std::uniform_random_bit_generator G>
        requires SupportTrackingUpdater<U>
    void update_on_support(Eigen::VectorXd& b, std::vector<sparse_index>& support, std::size_t a, std::size_t o,
                           G& g) {
        if (sigma_ == 0.0) {
            inner_.update_on_support(b, support, a, o, g);
            ++stats_.updates;
            return;
        }
        update(b, a, o, g);
        support.resize(static_cast<std::size_t>(b.size()));
        for (std::size_t s = 0; s < support.size(); ++s) support[s] = static_cast<sparse_index>(s);
    }

    /// The inner updater's prior and its support (inner PriorStartUpdater only): the prior
    /// start of a rollout (optim/rollout.hpp) reads them instead of copying initial(b).
    [[nodiscard]] const Eigen::VectorXd& prior() const noexcept
        requires PriorStartUpdater<U>
    {
        return inner_.prior();
    }
    [[nodiscard]] std::span<const sparse_index> prior_support() const noexcept
        requires PriorStartUpdater<U>
    {
        return inner_.prior_support();
    }

    /// `initial(b, support); update_on_support(b, support, a, o, g);` (PriorStartUpdater):
    /// at σ = 0 the inner updater's update_from_prior (the same bits without writing the
    /// prior into b); at σ > 0 literally those two calls.
    template <std::uniform_random_bit_generator G>
        requires PriorStartUpdater<U>
    void update_from_prior(Eigen::VectorXd& b, std::vector<sparse_index>& support, std::size_t a, std::size_t o,
                           G& g) {
        if (sigma_ == 0.0) {
            inner_.update_from_prior(b, support, a, o, g);
            ++stats_.updates;
            return;
        }
        initial(b, support);
        update_on_support(b, support, a, o, g);
    }

    /// Whether the rollout should keep the support: only at σ = 0 (noise fills every entry),
    /// and only where the inner updater says it pays.
    [[nodiscard]] bool support_tracking_pays() const
        requires SupportTrackingUpdater<U>
    {
        return sigma_ == 0.0 && updater_support_tracking_pays(inner_);
    }

    /// b <- the noisy posterior after action a and observation o (see the class comment).
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, action_arg a, observation_arg o, G& g, std::size_t step = unknown_step) {
        if (sigma_ == 0.0) {
            inner_update(b, a, o, g, step);
            ++stats_.updates;
            return;
        }
        try {
            inner_update(b, a, o, g, step);
        } catch (const zero_likelihood_error&) {
            // (b) re-localise from the prior; rethrows (b unchanged) if o is impossible there too.
            inner_.initial(relocalised_);
            inner_update(relocalised_, a, o, g, step);
            b = relocalised_;
            ++stats_.relocalised;
        }
        const Eigen::Index n = b.size();
        double sum = 0.0;
        for (Eigen::Index s = 0; s < n; ++s) {
            const double raw = b[s] + sigma_ * standard_normal(g);
            const double x = std::clamp(raw, 0.0, 1.0);
            if (x != raw) ++stats_.clipped_entries;
            noisy_[s] = x;
            sum += x;
        }
        if (sum > 0.0) {
            for (Eigen::Index s = 0; s < n; ++s) b[s] = noisy_[s] / sum;
        } else {
            ++stats_.all_clipped;  // (a) keep the inner posterior already in b
        }
        ++stats_.updates;
    }

    [[nodiscard]] double sigma() const noexcept { return sigma_; }
    [[nodiscard]] const U& inner() const noexcept { return inner_; }
    [[nodiscard]] U& inner() noexcept { return inner_; }

    [[nodiscard]] const NoisyBeliefStats& stats() const noexcept { return stats_; }
    /// Number of fallback events, (a) and (b), since construction or reset_stats().
    [[nodiscard]] std::size_t fallbacks() const noexcept { return stats_.fallbacks(); }
    void reset_stats() noexcept { stats_ = {}; }

private:
    static double checked_sigma(double sigma) {
        if (!std::isfinite(sigma) || sigma < 0.0)
            throw config_error(detail::message("NoisyBelief: sigma (the standard deviation of the belief noise) is ",
                                               sigma, "; it must be finite and >= 0"));
        return sigma;
    }

    template <class G>
    void inner_update(Eigen::VectorXd& b, action_arg a, observation_arg o, G& g, std::size_t step) {
        if constexpr (requires { inner_.update(b, a, o, g, step); }) {
            inner_.update(b, a, o, g, step);
        } else {
            inner_.update(b, a, o, g);
        }
    }

    U inner_;
    double sigma_;
    Eigen::VectorXd noisy_;        // scratch: clipped noisy entries before renormalisation
    Eigen::VectorXd relocalised_;  // scratch: the prior updated by (a, o) in fallback (b)
    NoisyBeliefStats stats_;
};

/// `auto u = make_noisy_belief(BayesFilter(model), sigma);`, the same as
/// `NoisyBelief u{BayesFilter(model), sigma};` (with braces: the parenthesised spelling with
/// a deduced class template does not compile with GCC).
template <class U>
[[nodiscard]] NoisyBelief<std::remove_cvref_t<U>> make_noisy_belief(U&& inner, double sigma) {
    return NoisyBelief<std::remove_cvref_t<U>>(std::forward<U>(inner), sigma);
}

}  // namespace maxent
