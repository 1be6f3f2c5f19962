// maxent/objective/proxy_gaps.hpp — how far the proxies can be from the true objective:
// the per-trajectory bounds of the paper's Theorem 5.3 (Proxy Gaps, Figure 1) and a Monte
// Carlo estimate of their ingredients for the MBE proxy.
//
// Paper, Section 5, "Objectives Gaps and Hallucinatory Effect". Fix a trajectory over true
// states τ_S with entropy H_S = H(d(τ_S)). A proxy draws trajectories over a finite set
// (believed states for MBE, observations for MOE) whose entropy H̃ lies in [0, H_max]
// (H_max = log S for MBE, log O for MOE). Write J̃ = E[H̃ | τ_S] for the proxy's conditional
// value and p = P(H̃ >= H_S | τ_S) for the hallucination probability (for MBE the paper's
// p̄_S(τ_S), averaged over the belief sequences). Splitting E[H̃] on the event H̃ >= H_S:
//   J̃ >= p H_S                   (H̃ >= 0 off the event)    =>  H_S <= J̃ / p
//   J̃ <= p H_max + (1 - p) H_S   (H̃ <= H_max on it)        =>  H_S >= (J̃ - p H_max) / (1 - p)
// These are the theorem's bounds for one τ_S; the theorem states their expectations over
// τ_S. `proxy_gap_bounds` returns the interval, clipped to [0, log S] (where H_S lies
// anyway); p = 0 gives no upper bound and p = 1 no lower bound (the clip then decides).
// The inequalities hold for any distribution of H̃, including the empirical distribution of
// M draws, which `mbe_hallucination` estimates from one recorded trajectory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/objective/feedbacks.hpp"

