// maxent/policy/parameter_table.hpp — the table θ ∈ R^{rows x A} of the tabular softmax
// policies (paper, Section 4 and Appendix D), and what they all do with it: the stable
// softmax of their logits (softmax_into subtracts the maximum before exponentiating, so
// logits of any finite magnitude give a finite distribution; non-finite logits are an error).
//
// BeliefAveragedPolicy, BeliefMixturePolicy, BelievedStatePolicy, ObservationPolicy and
// ObservationFeaturePolicy each derive from ParameterTable and add only their π and score. It holds θ, initialised to zero
// (the uniform policy), and says once: the shape (num_actions, parameters), the check of
// the agent's dimensions against it (Policy's check_dimensions), and the checks of what a
// score is added to (a parameter-shaped buffer, an action, a RowScore), each config_error
// naming the policy and both values. What the rows are indexed by (ParameterRows: belief
// states, belief features or states, observations, features of observations) decides which dimension
// check_dimensions compares and the words of the messages.
#pragma once

#include <cmath>
#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

/// out <- softmax(logits). Throws config_error if a logit is not finite (e.g. parameters
/// that diverged to inf/NaN), naming the entry.
inline void softmax_into(const Eigen::Ref<const Eigen::VectorXd>& logits, Eigen::VectorXd& out) {
    const Eigen::Index n = logits.size();
    if (out.size() != n) out.resize(n);
    if (n == 0) return;
    double m = logits[0];
    bool finite = true;
    for (Eigen::Index i = 0; i < n; ++i) {
        const double x = logits[i];
        finite = finite && (x - x == 0.0);  // false for ±inf and NaN
        m = x > m ? x : m;
    }
    if (!finite) {
        for (Eigen::Index i = 0; i < n; ++i)
            if (!std::isfinite(logits[i]))
                throw config_error(detail::message("softmax: logit ", i, " is ", logits[i],
                                                   " (policy parameters are no longer finite)"));
    }
    double z = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
        out[i] = std::exp(logits[i] - m);
        z += out[i];
    }
    out *= 1.0 / z;  // z >= 1: the maximum contributes exp(0)
}

/// What the rows of a ParameterTable are indexed by.
enum class ParameterRows {
    belief_states,    ///< the belief model's states (AgentDimensions::belief)
    belief_features,  ///< φ(b) when the belief model has features, else its states
    observations,     ///< the world's observations (AgentDimensions::observations)
    observation_features,  ///< ψ(o) of the policy's own feature map (only the actions are checked)
};

class ParameterTable {
public:
    [[nodiscard]] std::size_t num_actions() const noexcept { return static_cast<std::size_t>(theta_.cols()); }
    [[nodiscard]] Eigen::MatrixXd& parameters() noexcept { return theta_; }
    [[nodiscard]] const Eigen::MatrixXd& parameters() const noexcept { return theta_; }

    /// config_error naming both shapes unless θ has a row per state (feature, observation)
    /// of the agent and a column per action of the world.
    void check_dimensions(const AgentDimensions& d) const {
        const std::size_t R = num_rows(), A = num_actions();
        switch (rows_) {
            case ParameterRows::belief_states:
                if (d.belief != R || d.actions != A) throw mismatch("(belief states x actions)", d.belief, " states", d);
                return;
            case ParameterRows::belief_features:
                if (d.feature_dimension() != R || d.actions != A) {
                    if (d.features != 0) throw mismatch("(belief features x actions)", d.features, " features", d);
                    throw mismatch("(belief states x actions)", d.belief, " states", d);
                }
                return;
            case ParameterRows::observations:
                if (d.observations != R || d.actions != A)
                    throw config_error(detail::message(name_, ": parameters are ", R, " x ", A,
                                                       " (observations x actions) but the world has ",
                                                       d.observations, " observations and ", d.actions, " actions"));
                return;
            case ParameterRows::observation_features:
                if (d.actions != A)
                    throw config_error(
                        detail::message(name_, ": parameters have ", A, " actions, the world ", d.actions));
                return;
        }
    }

protected:
    /// θ = 0 (the uniform policy), num_rows x num_actions; config_error naming `name` and the
    /// shape when either is 0. `name` must outlive the table (a string literal).
    ParameterTable(const char* name, ParameterRows rows, std::size_t num_rows, std::size_t num_actions)
        : theta_(Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(num_rows), static_cast<Eigen::Index>(num_actions))),
          name_(name),
          rows_(rows) {
        if (num_rows == 0 || num_actions == 0)
            throw config_error(detail::message(name, ": needs at least one ", row_noun(rows), " and one action, got ",
                                               num_rows, " x ", num_actions));
    }

    [[nodiscard]] std::size_t num_rows() const noexcept { return static_cast<std::size_t>(theta_.rows()); }

    // The checks below run at every step of a rollout: each compares in line and throws
    // from a cold function of its own (the messages are built only on failure).

    /// config_error unless `m` (a score or gradient buffer) has θ's shape.
    void check_buffer(const Eigen::MatrixXd& m) const {
        if (m.rows() != theta_.rows() || m.cols() != theta_.cols()) [[unlikely]]
            buffer_mismatch(m);
    }
    /// config_error unless a < num_actions() (the action log_gradient is asked about).
    void check_action(std::size_t a) const {
        if (a >= num_actions()) [[unlikely]]
            action_out_of_range(a);
    }
    /// config_error unless a row score (sample_rows) has θ's columns.
    void check_row_score(const RowScore& score) const {
        if (score.cols() != num_actions()) [[unlikely]]
            row_score_mismatch(score);
    }

    Eigen::MatrixXd theta_;

private:
    [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void buffer_mismatch(const Eigen::MatrixXd& m) const {
        throw config_error(detail::message(name_, ": score buffer is ", m.rows(), " x ", m.cols(), ", expected ",
                                           theta_.rows(), " x ", theta_.cols(), " (the shape of the parameters)"));
    }
    [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void action_out_of_range(std::size_t a) const {
        throw config_error(
            detail::message(name_, "::log_gradient: action ", a, " is outside [0, ", num_actions(), ")"));
    }
    [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void row_score_mismatch(const RowScore& score) const {
        throw config_error(detail::message(name_, "::sample_rows: row score has ", score.cols(),
                                           " columns, parameters ", num_actions()));
    }
    static const char* row_noun(ParameterRows rows) noexcept {
        switch (rows) {
            case ParameterRows::observations: return "observation";
            case ParameterRows::observation_features: return "feature";
            default: return "state";
        }
    }
    [[nodiscard]] config_error mismatch(const char* shape, std::size_t have, const char* what,
                                        const AgentDimensions& d) const {
        return config_error(detail::message(name_, ": parameters are ", num_rows(), " x ", num_actions(), " ", shape,
                                            " but the belief model has ", have, what, " and the world ", d.actions,
                                            " actions"));
    }

    const char* name_;
    ParameterRows rows_;
};

}  // namespace maxent
