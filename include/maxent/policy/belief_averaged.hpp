// maxent/policy/belief_averaged.hpp — the Belief-Averaged (BA) policy, logit form.
//
// Paper, Section 4 (the class Π̄_B, "π_θ(· | b) = ⟨θ, b⟩") as the authors' experiments
// implement it (docs/reference.md, "Policy classes"): θ ∈ R^{S x A}, initialised to zero,
//     π(· | b) = softmax(θᵀ b)                     (logits averaged by the belief)
//     ∇_θ log π(a | b) = b (e_a - π(· | b))ᵀ       (an S x A rank-one matrix).
// The mixture reading of the paper's text, Σ_s b(s) softmax(θ_s), is BeliefMixturePolicy.
//
// The policy reads AgentView::features(), which is the belief itself unless the belief
// model computes features φ(b) (belief/concepts.hpp, BeliefFeatures): then θ ∈ R^{F x A}
// and π(· | b) = softmax(θᵀ φ(b)), the same code. The support path applies only when the
// features are the belief.
//
// The class reads top to bottom as the math above (probabilities, sample, log_gradient);
// its fast paths follow in their own section, each with the reference's bits: the belief's
// support, row-sparse scores (sample_rows: the rows where b is non-zero, a first step on a
// spread b_1 as the lead term b_1 ⊗ (e_a - π)) and the batch base (θᵀ b_1 once per batch).
#pragma once

#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/support.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/parameter_table.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

class BeliefAveragedPolicy : public ParameterTable {
public:
    /// θ never changes shape: the trainer may take the dense or the row-sparse path.
    static constexpr bool fixed_parameters = true;

    /// θ = 0 (the uniform policy), S x A (F x A over belief features φ(b)).
    BeliefAveragedPolicy(std::size_t num_states, std::size_t num_actions)
        : ParameterTable(name, ParameterRows::belief_features, num_states, num_actions),
          logits_(static_cast<Eigen::Index>(num_actions)),
          probs_(static_cast<Eigen::Index>(num_actions)),
          coefficients_(static_cast<Eigen::Index>(num_actions)),
          dot_scratch_(static_cast<Eigen::Index>(support_dot_scratch_per_column * num_actions)) {}

    [[nodiscard]] std::size_t num_states() const noexcept { return num_rows(); }

    void probabilities(const AgentView& v, Eigen::VectorXd& out) const {
        check_belief(v);
        Eigen::VectorXd logits(theta_.cols());
        for (Eigen::Index a = 0; a < theta_.cols(); ++a) logits[a] = theta_.col(a).dot(v.features());
        softmax_into(logits, out);
    }

    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        check_belief(v);
        check_buffer(score);
        if (v.support_known && v.features_are_belief() && support_pays(v.support.size()))
            return sample_on_support(v, g, score);
        const Eigen::VectorXd& phi = v.features();
        compute_logits(phi);
        softmax_into(logits_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        add_score(phi, a, score);
        return a;
    }

    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        check_belief(v);
        check_action(a);
        Eigen::VectorXd p;
        probabilities(v, p);
        check_buffer(grad);
        for (Eigen::Index s = 0; s < theta_.rows(); ++s) {
            const double bs = v.features()[s];
            if (bs == 0.0) continue;
            grad.row(s) -= bs * p.transpose();
            grad(s, static_cast<Eigen::Index>(a)) += bs;
        }
    }

private:
    static constexpr const char* name = "BeliefAveragedPolicy";

    void check_belief(const AgentView& v) const {
        if (v.features().size() != theta_.rows())
            throw config_error(detail::message(name, ": ",
                                               v.features_are_belief() ? "belief has " : "belief features have ",
                                               v.features().size(), " entries, parameters have ", theta_.rows(),
                                               " rows"));
    }
    /// logits_ <- θᵀ b, one contiguous dot product per action (θ is column-major), which
    /// for the small A of the paper is faster than a general matrix-vector product.
    void compute_logits(const Eigen::VectorXd& b) {
        for (Eigen::Index a = 0; a < theta_.cols(); ++a) logits_[a] = theta_.col(a).dot(b);
    }
    /// score += b (e_a - π)ᵀ, one contiguous axpy per action column (the shape is checked by the caller).
    void add_score(const Eigen::VectorXd& b, std::size_t a, Eigen::MatrixXd& score) const {
        const auto ai = static_cast<Eigen::Index>(a);
        for (Eigen::Index c = 0; c < theta_.cols(); ++c) {
            const double coefficient = (c == ai ? 1.0 : 0.0) - probs_[c];
            score.col(c) += coefficient * b;
        }
    }

    // -----------------------------------------------------------------------------------
    // Fast paths, the same bits as the reference above: the belief's support (AgentView::
    // support, optim/rollout.hpp), row-sparse scores (RowSparsePolicy, policy/row_score.hpp)
    // and the batch base (optim/row_sparse_path.hpp).
    // -----------------------------------------------------------------------------------
