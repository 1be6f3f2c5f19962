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

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

template <class P>
class StepRecordingView {
    static_assert(require_policy<P>());

public:
    static constexpr bool needs_belief = policy_needs_belief<P>;

    /// `steps` holds one matrix per action of the episode, each of the score's shape.
    StepRecordingView(P& policy, std::span<Eigen::MatrixXd> steps) : policy_(&policy), steps_(steps) {}

    [[nodiscard]] std::size_t num_actions() const { return policy_->num_actions(); }
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const { policy_->probabilities(v, out); }
    void check_dimensions(const AgentDimensions& d) const { policy_->check_dimensions(d); }
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        if (v.step >= steps_.size())
            throw config_error(detail::message("StepRecordingView: step ", v.step, " but room for ", steps_.size(),
                                               " step scores"));
        Eigen::MatrixXd& step = steps_[v.step];
        step.setZero(score.rows(), score.cols());
        const std::size_t a = policy_->sample(v, g, step);
        score += step;
        return a;
    }

private:
    P* policy_;
    std::span<Eigen::MatrixXd> steps_;
};

}  // namespace maxent
