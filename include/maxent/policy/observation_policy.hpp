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
#include "maxent/policy/softmax.hpp"

namespace maxent {

/// π(· | o) = softmax(θ[o]); see the header comment. Satisfies DifferentiablePolicy.
class ObservationPolicy {
public:
    /// The policy ignores AgentView::belief.
    static constexpr bool needs_belief = false;

    /// θ = 0 (the uniform policy), O x A.
    ObservationPolicy(std::size_t num_observations, std::size_t num_actions)
        : theta_(Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(num_observations),
                                       static_cast<Eigen::Index>(num_actions))),
          logits_(static_cast<Eigen::Index>(num_actions)),
          probs_(static_cast<Eigen::Index>(num_actions)) {
        if (num_observations == 0 || num_actions == 0)
            throw config_error(detail::message(name, ": needs at least one observation and one action, got ",
                                               num_observations, " x ", num_actions));
    }

    [[nodiscard]] std::size_t num_actions() const noexcept { return static_cast<std::size_t>(theta_.cols()); }
    [[nodiscard]] std::size_t num_observations() const noexcept { return static_cast<std::size_t>(theta_.rows()); }
    [[nodiscard]] Eigen::MatrixXd& parameters() noexcept { return theta_; }
    [[nodiscard]] const Eigen::MatrixXd& parameters() const noexcept { return theta_; }

    void check_dimensions(const AgentDimensions& d) const {
        if (d.observations != num_observations() || d.actions != num_actions())
            throw config_error(detail::message(name, ": parameters are ", num_observations(), " x ", num_actions(),
                                               " (observations x actions) but the world has ", d.observations,
                                               " observations and ", d.actions, " actions"));
    }

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
        if (a >= num_actions())
            throw config_error(detail::message(name, "::log_gradient: action ", a, " is outside [0, ", num_actions(),
                                               ")"));
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

    void check_buffer(const Eigen::MatrixXd& m) const {
        if (m.rows() != theta_.rows() || m.cols() != theta_.cols())
            throw config_error(detail::message(name, ": score buffer is ", m.rows(), " x ", m.cols(), ", expected ",
                                               theta_.rows(), " x ", theta_.cols(), " (the shape of the parameters)"));
    }

    static void row_softmax(Eigen::Index o, const Eigen::VectorXd& logits, Eigen::VectorXd& out) {
        try {
            softmax_into(logits, out);
        } catch (const config_error& e) {
            throw config_error(detail::message(name, ": parameter row (observation) ", o, ": ", e.what()));
        }
    }

    Eigen::MatrixXd theta_;
    Eigen::VectorXd logits_;
    Eigen::VectorXd probs_;
};

}  // namespace maxent
