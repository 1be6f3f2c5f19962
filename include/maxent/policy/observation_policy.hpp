// maxent/policy/observation_policy.hpp — the policy Markovian over observations (class O).
//
// Paper, Section 4 and Appendix D (Figure 4, class O; docs/reference.md, "Policy classes"):
// θ ∈ R^{O x A}, initialised to zero (the uniform policy), acting on the current
// observation only:
//     π(· | o) = softmax(θ[o])
//     ∇_θ log π(a | o) = e_o (e_a - π(· | o))ᵀ       (only row o is non-zero).
// It never reads the belief (`needs_belief = false`), so a rollout whose feedback does not
// use beliefs either (MSE, MOE) can skip belief updates.
#pragma once

#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/parameter_table.hpp"

namespace maxent {

/// π(· | o) = softmax(θ[o]); see the header comment. Satisfies DifferentiablePolicy.
class ObservationPolicy : public ParameterTable {
public:
    /// The policy ignores AgentView::belief.
    static constexpr bool needs_belief = false;

    /// θ = 0 (the uniform policy), O x A.
    ObservationPolicy(std::size_t num_observations, std::size_t num_actions)
        : ParameterTable(name, ParameterRows::observations, num_observations, num_actions),
          logits_(static_cast<Eigen::Index>(num_actions)),
          probs_(static_cast<Eigen::Index>(num_actions)) {}

    [[nodiscard]] std::size_t num_observations() const noexcept { return num_rows(); }

    /// out <- softmax(θ[o]).
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const {
        const Eigen::Index o = observation_row(v);
        Eigen::VectorXd logits = theta_.row(o).transpose();
        row_softmax(o, logits, out);
    }

    /// Draws a ~ softmax(θ[o]) and adds e_a - softmax(θ[o]) to row o of `score`.
    /// Allocates nothing.
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        const Eigen::Index o = observation_row(v);
        check_buffer(score);
        logits_ = theta_.row(o).transpose();
        row_softmax(o, logits_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        score.row(o) -= probs_.transpose();
        score(o, static_cast<Eigen::Index>(a)) += 1.0;
        return a;
    }

    /// grad += ∇_θ log π(a | o).
    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        const Eigen::Index o = observation_row(v);
        check_action(a);
        check_buffer(grad);
        Eigen::VectorXd p;
        probabilities(v, p);
        grad.row(o) -= p.transpose();
        grad(o, static_cast<Eigen::Index>(a)) += 1.0;
    }

private:
    static constexpr const char* name = "ObservationPolicy";

    [[nodiscard]] Eigen::Index observation_row(const AgentView& v) const {
        if (v.observation >= num_observations())
            throw config_error(detail::message(name, ": observation ", v.observation, " is outside [0, ",
                                               num_observations(), ")"));
        return static_cast<Eigen::Index>(v.observation);
    }

    static void row_softmax(Eigen::Index o, const Eigen::VectorXd& logits, Eigen::VectorXd& out) {
        try {
            softmax_into(logits, out);
        } catch (const config_error& e) {
            throw config_error(detail::message(name, ": parameter row (observation) ", o, ": ", e.what()));
        }
    }

    Eigen::VectorXd logits_;
    Eigen::VectorXd probs_;
};

}  // namespace maxent
