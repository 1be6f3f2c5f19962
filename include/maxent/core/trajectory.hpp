// maxent/core/trajectory.hpp — one episode as the feedbacks see it, and which steps count.
//
// Paper, Section 2.1 "Distribution over trajectories": τ = τ_S ⊕ τ_A ⊕ τ_O ⊕ τ_B, with the
// empirical distribution d(τ_S) of the states of one trajectory. A `Trajectory` records, for
// each of its steps k = 0..K (K = number of actions taken), the true state s_{k+1}, the
// observation o_{k+1}, the entropy H(b_{k+1}) of the belief and (when a feedback needs it)
// one believed state s̃_{k+1} ~ b_{k+1}; and the actions a_1..a_K (indices, or the
// coordinates of a continuous-action world's actions, core/actions.hpp).
//
// True states are the WORLD's, recorded as bins (`num_states`: an explicit model's indices or
// a simulator's binning); believed states and beliefs are the AGENT's, over its own
// `belief_dimension` states (docs/architecture.md, "the world and the agent"). Which steps
// enter the empirical distributions is the `StateCounting` convention, per quantity (steps
// 1-based as in the paper; entry k of a per-step vector is step k + 1):
//
//   quantity (who reads it)                      paper (T - 1 actions)  authors (T actions)
//   true states s_t (MSE, the plotted metric)    s_1 .. s_T             s_2 .. s_{T+1}
//   observations o_t (MOE)                       o_1 .. o_T             o_1 .. o_T
//   believed states s̃_t ~ b_t (MBE, Reg-MBE)     s̃_1 .. s̃_T             s̃_1 .. s̃_T
//   belief entropies H(b_t) (Reg-MBE, Σ H(b_t))  H(b_1) .. H(b_T)       H(b_1) .. H(b_T)
//
// `paper` (the default) is Section 2.1, everything aligned; `authors` is the authors' code:
// true states reached after each of T actions, observations and beliefs at acting time
// (docs/reference.md, "Counting conventions"). Either way exactly T entries of each quantity
// count: `counted(per_step, quantity)` returns them; states and observations as points too.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"

namespace maxent {

enum class StateCounting {
    paper,   ///< T - 1 actions; count s_1 .. s_T, o_1 .. o_T, s̃_1 .. s̃_T, H(b_1) .. H(b_T)
    authors  ///< T actions; count s_2 .. s_{T+1}, but o_1 .. o_T, s̃_1 .. s̃_T, H(b_1) .. H(b_T)
};

/// The per-step quantities a feedback may count (see the table above).
enum class Counted {
    states,            ///< true states (as bins)
    observations,      ///< observations
    believed_states,   ///< believed states s̃_t ~ b_t
    belief_entropies   ///< H(b_t)
};

/// What a rollout must record beyond states, observations and actions (which it always
/// records). Feedbacks and trainers ask for what they need; the rest is skipped.
struct RolloutNeeds {
    bool belief_entropy = false;   ///< H(b_t) for every step
    bool believed_states = false;  ///< one s̃_t ~ b_t for every step
    bool beliefs = false;          ///< the full belief vectors (L x steps), memory L*T
    bool state_points = false;     ///< true states as points (the world's state_point map)
    bool observation_points = false;  ///< observations as points (typed observations)

    friend constexpr RolloutNeeds operator|(RolloutNeeds a, RolloutNeeds b) noexcept {
        return {a.belief_entropy || b.belief_entropy, a.believed_states || b.believed_states,
                a.beliefs || b.beliefs, a.state_points || b.state_points,
                a.observation_points || b.observation_points};
    }
};

struct Trajectory {
    StateCounting counting = StateCounting::paper;
    std::size_t horizon = 0;                 ///< T: the number of counted steps
    std::size_t num_states = 0;              ///< true-state bins: |S| of an explicit world, else its binning's
    std::size_t num_observations = 0;        ///< |O| of the world
    std::size_t belief_dimension = 0;        ///< the agent's latent states (its updater's dimension())
    std::vector<std::size_t> states;         ///< s_1 .. s_{K+1}, as bins
    std::vector<std::size_t> observations;   ///< o_1 .. o_{K+1}
    std::vector<std::size_t> actions;        ///< a_1 .. a_K (index actions; empty for continuous ones)
    std::size_t action_dimension = 0;        ///< d of a continuous-action world's actions (0: index actions)
    std::vector<double> action_points;       ///< a_1 .. a_K of a continuous-action world, row-major, d per step
    std::vector<double> belief_entropy;      ///< H(b_1) .. H(b_{K+1}) (if recorded)
    std::vector<std::size_t> believed;       ///< s̃_1 .. s̃_{K+1} in the agent's space (if recorded)
    Eigen::MatrixXd beliefs;                 ///< column k = b_{k+1}, belief_dimension rows (if recorded)
    std::size_t state_point_dimension = 0;   ///< d of the true states' points (0: not recorded)
    std::vector<double> state_points;        ///< s_1 .. s_{K+1} as points, row-major, d per step (if recorded)
    std::size_t observation_point_dimension = 0;  ///< d of the observations' points (0: not recorded)
    std::vector<double> observation_points;  ///< o_1 .. o_{K+1} as points, row-major (if recorded)

