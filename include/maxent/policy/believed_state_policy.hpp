// maxent/policy/believed_state_policy.hpp — the policy Markovian over believed states (class S̃).
//
// Paper, Section 4 and Appendix D (Figure 4, class S̃; docs/reference.md, "Policy classes"):
// θ ∈ R^{S x A}, initialised to zero (the uniform policy). At every step the agent draws a
// believed ("hallucinated") state s̃_t ~ b_t and acts as if it were the true state:
//     s̃ ~ b,   a ~ softmax(θ[s̃]).
//
// Two scores, on purpose:
//  * sample() adds the CONDITIONAL score ∇_θ log softmax(θ[s̃])(a) = e_s̃ (e_a - softmax(θ[s̃]))ᵀ
//    (only row s̃ is non-zero). s̃ is part of the sampled trajectory — it is drawn with the
//    caller's generator and does not depend on θ — so this is the score of what was drawn,
//    and the REINFORCE estimator built from it is unbiased (as the Policy concept requires).
//  * probabilities() and log_gradient() describe the MARGINAL over s̃,
//        π(a | b) = Σ_s b(s) softmax(θ_s)(a)    (the same mixture as BeliefMixturePolicy),
//    with ∇_{θ_s} log π(a | b) = b(s) π_s(a) (e_a - π_s) / π(a | b); this is what exact
//    enumeration of trajectories (which does not enumerate s̃) needs.
// The two differ for a given draw; the marginal score is the conditional one's expectation
// over s̃ given (b, a) (Σ_s P(s̃ = s | a, b) e_s (e_a - π_s)ᵀ), which costs O(S·A) per step.
// Row-sparse scores (sample_rows, policy/row_score.hpp): the conditional score touches one
// row per step, so a trajectory's score costs O(K · A) on the trainer's row path.
#pragma once

#include <cstddef>
#include <random>
#include <span>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/support.hpp"
#include "maxent/policy/belief_mixture.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/parameter_table.hpp"

namespace maxent {

/// s̃ ~ b, a ~ softmax(θ[s̃]); see the header comment. Satisfies DifferentiablePolicy.
class BelievedStatePolicy : public ParameterTable {
public:
    /// θ never changes shape: the trainer may take the dense or the row-sparse path.
    static constexpr bool fixed_parameters = true;

    /// θ = 0 (the uniform policy), S x A.
    BelievedStatePolicy(std::size_t num_states, std::size_t num_actions)
        : ParameterTable(name, ParameterRows::belief_states, num_states, num_actions),
          logits_(static_cast<Eigen::Index>(num_actions)),
          probs_(static_cast<Eigen::Index>(num_actions)) {}

    [[nodiscard]] std::size_t num_states() const noexcept { return num_rows(); }

    /// out <- the marginal Σ_s b(s) softmax(θ_s) (s̃ integrated out).
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const {
        detail::check_mixture_belief(name, theta_, v);
        detail::mixture_probabilities(name, theta_, v, out);
    }

    /// Draws s̃ ~ b (first use of g), then a ~ softmax(θ[s̃]) (second use), and adds the
    /// CONDITIONAL score e_a - softmax(θ[s̃]) to row s̃ of `score`. Allocates nothing.
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        detail::check_mixture_belief(name, theta_, v);
        check_buffer(score);
        const std::size_t drawn =
            v.support_known ? sample_categorical_on_support(v.support, v.belief, g) : sample_categorical(v.belief, g);
        const auto believed = static_cast<Eigen::Index>(drawn);
        detail::softmax_row(name, theta_, believed, logits_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        score.row(believed) -= probs_.transpose();
        score(believed, static_cast<Eigen::Index>(a)) += 1.0;
        return a;
    }

    /// As sample, with the conditional score added to row s̃ of a RowScore (RowSparsePolicy).
    template <std::uniform_random_bit_generator G>
    std::size_t sample_rows(const AgentView& v, G& g, RowScore& score) {
        detail::check_mixture_belief(name, theta_, v);
        check_row_score(score);
        const std::size_t drawn =
            v.support_known ? sample_categorical_on_support(v.support, v.belief, g) : sample_categorical(v.belief, g);
        const auto believed = static_cast<Eigen::Index>(drawn);
        detail::softmax_row(name, theta_, believed, logits_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        const std::span<double> row = score.touch(believed);
        for (Eigen::Index c = 0; c < theta_.cols(); ++c) row[static_cast<std::size_t>(c)] -= probs_[c];
        row[a] += 1.0;
        return a;
    }

    /// grad += ∇_θ log of the MARGINAL π(a | b) = Σ_s b(s) softmax(θ_s)(a).
    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        detail::check_mixture_belief(name, theta_, v);
        check_action(a);
        check_buffer(grad);
        detail::mixture_log_gradient(name, theta_, v, a, grad);
    }

private:
    static constexpr const char* name = "BelievedStatePolicy";

    Eigen::VectorXd logits_;
    Eigen::VectorXd probs_;
};

}  // namespace maxent
