// maxent/optim/row_sparse_path.hpp — the trainer's row-sparse path: Algorithm 1, lines 5–6,
// on the rows of θ a batch touched, for a RowSparsePolicy (policy/row_score.hpp).
//
// Each trajectory's score is a RowScore over the rows it touched (RowScoringView); the N
// scores are combined on the union of their rows (RowSparseBatch), estimated there and the
// step applied to those rows (apply_step_rows): O(N · K · A) per iteration plus the
// policy's own work, independent of the number of rows of θ (except with step rules that
// must see every parameter, like Adam). The results are the dense path's, bit for bit
// (tests/unit/test_row_sparse_scores.cpp), under these ASSUMPTIONS, all of them here:
//   1. the estimator is ENTRY-WISE (`entrywise`, core/optional_members.hpp): its estimate at
//      a parameter depends only on that parameter's N scores and is 0 where they are all 0;
//      and it records no per-step scores;
//   2. θ is fixed during a batch, from begin_batch to estimate_and_step: a policy with
//      `batch_base` may compute what depends only on θ and b_1 once per batch (BA: the
//      first step's logits θᵀ b_1);
//   3. every episode of a batch starts from the same belief b_1, the updater's prior: with
//      fixed parameters and a flat prior spread over more than S/8 states (the paper's
//      uniform b_1), each score's first step is kept as the lead term b_1 ⊗ c on that base
//      (RowScore::set_base), so every row where b_1 > 0 has a gradient: the batch's
//      background row, scattered into a parameter-shaped gradient and stepped densely
//      (O(θ) once per iteration, never per trajectory);
//   4. a policy without `fixed_parameters` may grow θ while sampling (class B): it has no
//      dense path, and no base.
// Without a background the gradient's norm is summed in the association of the dense one
// (detail::EigenOrderSum) and only the touched rows are stepped.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/finite.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/support.hpp"
#include "maxent/optim/row_sparse_batch.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

template <class P>
class RowSparsePath {
    static_assert(require_row_sparse_policy<P>());

public:
    /// Whether the policy may grow θ while sampling (class B): the row path is its only path.
    static constexpr bool grows_parameters = !policy_has_fixed_parameters<P>;

