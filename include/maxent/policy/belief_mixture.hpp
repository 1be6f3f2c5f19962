// maxent/policy/belief_mixture.hpp — the belief-weighted mixture of per-state softmax policies.
//
// Paper, Section 4 (the class Π̄_B): the text's "π_θ(· | b) = ⟨θ, b⟩" read literally, as a
// mixture over states (docs/reference.md, "Policy classes"; the logit form the authors' code
// runs is BeliefAveragedPolicy). θ ∈ R^{S x A}, initialised to zero (the uniform policy):
//     π_s = softmax(θ_s)                         (one softmax policy per state)
//     π(a | b) = Σ_s b(s) π_s(a)                 (mixed by the belief)
//     ∇_{θ_s} log π(a | b) = w_s(a) (e_a - π_s),  w_s(a) = b(s) π_s(a) / π(a | b).
// w(a) is the posterior over states given that a was played; it is computed in log space,
// so an action whose marginal probability underflows to 0 (logits of magnitude ~1000) still
// gets a finite gradient. Only the rows of states with b(s) > 0 are touched, and when the
// rollout passes the belief's support (AgentView::support) only those states are visited.
// The marginal and its gradient are shared with BelievedStatePolicy (policy S̃), whose
// action distribution, marginalised over the believed state s̃ ~ b, is this same mixture.
// Row-sparse scores (sample_rows, policy/row_score.hpp): the same score on the rows of the
// believed states. A first step on the uniform b_1 still touches every row (each with its
// own softmax): O(S · A) per trajectory there, inherent in this score.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <span>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/parameter_table.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

namespace detail {

/// Scratch for the mixture Σ_s b(s) softmax(θ_s): sized once, reused without allocating.
struct MixtureScratch {
    Eigen::VectorXd logits;     ///< A: one row of θ
    Eigen::VectorXd row;        ///< A: softmax of that row
    Eigen::MatrixXd row_probs;  ///< A x S: column s = softmax(θ_s), filled where b(s) > 0
    Eigen::VectorXd log_norm;   ///< S: log Σ_a exp θ_sa, filled where b(s) > 0
    Eigen::VectorXd weights;    ///< S: posterior weight w_s(a), filled where b(s) > 0

