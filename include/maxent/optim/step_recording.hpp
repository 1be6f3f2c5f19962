// maxent/optim/step_recording.hpp — a policy view that keeps each step's score apart, for
// estimators that opt into per-step information (core/step_scores.hpp).
//
// The Sampler adds ∇_θ log π(a_t | i_t) of every step into one score matrix. Wrapped in a
// StepRecordingView, the policy adds step t's term into its own zeroed matrix steps[t]
// instead (same draws from the generator, same action), and the view adds that matrix to
// the trajectory's score. The total is then the sum of the K step terms in order of t.
// Only the trainer and estimator_quality use it, and only for estimators that ask.
#pragma once

#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/step_scores.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

template <class P>
class StepRecordingView : public PolicyView<P> {
public:
    /// `steps` holds one matrix per action of the episode, each of the score's shape.
    StepRecordingView(P& policy, std::span<Eigen::MatrixXd> steps) : PolicyView<P>(policy), steps_(steps) {
        static_assert(keeps_policy_speed_hooks<StepRecordingView, P>);
    }

    template <std::uniform_random_bit_generator G>
        requires Policy<P>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        if (v.step >= steps_.size())
            throw config_error(detail::message("StepRecordingView: step ", v.step, " but room for ", steps_.size(),
                                               " step scores"));
        Eigen::MatrixXd& step = steps_[v.step];
        step.setZero(score.rows(), score.cols());
        const std::size_t a = this->policy().sample(v, g, step);
        score += step;
        return a;
    }
    /// The same for a continuous-action policy (it writes the action's coordinates).
    template <std::uniform_random_bit_generator G>
        requires ContinuousPolicy<P>
    void sample(const AgentView& v, G& g, Eigen::MatrixXd& score, std::span<double> action) {
        if (v.step >= steps_.size())
            throw config_error(detail::message("StepRecordingView: step ", v.step, " but room for ", steps_.size(),
                                               " step scores"));
        Eigen::MatrixXd& step = steps_[v.step];
        step.setZero(score.rows(), score.cols());
        this->policy().sample(v, g, step, action);
        score += step;
    }

private:
    std::span<Eigen::MatrixXd> steps_;
};

/// The trainer's per-step path: N · K step matrices of θ's shape for a batch of N
/// trajectories of K actions, view(policy, n) records trajectory n's into its K, and
/// scores(k) hands them to the estimator as batch k.
class StepScoreRecorder {
public:
    StepScoreRecorder() = default;
    StepScoreRecorder(std::size_t batch, std::size_t steps, const Eigen::MatrixXd& theta)
        : steps_(steps), scores_(batch * steps, Eigen::MatrixXd::Zero(theta.rows(), theta.cols())) {}

    template <class P>
    [[nodiscard]] StepRecordingView<P> view(P& policy, std::size_t n) {
        return StepRecordingView<P>(policy, std::span<Eigen::MatrixXd>(scores_).subspan(n * steps_, steps_));
    }
    [[nodiscard]] StepScores scores(std::size_t k) const noexcept { return StepScores{k, steps_, scores_}; }

private:
    std::size_t steps_ = 0;
    std::vector<Eigen::MatrixXd> scores_;  // trajectory-major
};

}  // namespace maxent
