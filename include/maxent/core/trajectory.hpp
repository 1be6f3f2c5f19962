// maxent/core/trajectory.hpp — one episode as the feedbacks see it, and which steps count.
//
// Paper, Section 2.1 "Distribution over trajectories": τ = τ_S ⊕ τ_A ⊕ τ_O ⊕ τ_B, with the
// empirical distribution d(τ_S) of the states of one trajectory. A `Trajectory` records, for
// each of its steps k = 0..K (K = number of actions taken), the true state s_{k+1}, the
// observation o_{k+1}, the entropy H(b_{k+1}) of the belief and (when a feedback needs it)
// one believed state s̃_{k+1} ~ b_{k+1}; and the actions a_1..a_K.
//
// Two spaces meet here (docs/architecture.md, "the world and the agent"): true states are
// the WORLD's, recorded as the bin each falls in (the state's index for an explicit model,
// the user's binning for a simulator; `num_states` bins); believed states and beliefs are the
// AGENT's, over its belief model's own `belief_dimension` latent states. MSE counts the
// former, MBE and Reg-MBE the latter, MOE the world's observations. Which steps enter the
// empirical distributions is the `StateCounting` convention:
//   * paper   (default): T - 1 actions, steps s_1 .. s_T are counted (paper, Section 2.1);
//   * authors: T actions, steps s_2 .. s_{T+1} are counted (the states reached after each
//              of the T actions, as in the authors' published code; REFERENCE.md).
// Either way exactly T steps are counted; `counted_begin()` is the first of them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Core>

namespace maxent {

enum class StateCounting {
    paper,   ///< count s_1 .. s_T (T - 1 actions)
    authors  ///< count s_2 .. s_{T+1} (T actions)
};

/// What a rollout must record beyond states, observations and actions (which it always
/// records). Feedbacks and trainers ask for what they need; the rest is skipped.
struct RolloutNeeds {
    bool belief_entropy = false;   ///< H(b_t) for every step
    bool believed_states = false;  ///< one s̃_t ~ b_t for every step
    bool beliefs = false;          ///< the full belief vectors (L x steps), memory L*T

    friend constexpr RolloutNeeds operator|(RolloutNeeds a, RolloutNeeds b) noexcept {
        return {a.belief_entropy || b.belief_entropy, a.believed_states || b.believed_states,
                a.beliefs || b.beliefs};
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
    std::vector<std::size_t> actions;        ///< a_1 .. a_K
    std::vector<double> belief_entropy;      ///< H(b_1) .. H(b_{K+1}) (if recorded)
    std::vector<std::size_t> believed;       ///< s̃_1 .. s̃_{K+1} in the agent's space (if recorded)
    Eigen::MatrixXd beliefs;                 ///< column k = b_{k+1}, belief_dimension rows (if recorded)

    /// Index (into states, observations, ...) of the first counted step.
    [[nodiscard]] std::size_t counted_begin() const noexcept { return counting == StateCounting::paper ? 0 : 1; }
    /// The T counted entries of a per-step sequence.
    template <class T>
    [[nodiscard]] std::span<const T> counted(const std::vector<T>& per_step) const {
        return std::span<const T>(per_step).subspan(counted_begin(), horizon);
    }
    /// Number of actions a rollout with this convention takes for horizon T.
    [[nodiscard]] static constexpr std::size_t actions_for(StateCounting c, std::size_t T) noexcept {
        return c == StateCounting::paper ? T - 1 : T;
    }
};

}  // namespace maxent