    MixtureScratch(Eigen::Index states, Eigen::Index actions)
        : logits(actions), row(actions), row_probs(actions, states), log_norm(states), weights(states) {}
};

/// Calls f(s) for the states that may carry belief in the view, in ascending order: the
/// view's support when it has one (AgentView::support; the other entries are 0), else every
/// state. The mixture's loops skip the states with b(s) = 0 anyway, so both give the same
/// results; the support makes a step O(|support|) instead of O(S).
template <class F>
inline void for_each_believed_state(const AgentView& v, F&& f) {
    if (v.support_known) {
        for (const sparse_index s : v.support) f(static_cast<Eigen::Index>(s));
    } else {
        for (Eigen::Index s = 0; s < v.belief.size(); ++s) f(s);
    }
}

/// Throws config_error (prefixed by `who`) unless every entry of the belief is finite and
/// non-negative and at least one is positive (on the view's support when it has one).
inline void check_belief_entries(const char* who, const AgentView& v) {
    const Eigen::VectorXd& b = v.belief;
    bool positive = false;
    for_each_believed_state(v, [&](Eigen::Index s) {
        const double x = b[s];
        if (!(x >= 0.0) || !std::isfinite(x))
            throw config_error(detail::message(who, ": belief entry ", s, " is ", x, " (must be finite and >= 0)"));
        if (x > 0.0) positive = true;
    });
    if (!positive)
        throw config_error(detail::message(who, ": the belief of size ", b.size(), " has no positive entry"));
}

/// out <- softmax(θ_s) (through the scratch `logits`), naming the row if its logits are
/// not finite. Allocates nothing when `logits` and `out` already have θ's column count.
inline void softmax_row(const char* who, const Eigen::MatrixXd& theta, Eigen::Index s, Eigen::VectorXd& logits,
                        Eigen::VectorXd& out) {
    logits = theta.row(s).transpose();
    try {
        softmax_into(logits, out);
    } catch (const config_error& e) {
        throw config_error(detail::message(who, ": parameter row ", s, ": ", e.what()));
    }
}

/// Fills w.row_probs and w.log_norm for the states with b(s) > 0 (b already checked).
inline void mixture_prepare(const char* who, const Eigen::MatrixXd& theta, const AgentView& v, MixtureScratch& w) {
    const Eigen::VectorXd& b = v.belief;
    for_each_believed_state(v, [&](Eigen::Index s) {
        if (b[s] == 0.0) return;
        softmax_row(who, theta, s, w.logits, w.row);
        Eigen::Index best = 0;
        w.logits.maxCoeff(&best);
        // softmax gives row[best] = 1 / Σ_a exp(θ_sa - max), exactly representable enough
        // (>= 1/A), so log Σ_a exp θ_sa = max - log row[best].
        w.log_norm[s] = w.logits[best] - std::log(w.row[best]);
        w.row_probs.col(s) = w.row;
    });
}

/// out <- Σ_s b(s) softmax(θ_s) (after mixture_prepare).
inline void mixture_marginal(const AgentView& v, const MixtureScratch& w, Eigen::VectorXd& out) {
    const Eigen::Index n = w.row_probs.rows();
    if (out.size() != n) out.resize(n);
    out.setZero();
    for_each_believed_state(v, [&](Eigen::Index s) {
        const double bs = v.belief[s];
        if (bs == 0.0) return;
        out += bs * w.row_probs.col(s);
    });
}

/// For the states s with b(s) > 0, in ascending order, add(s, w_s) with w_s the posterior
/// weight of s given a, w_s = b(s) π_s(a) / π(a | b) (after mixture_prepare): the score
/// ∇_{θ_s} log π(a | b) = w_s (e_a - π_s).
template <class Add>
inline void mixture_log_gradient_rows(const Eigen::MatrixXd& theta, const AgentView& v, std::size_t a,
                                      MixtureScratch& w, Add&& add) {
    const Eigen::VectorXd& b = v.belief;
    const auto ai = static_cast<Eigen::Index>(a);
    // log(b(s) π_s(a)) = log b(s) + θ_sa - log Σ_a' exp θ_sa'; normalised with log-sum-exp.
    double largest = -std::numeric_limits<double>::infinity();
    for_each_believed_state(v, [&](Eigen::Index s) {
        if (b[s] == 0.0) return;
        const double l = std::log(b[s]) + theta(s, ai) - w.log_norm[s];
        w.weights[s] = l;
        if (l > largest) largest = l;
    });
    double total = 0.0;
    for_each_believed_state(v, [&](Eigen::Index s) {
        if (b[s] == 0.0) return;
        w.weights[s] = std::exp(w.weights[s] - largest);
        total += w.weights[s];  // >= 1: the largest term is exp(0)
    });
    for_each_believed_state(v, [&](Eigen::Index s) {
        if (b[s] == 0.0) return;
        add(s, w.weights[s] / total);
    });
}

/// grad += ∇_θ log Σ_s b(s) softmax(θ_s)(a) (after mixture_prepare; a and grad checked).
inline void mixture_add_log_gradient(const Eigen::MatrixXd& theta, const AgentView& v, std::size_t a,
                                     MixtureScratch& w, Eigen::MatrixXd& grad) {
    const auto ai = static_cast<Eigen::Index>(a);
    mixture_log_gradient_rows(theta, v, a, w, [&](Eigen::Index s, double ws) {
        grad.row(s) -= ws * w.row_probs.col(s).transpose();
        grad(s, ai) += ws;
    });
}

/// The same score added to a RowScore: entry by entry the operations of
/// mixture_add_log_gradient.
inline void mixture_add_log_gradient(const Eigen::MatrixXd& theta, const AgentView& v, std::size_t a,
                                     MixtureScratch& w, RowScore& score) {
    const Eigen::Index A = theta.cols();
    mixture_log_gradient_rows(theta, v, a, w, [&](Eigen::Index s, double ws) {
        const std::span<double> row = score.touch(s);
        for (Eigen::Index c = 0; c < A; ++c) row[static_cast<std::size_t>(c)] -= ws * w.row_probs(c, s);
        row[a] += ws;
    });
}




/// Throws config_error (prefixed by `who`) unless the belief has one entry per row of θ,
/// each finite and >= 0, and one positive (check_belief_entries).
inline void check_mixture_belief(const char* who, const Eigen::MatrixXd& theta, const AgentView& v) {
    if (v.belief.size() != theta.rows())
        throw config_error(detail::message(who, ": belief has ", v.belief.size(), " entries, parameters have ",
                                           theta.rows(), " rows"));
    check_belief_entries(who, v);
}

/// out <- Σ_s b(s) softmax(θ_s) (belief checked before). Its scratch is allocated here:
/// this is what evaluation and exact enumeration call, not the rollout.
inline void mixture_probabilities(const char* who, const Eigen::MatrixXd& theta, const AgentView& v,
                                  Eigen::VectorXd& out) {
    MixtureScratch w(theta.rows(), theta.cols());
    mixture_prepare(who, theta, v, w);
    mixture_marginal(v, w, out);
}

/// grad += ∇_θ log Σ_s b(s) softmax(θ_s)(a) (belief, action and buffer checked before).
inline void mixture_log_gradient(const char* who, const Eigen::MatrixXd& theta, const AgentView& v, std::size_t a,
                                 Eigen::MatrixXd& grad) {
    MixtureScratch w(theta.rows(), theta.cols());
    mixture_prepare(who, theta, v, w);
    mixture_add_log_gradient(theta, v, a, w, grad);
}

}  // namespace detail