public:
    /// As sample, with the score added to a RowScore (RowSparsePolicy): the rows where the
    /// belief (or φ(b)) is non-zero, each entry with the product and sum of the dense score.
    /// On a score with a base (RowScore::set_base), the first step's b_1 (e_a - π)ᵀ is
    /// recorded as the lead term instead of touching every row of b_1.
    template <std::uniform_random_bit_generator G>
    std::size_t sample_rows(const AgentView& v, G& g, RowScore& score) {
        check_belief(v);
        check_row_score(score);
        const bool on_support = v.support_known && v.features_are_belief();
        const bool leads =
            v.step == 0 && v.features_are_belief() && score.can_lead() && score.base()->size() == theta_.rows();
        const bool cached = leads && batch_base_ != nullptr && score.base() == batch_base_;
        if (cached && base_logits_known_) {
            // The first step of a later episode of the batch: the belief is the base
            // (RowScore's contract) and θ has not changed since batch_base (the trainer's),
            // so the logits are those the batch's first episode computed below.
            logits_ = base_logits_;
        } else {
            if (on_support && support_pays(v.support.size()))
                compute_logits(v.belief, v.support);
            else
                compute_logits(v.features());
            if (cached) {
                base_logits_ = logits_;
                base_logits_known_ = true;
            }
        }
        softmax_into(logits_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        const Eigen::Index A = theta_.cols();
        for (Eigen::Index c = 0; c < A; ++c)
            coefficients_[c] = (c == static_cast<Eigen::Index>(a) ? 1.0 : 0.0) - probs_[c];
        if (leads) {
            score.lead(std::span<const double>(coefficients_.data(), static_cast<std::size_t>(A)));
            return a;
        }
        const auto add_row = [&](Eigen::Index s, double bs) {
            const std::span<double> row = score.touch(s);
            for (Eigen::Index c = 0; c < A; ++c) row[static_cast<std::size_t>(c)] += coefficients_[c] * bs;
        };
        const Eigen::VectorXd& phi = v.features();
        if (on_support) {
            for (const sparse_index si : v.support) {
                const double bs = phi[si];
                if (bs != 0.0) add_row(static_cast<Eigen::Index>(si), bs);  // b(s) = 0 adds ±0: nothing
            }
        } else {
            for (Eigen::Index s = 0; s < phi.size(); ++s)
                if (phi[s] != 0.0) add_row(s, phi[s]);
        }
        return a;
    }

    /// Declares the base b_1 of a batch of row scores (optim/row_sparse_path.hpp), or with nullptr
    /// ends the batch. Between the two calls θ must not change and every episode whose
    /// RowScore has this base starts from it (RowScore::set_base): sample_rows then computes
    /// the first step's logits θᵀ b_1 once (an O(S A) pass over θ) and reuses them — the same
    /// values, since they are those of the same computation.
    void batch_base(const Eigen::VectorXd* base) noexcept {
        batch_base_ = base;
        base_logits_known_ = false;
    }

private:
    /// sample() on a small support (out of line, so that the dense sample() stays small
    /// enough to be inlined into the rollout).
    template <std::uniform_random_bit_generator G>
    [[gnu::noinline]] std::size_t sample_on_support(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        compute_logits(v.belief, v.support);
        softmax_into(logits_, probs_);
        const std::size_t a = sample_categorical(probs_, g);
        add_score(v.belief, v.support, a, score);
        return a;
    }

    /// Whether working on a support of this size beats the dense loops (same results
    /// either way): the dense ones run in packets over all S entries, the support ones
    /// entry by entry, so the support must be small against S.
    [[nodiscard]] bool support_pays(std::size_t support_size) const noexcept {
        return maxent::support_pays(support_size, static_cast<std::size_t>(theta_.rows()));
    }
    /// The same logits from the belief's support (AgentView::support), in O(|support| A):
    /// support_dot adds the terms in the association of Eigen's dot product, so the logits
    /// are those of compute_logits(b) to the last bit (on builds where it cannot, AVX, the
    /// dense dot products are used).
    void compute_logits(const Eigen::VectorXd& b, std::span<const sparse_index> support) {
        if constexpr (!support_dot_matches_eigen) {
            compute_logits(b);
        } else {
            support_dot_columns(support, theta_.data(), static_cast<std::size_t>(theta_.rows()),
                                static_cast<std::size_t>(theta_.cols()), b.data(), dot_scratch_.data(),
                                logits_.data());
        }
    }
    /// score += b (e_a - π)ᵀ on the support's rows only (the other rows would add b(s) = 0):
    /// entry by entry the same product and sum as add_score(b, a, score).
    void add_score(const Eigen::VectorXd& b, std::span<const sparse_index> support, std::size_t a,
                   Eigen::MatrixXd& score) {
        const Eigen::Index A = theta_.cols();
        const auto ai = static_cast<Eigen::Index>(a);
        for (Eigen::Index c = 0; c < A; ++c) coefficients_[c] = (c == ai ? 1.0 : 0.0) - probs_[c];
        const auto S = static_cast<std::size_t>(theta_.rows());
        double* out = score.data();
        const double* coefficient = coefficients_.data();
        const double* bp = b.data();
        detail::with_small_count(static_cast<std::size_t>(A), [&](auto fixed) {
            constexpr std::size_t Fixed = decltype(fixed)::value;
            const std::size_t cols = Fixed > 0 ? Fixed : static_cast<std::size_t>(A);
            for (const sparse_index si : support) {
                const auto s = static_cast<std::size_t>(si);
                const double bs = bp[s];
                for (std::size_t c = 0; c < cols; ++c) out[c * S + s] += coefficient[c] * bs;
            }
        });
    }

    Eigen::VectorXd logits_;
    Eigen::VectorXd probs_;
    Eigen::VectorXd coefficients_;  // e_a - π of the last sample (support path)
    Eigen::VectorXd dot_scratch_;   // support_dot_columns' lanes (support path)
    const Eigen::VectorXd* batch_base_ = nullptr;  // batch_base: the batch's b_1 (row path)
    Eigen::VectorXd base_logits_;   // θᵀ b_1 of the batch's first episode
    bool base_logits_known_ = false;
};

}  // namespace maxent