    RowSparsePath() = default;
    /// Buffers for `batch` trajectories of `steps` actions each, for the policy's θ.
    RowSparsePath(const P& policy, std::size_t batch, std::size_t steps) {
        const Eigen::MatrixXd& theta = policy.parameters();
        const std::size_t height = batch * steps;
        scores_.assign(batch, RowScore(static_cast<std::size_t>(theta.cols())));
        // Class B: at most N·K rows; fixed parameters: at most every row and the background
        // (the compact buffers grow to the largest batch, then stay).
        batch_ = RowSparseBatch(batch, grows_parameters ? height : std::min(height, static_cast<std::size_t>(theta.rows()) + 1),
                                static_cast<std::size_t>(theta.cols()));
        gradient_ = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(batch_.height()), theta.cols());
    }

    /// Adds the bytes of the path's batch buffers to `cost`, before any is allocated: N
    /// scores and the compact gradient of N·K rows (class B), or at worst parameter-shaped.
    static void add_buffer_cost(BufferCost& cost, std::size_t batch, std::size_t steps, const Eigen::MatrixXd& theta) {
        const auto cols = static_cast<std::size_t>(theta.cols());
        const auto size = static_cast<std::size_t>(theta.size());
        if constexpr (grows_parameters)
            cost.add({batch, batch, steps, cols}, sizeof(double)).add({batch, steps, cols}, sizeof(double));
        else
            cost.add({batch, size}, sizeof(double)).add({size}, sizeof(double));
    }

    /// Whether the row path pays for a policy with fixed parameters: the rollout keeps the
    /// belief's support (each step's score then lives on a few rows), the policy reads the
    /// belief itself, and θ has at least 8 N K rows, so that a batch's N K steps leave most
    /// rows untouched (on a map the batch covers, the dense scores are faster).
    [[nodiscard]] static bool pays(std::size_t rows, std::size_t batch_steps, bool tracks_support,
                                   bool reads_features) noexcept {
        return tracks_support && !reads_features && rows >= 8 * batch_steps;
    }

    /// Assumption 3: declares the updater's prior b_1 as the base of the scores' lead terms
    /// when it is flat and spread over more than S/8 states (touching its rows in every
    /// episode would not pay); otherwise no base, and the first step touches the prior's
    /// rows. Class B and belief features: never a base.
    template <class U>
    void use_prior_of(const U& updater, const P& policy) {
        has_base_ = false;
        for (RowScore& rs : scores_) rs.set_base(nullptr);
        batch_.set_base(nullptr);
        if constexpr (!grows_parameters && !BeliefFeatures<U>) {
            updater.initial(prior_);
            const Eigen::Index S = policy.parameters().rows();
            if (prior_.size() != S) return;
            std::size_t nonzeros = 0;
            double value = 0.0;
            for (Eigen::Index r = 0; r < S; ++r) {
                const double x = prior_[r];
                if (x == 0.0) continue;
                if (nonzeros > 0 && x != value) return;  // not flat
                value = x;
                ++nonzeros;
            }
            if (support_pays(nonzeros, static_cast<std::size_t>(S))) return;
            batch_.set_base(&prior_);
            has_base_ = true;
            bind_base();
        }
    }

    /// Assumption 2, for the scope's lifetime: declares the batch's base to a policy with
    /// batch_base and withdraws it (nullptr) at the end of the scope, also on a throw.
    class Batch {
    public:
        Batch(P& policy, const Eigen::VectorXd* base) noexcept : policy_(&policy), set_(base != nullptr) {
            if constexpr (policy_has_batch_base<P>)
                if (set_) policy_->batch_base(base);
        }
        ~Batch() {
            if constexpr (policy_has_batch_base<P>)
                if (set_) policy_->batch_base(nullptr);
        }
        Batch(const Batch&) = delete;
        Batch& operator=(const Batch&) = delete;

    private:
        P* policy_;
        bool set_;
    };
    /// Begins a batch (θ fixed until estimate_and_step) for the lifetime of `scope`: points
    /// the scores at the base (the path may have moved with its trainer) and declares it to
    /// the policy. Without a base (or on a path never set up) it does nothing.
    void begin_batch(P& policy, std::optional<Batch>& scope) {
        if (has_base_) bind_base();
        scope.emplace(policy, has_base_ ? &prior_ : nullptr);
    }

    /// The policy as the rollout sees it for trajectory n: its score goes to the n-th RowScore.
    [[nodiscard]] RowScoringView<P> view(P& policy, std::size_t n) { return RowScoringView<P>(policy, scores_[n]); }
    /// The dense score buffer the rollout is handed with view(): 0 x 0, never written.
    [[nodiscard]] Eigen::MatrixXd& unused_dense_score() noexcept { return no_dense_score_; }

    /// Lines 5–6 on the batch's rows: the estimate on the union of the rows, the step on them
    /// (or, with a background row, densely); returns the gradient's norm. numeric_error
    /// naming iteration k when the estimate, its norm or a stepped row of θ is not finite.
    template <class E, class R>
    double estimate_and_step(E& estimator, R& step, Eigen::MatrixXd& theta, std::span<const double> feedbacks,
                             std::size_t k) {
        batch_.gather(std::span<const RowScore>(scores_));
        estimator.estimate(feedbacks, batch_.compact(), gradient_);
        if (!grows_parameters && batch_.background()) {
            // Every row where the prior is non-zero has a gradient: the dense step, on the
            // dense gradient, with the dense path's bits.
            scatter_gradient(theta);
            return checked_step(step, theta, dense_scratch_, k);
        }
        const double norm = grows_parameters ? checked_gradient_norm(gradient_, k) : rows_norm(theta, k);
        apply_step_rows(step, theta, batch_.rows(), gradient_, dense_scratch_);
        for (const Eigen::Index r : batch_.rows())
            detail::require_finite(theta.row(r), "Trainer: parameter row ", r, " after the step of iteration ", k);
        return norm;
    }

    /// The last compact gradient: row i is parameter row rows()[i]; with background(), row
    /// rows().size() is the gradient of every other row where the prior is non-zero.
    [[nodiscard]] const Eigen::MatrixXd& gradient() const noexcept { return gradient_; }
    [[nodiscard]] std::span<const Eigen::Index> rows() const noexcept { return batch_.rows(); }
    [[nodiscard]] bool background() const noexcept { return batch_.background(); }