/// π(a | b) = Σ_s b(s) softmax(θ_s)(a); see the header comment. Satisfies DifferentiablePolicy.
/// sample() draws a from the marginal directly and adds the exact ∇_θ log π(a | b).
class BeliefMixturePolicy : public ParameterTable {
public:
    /// θ never changes shape: the trainer may take the dense or the row-sparse path.
    static constexpr bool fixed_parameters = true;

    /// θ = 0 (the uniform policy), S x A.
    BeliefMixturePolicy(std::size_t num_states, std::size_t num_actions)
        : ParameterTable(name, ParameterRows::belief_states, num_states, num_actions),
          scratch_(static_cast<Eigen::Index>(num_states), static_cast<Eigen::Index>(num_actions)),
          probs_(static_cast<Eigen::Index>(num_actions)) {}

    [[nodiscard]] std::size_t num_states() const noexcept { return num_rows(); }

    /// out <- Σ_s b(s) softmax(θ_s).
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const {
        detail::check_mixture_belief(name, theta_, v);
        detail::mixture_probabilities(name, theta_, v, out);
    }

    /// Draws a ~ π(· | b) and adds ∇_θ log π(a | b) to `score`. Allocates nothing.
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        detail::check_mixture_belief(name, theta_, v);
        check_buffer(score);
        detail::mixture_prepare(name, theta_, v, scratch_);
        detail::mixture_marginal(v, scratch_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        detail::mixture_add_log_gradient(theta_, v, a, scratch_, score);
        return a;
    }

    /// As sample, with the score added to a RowScore (RowSparsePolicy): the rows of the
    /// states with b(s) > 0, with the dense score's bits.
    template <std::uniform_random_bit_generator G>
    std::size_t sample_rows(const AgentView& v, G& g, RowScore& score) {
        detail::check_mixture_belief(name, theta_, v);
        check_row_score(score);
        detail::mixture_prepare(name, theta_, v, scratch_);
        detail::mixture_marginal(v, scratch_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        detail::mixture_add_log_gradient(theta_, v, a, scratch_, score);
        return a;
    }

    /// grad += ∇_θ log π(a | b).
    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        detail::check_mixture_belief(name, theta_, v);
        check_action(a);
        check_buffer(grad);
        detail::mixture_log_gradient(name, theta_, v, a, grad);
    }

private:
    static constexpr const char* name = "BeliefMixturePolicy";

    detail::MixtureScratch scratch_;
    Eigen::VectorXd probs_;
};

}  // namespace maxent