    /// Entry of the first counted step of a quantity: 1 for true states under the authors'
    /// convention, 0 otherwise.
    [[nodiscard]] std::size_t counted_begin(Counted quantity) const noexcept {
        return counting == StateCounting::authors && quantity == Counted::states ? 1 : 0;
    }
    /// The T counted entries of a per-step sequence holding `quantity` (e.g.
    /// t.counted(t.observations, Counted::observations)). Throws config_error naming both
    /// sizes when the sequence is too short (the rollout did not record the quantity).
    template <class T>
    [[nodiscard]] std::span<const T> counted(const std::vector<T>& per_step, Counted quantity) const {
        const std::size_t first = counted_begin(quantity);
        if (per_step.size() < first + horizon) throw_too_short(per_step.size(), first + horizon);
        return std::span<const T>(per_step).subspan(first, horizon);
    }
    /// The counted true states, observations, believed states and belief entropies.
    [[nodiscard]] std::span<const std::size_t> counted_states() const { return counted(states, Counted::states); }
    [[nodiscard]] std::span<const std::size_t> counted_observations() const {
        return counted(observations, Counted::observations);
    }
    [[nodiscard]] std::span<const std::size_t> counted_believed() const {
        return counted(believed, Counted::believed_states);
    }
    [[nodiscard]] std::span<const double> counted_belief_entropies() const {
        return counted(belief_entropy, Counted::belief_entropies);
    }
    /// The counted true states / observations as points: T rows of d coordinates, row-major
    /// (config_error when they were not recorded: RolloutNeeds::state_points, observation_points).
    [[nodiscard]] std::span<const double> counted_state_points() const {
        return counted_points(state_points, state_point_dimension, Counted::states);
    }
    [[nodiscard]] std::span<const double> counted_observation_points() const {
        return counted_points(observation_points, observation_point_dimension, Counted::observations);
    }
    /// Number of actions a rollout with this convention takes for horizon T.
    [[nodiscard]] static constexpr std::size_t actions_for(StateCounting c, std::size_t T) noexcept {
        return c == StateCounting::paper ? T - 1 : T;
    }

private:
    [[noreturn]] static void throw_too_short(std::size_t have, std::size_t need);
    [[nodiscard]] std::span<const double> counted_points(const std::vector<double>& points, std::size_t d,
                                                         Counted quantity) const {
        const std::size_t first = counted_begin(quantity);
        if (d == 0 || points.size() < (first + horizon) * d) throw_points_missing(points.size(), d, first + horizon);
        return std::span<const double>(points).subspan(first * d, horizon * d);
    }
    [[noreturn]] static void throw_points_missing(std::size_t have, std::size_t d, std::size_t steps);
};

inline void Trajectory::throw_points_missing(std::size_t have, std::size_t d, std::size_t steps) {
    throw config_error(detail::message("Trajectory: ", have, " point coordinates of dimension ", d, " recorded, ",
                                       steps, " steps are counted (record them: RolloutNeeds::state_points or "
                                       "observation_points, on a world with state or observation points)"));
}

inline void Trajectory::throw_too_short(std::size_t have, std::size_t need) {
    throw config_error(detail::message("Trajectory: a per-step sequence has ", have, " entries, ", need,
                                       " are counted (record it: RolloutNeeds)"));
}

}  // namespace maxent
