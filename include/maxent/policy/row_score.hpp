// maxent/policy/row_score.hpp — row-sparse scores: the optional extension of
// DifferentiablePolicy for policies with a tall parameter table of which one trajectory
// touches only a few rows (the belief-state class B: one row per belief, paper Appendix D
// and Algorithm 2), so that training costs O(rows touched), not O(rows) per iteration.
//
// Algorithm 1 (line 5) needs each trajectory's score g_n = Σ_t ∇_θ log π(a_t | i_t). A
// tabular policy over beliefs has θ with one row per distinct belief (10^5 .. 10^6 rows),
// but a trajectory touches at most K of them. A dense score per trajectory would make
// every iteration O(N · rows · A) (zeroing, combining, stepping). A `RowScore` holds only
// the touched rows; the trainer (optim/trainer.hpp, with optim/row_sparse_batch.hpp)
// combines the N row scores on the union of their rows.
//
// RowSparsePolicy concept — a DifferentiablePolicy with, for `P p`, `const AgentView v`,
// a generator `g` (archetype DefaultRng) and `RowScore rs`:
//   p.sample_rows(v, g, rs)  -> std::size_t   exactly what p.sample(v, g, score) does (same
//                            draws from g, same action), except that the score is ADDED
//                            to rs (rs.cols() == parameters().cols()) instead of to a
//                            dense matrix.
// and the growth rule: parameters() may GROW during sample / sample_rows (rows appended,
// new rows zero; columns fixed), rows are never removed or reordered. Callers holding
// parameter-shaped state must pad it with zeros (the trainer, Adam and the estimators do).
// Satisfied by TabularBeliefPolicy (policy/tabular_belief_policy.hpp). Every other policy
// keeps the dense path, unchanged.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

/// The score of one trajectory restricted to the parameter rows it touched: rows()[i] is a
/// row of θ, row(i) its cols() values. Keeps its capacity across reset() (no allocation
/// once warm). Lookup of a row is linear in the number of touched rows (<= K per trajectory).
class RowScore {
public:
    RowScore() = default;
    explicit RowScore(std::size_t cols) : cols_(cols) {}

    /// Forgets every row; the next trajectory's rows will have `cols` columns.
    void reset(std::size_t cols) noexcept {
        cols_ = cols;
        rows_.clear();
        values_.clear();
    }
    [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
    [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }
    [[nodiscard]] bool empty() const noexcept { return rows_.empty(); }
    [[nodiscard]] std::span<const Eigen::Index> rows() const noexcept { return rows_; }
    [[nodiscard]] std::span<const double> row(std::size_t i) const noexcept {
        return std::span<const double>(values_).subspan(i * cols_, cols_);
    }

    /// The values of parameter row r, appended as zeros on first touch.
    [[nodiscard]] std::span<double> touch(Eigen::Index r) {
        if (r < 0) throw config_error(detail::message("RowScore::touch: row ", r, " is negative"));
        std::size_t i = 0;
        while (i < rows_.size() && rows_[i] != r) ++i;
        if (i == rows_.size()) {
            rows_.push_back(r);
            values_.resize(values_.size() + cols_, 0.0);
        }
        return std::span<double>(values_).subspan(i * cols_, cols_);
    }

    /// Adds this score into the dense matrix (whose rows must cover every touched row).
    void add_to(Eigen::MatrixXd& dense) const {
        if (static_cast<std::size_t>(dense.cols()) != cols_)
            throw config_error(detail::message("RowScore::add_to: matrix has ", dense.cols(), " columns, score ",
                                               cols_));
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            if (rows_[i] >= dense.rows())
                throw config_error(detail::message("RowScore::add_to: row ", rows_[i], " is outside the matrix's ",
                                                   dense.rows(), " rows"));
            for (std::size_t c = 0; c < cols_; ++c)
                dense(rows_[i], static_cast<Eigen::Index>(c)) += values_[i * cols_ + c];
        }
    }

private:
    std::size_t cols_ = 0;
    std::vector<Eigen::Index> rows_;
    std::vector<double> values_;  // row-major, size() x cols_
};

namespace concept_checks {
template <class P>
concept has_sample_rows = requires(P& p, const AgentView& v, DefaultRng& g, RowScore& rs) {
    { p.sample_rows(v, g, rs) } -> std::convertible_to<std::size_t>;
};
}  // namespace concept_checks

template <class P>
concept RowSparsePolicy = DifferentiablePolicy<P> && concept_checks::has_sample_rows<P>;

template <class P>
consteval bool require_row_sparse_policy() {
    static_assert(require_differentiable_policy<P>());
    static_assert(concept_checks::has_sample_rows<P>,
                  "maxent::RowSparsePolicy: missing `std::size_t sample_rows(const AgentView&, G& g, RowScore& "
                  "score)` (templated on the generator)");
    return true;
}

/// A Policy that forwards to a RowSparsePolicy and routes the score of `sample` into a
/// RowScore (reset on construction); the dense score matrix the Sampler passes is left
/// untouched (give it a 0 x 0 matrix). Lets the Sampler run a row-sparse policy unchanged.
template <class P>
class RowScoringView {
    static_assert(require_row_sparse_policy<P>());

public:
    static constexpr bool needs_belief = policy_needs_belief<P>;

    RowScoringView(P& policy, RowScore& score) : policy_(&policy), score_(&score) {
        score.reset(static_cast<std::size_t>(policy.parameters().cols()));
    }
    [[nodiscard]] std::size_t num_actions() const { return policy_->num_actions(); }
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const { policy_->probabilities(v, out); }
    void check_dimensions(const AgentDimensions& d) const { policy_->check_dimensions(d); }
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& /*dense score: unused*/) {
        return policy_->sample_rows(v, g, *score_);
    }

private:
    P* policy_;
    RowScore* score_;
};

}  // namespace maxent