private:
    void bind_base() {
        for (RowScore& rs : scores_) rs.set_base(&prior_);
        batch_.rebind_base(&prior_);
    }

    /// dense_scratch_ <- the parameter-shaped gradient (compact rows, the background's
    /// rows, zero elsewhere).
    void scatter_gradient(const Eigen::MatrixXd& theta) {
        if (dense_scratch_.rows() != theta.rows() || dense_scratch_.cols() != theta.cols())
            dense_scratch_.resize(theta.rows(), theta.cols());
        const std::span<const Eigen::Index> rows = batch_.rows();
        if (batch_.background()) {
            // The background's rows are those where the base (prior_, one entry per row of θ:
            // use_prior_of) is non-zero, less the touched rows, which are overwritten below;
            // written column by column (θ is column-major) in one pass.
            const auto b = static_cast<Eigen::Index>(rows.size());
            const Eigen::Index S = theta.rows();
            const double* base = prior_.data();
            for (Eigen::Index c = 0; c < theta.cols(); ++c) {
                const double v = gradient_(b, c);
                double* out = dense_scratch_.col(c).data();
                for (Eigen::Index r = 0; r < S; ++r) out[r] = base[r] != 0.0 ? v : 0.0;
            }
        } else {
            dense_scratch_.setZero();
        }
        for (std::size_t i = 0; i < rows.size(); ++i)
            dense_scratch_.row(rows[i]) = gradient_.row(static_cast<Eigen::Index>(i));
    }

    /// The norm of the gradient (no background) with the bits of the dense path's norm of
    /// the parameter-shaped gradient: the squares added in the association of Eigen's
    /// squaredNorm (detail::EigenOrderSum), in O(rows touched · A).
    double rows_norm(const Eigen::MatrixXd& theta, std::size_t k) {
        if constexpr (support_dot_matches_eigen) {
            const std::span<const Eigen::Index> rows = batch_.rows();
            const auto S = static_cast<std::size_t>(theta.rows());
            const auto C = static_cast<std::size_t>(gradient_.cols());
            detail::EigenOrderSum sum(S * C);
            for (std::size_t c = 0; c < C; ++c)
                for (std::size_t i = 0; i < rows.size(); ++i) {
                    const double x = gradient_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c));
                    sum.add(c * S + static_cast<std::size_t>(rows[i]), x * x);
                }
            const double norm = std::sqrt(sum.result());
            if (std::isfinite(norm)) return norm;
        }
        scatter_gradient(theta);
        return checked_gradient_norm(dense_scratch_, k);
    }

    std::vector<RowScore> scores_;   // one per trajectory of the batch
    RowSparseBatch batch_;
    Eigen::MatrixXd gradient_;       // compact: one row per row of the union (and the background)
    Eigen::MatrixXd dense_scratch_;  // a dense-only step rule (Adam), the background
    Eigen::MatrixXd no_dense_score_;
    Eigen::VectorXd prior_;          // the base b_1 (use_prior_of)
    bool has_base_ = false;
};

}  // namespace maxent
