// maxent/core/step_scores.hpp — per-step information handed to gradient estimators that
// opt in to it (core/optional_members.hpp: estimator_uses_steps; optim/estimators.hpp).
//
// A trajectory's score is g_n = Σ_t ∇_θ log π(a_t | i_t). Estimators that only need g_n see
// the N totals; an estimator declaring `estimate(f, s, steps, out)` also receives each
// term of that sum, one matrix per action, and the index of the batch (the trainer's
// iteration k, estimator_quality's repetition r), so that baselines may depend on the
// time step or follow a schedule. The caller pays for these buffers (N · K matrices of
// the parameters' shape) only when the estimator asks for them.
#pragma once

#include <cstddef>
#include <span>

#include <Eigen/Core>

namespace maxent {

/// The per-step scores of one batch. Entry n·K + t of `scores` is ∇_θ log π(a_{t+1} | i_{t+1})
/// of trajectory n (0-based t < K), exactly the term the rollout added to that trajectory's
/// score; with per-step recording the total score is the sum of these K terms added in
/// order of t, so Σ_t step(n, t) == s[n] bit for bit.
struct StepScores {
    std::size_t iteration = 0;                ///< the batch's index: iteration k, or repetition r
    std::size_t steps = 0;                    ///< K, the actions (scores) per trajectory
    std::span<const Eigen::MatrixXd> scores;  ///< N · K matrices, trajectory-major

    /// The score of step t of trajectory n.
    [[nodiscard]] const Eigen::MatrixXd& step(std::size_t n, std::size_t t) const noexcept {
        return scores[n * steps + t];
    }
    /// N, the number of trajectories.
    [[nodiscard]] std::size_t trajectories() const noexcept { return steps == 0 ? 0 : scores.size() / steps; }
};

}  // namespace maxent