namespace maxent {

/// An interval [lower, upper] of entropies (nats).
struct EntropyInterval {
    double lower = 0.0;
    double upper = 0.0;
};

/// Theorem 5.3 for one trajectory over true states: the interval that must contain
/// H(d(τ_S)), given
///  * `proxy_value`  J̃ = E[H̃ | τ_S], the proxy's expected entropy given τ_S, in [0, proxy_max];
///  * `hallucination` p = P(H̃ >= H(d(τ_S)) | τ_S), in [0, 1];
///  * `proxy_max`    the largest entropy a proxy trajectory can have (log S for MBE, log O
///                   for MOE, as in the paper; log min(S, T) is also valid and tighter);
///  * `state_max`    the largest true-state entropy, log S: the result is clipped to [0, state_max].
/// lower = max(0, (J̃ - p proxy_max) / (1 - p)) (0 when p = 1), upper = min(state_max, J̃ / p)
/// (state_max when p = 0). Throws config_error naming the value for a non-finite input, p
/// outside [0, 1], negative maxima, J̃ outside [0, proxy_max] by more than 1e-12, or inputs
/// no trajectory can have (lower > upper).
[[nodiscard]] inline EntropyInterval proxy_gap_bounds(double proxy_value, double hallucination, double proxy_max,
                                                      double state_max) {
    if (!std::isfinite(proxy_max) || proxy_max < 0.0)
        throw config_error(detail::message("proxy_gap_bounds: proxy_max must be finite and >= 0, got ", proxy_max));
    if (!std::isfinite(state_max) || state_max < 0.0)
        throw config_error(detail::message("proxy_gap_bounds: state_max must be finite and >= 0, got ", state_max));
    if (!(hallucination >= 0.0 && hallucination <= 1.0))
        throw config_error(detail::message("proxy_gap_bounds: the hallucination probability must be in [0, 1], got ",
                                           hallucination));
    constexpr double slack = 1e-12;
    if (!std::isfinite(proxy_value) || proxy_value < -slack || proxy_value > proxy_max + slack)
        throw config_error(detail::message("proxy_gap_bounds: the proxy value must be in [0, proxy_max = ", proxy_max,
                                           "], got ", proxy_value));
    const double p = hallucination;
    EntropyInterval out;
    out.upper = p > 0.0 ? std::min(state_max, proxy_value / p) : state_max;
    out.lower = p < 1.0 ? std::max(0.0, (proxy_value - p * proxy_max) / (1.0 - p)) : 0.0;
    // For the true J̃ and p of some τ_S, lower <= H_S <= upper; an empty interval means the
    // three numbers cannot come from one trajectory.
    if (out.lower > out.upper + slack)
        throw config_error(detail::message("proxy_gap_bounds: no true-state entropy fits proxy value ", proxy_value,
                                           " with hallucination probability ", hallucination, ", proxy_max ",
                                           proxy_max, " and state_max ", state_max, " (lower bound ", out.lower,
                                           " > upper bound ", out.upper, ")"));
    return out;
}

/// A Monte Carlo estimate, for one recorded trajectory, of the MBE proxy's ingredients of
/// Theorem 5.3.
struct MbeHallucination {
    double true_entropy = 0.0;    ///< H_S = H(d(τ_S)) of the recorded trajectory
    double proxy_value = 0.0;     ///< mean of H̃ over the draws: the estimate of J̃(π | τ_S)
    double hallucination = 0.0;   ///< fraction of draws with H̃ >= H_S - tie_tolerance: the estimate of p
    std::size_t draws = 0;        ///< M
};

/// Draws M believed-state sequences s̃_t ~ b_t (independently per counted step, from the
/// beliefs the trajectory recorded: RolloutNeeds::beliefs) and returns H_S, the mean of
/// H̃ = H(d(τ_S̃)) and the fraction of draws with H̃ >= H_S - tie_tolerance (entropies of
/// equal count patterns can differ in the last bit, hence the tolerance, 1e-12 by default).
/// For a trajectory from a rollout with exact beliefs this conditions on its belief
/// sequence (one τ_B); averaging over rollouts with the same τ_S gives the paper's p̄_S.
/// The bounds of proxy_gap_bounds hold exactly for these empirical values (up to the
/// tolerance). Throws config_error if the trajectory has no beliefs or M = 0.
template <std::uniform_random_bit_generator G>
[[nodiscard]] MbeHallucination mbe_hallucination(const Trajectory& t, std::size_t draws, G& g,
                                                 double tie_tolerance = 1e-12) {
    if (draws == 0) throw config_error("mbe_hallucination: draws (M) must be >= 1, got 0");
    const std::size_t first = t.counted_begin(Counted::believed_states);
    const auto needed = static_cast<Eigen::Index>(first + t.horizon);
    if (t.belief_dimension != t.num_states)
        throw config_error(detail::message("mbe_hallucination: the beliefs have ", t.belief_dimension,
                                           " states and the world ", t.num_states,
                                           "; Theorem 5.3 compares beliefs over the true states"));
    if (t.beliefs.cols() < needed || t.beliefs.rows() != static_cast<Eigen::Index>(t.num_states))
        throw config_error(detail::message("mbe_hallucination: the trajectory recorded ", t.beliefs.cols(),
                                           " belief columns of ", t.beliefs.rows(), " states, it needs ", needed,
                                           " of ", t.num_states, " (roll out with RolloutNeeds::beliefs)"));
    EmpiricalCounter counter(t.num_states);
    MbeHallucination out;
    out.draws = draws;
    out.true_entropy = true_state_entropy(t, counter);
    std::size_t above = 0;
    double sum = 0.0;
    for (std::size_t m = 0; m < draws; ++m) {
        counter.clear();
        for (std::size_t k = 0; k < t.horizon; ++k)
            counter.add(sample_categorical(t.beliefs.col(static_cast<Eigen::Index>(first + k)), g));
        const double h = counter.entropy();
        sum += h;
        if (h >= out.true_entropy - tie_tolerance) ++above;
    }
    out.proxy_value = sum / static_cast<double>(draws);
    out.hallucination = static_cast<double>(above) / static_cast<double>(draws);
    return out;
}

}  // namespace maxent
