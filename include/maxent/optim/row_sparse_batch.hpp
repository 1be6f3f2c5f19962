// maxent/optim/row_sparse_batch.hpp — a batch of row-sparse scores as compact dense
// matrices over the union of their rows (Algorithm 1, lines 5–6, for RowSparsePolicy).
//
// Given the N RowScores of one iteration (policy/row_score.hpp), `gather` forms the sorted
// union U of their rows and N dense H x A matrices, row i of which holds parameter row U[i]
// (rows i >= |U| are zero). H starts at the height given (N · K, the most rows a batch of
// K-step trajectories of class B can touch), grows to the largest union and shrinks back
// when a batch needs under a quarter of it, so it is allocated only on such changes.
//
// Why this is exact: rows outside U have a zero score in every trajectory. Every built-in
// GradientEstimator is ENTRY-WISE (`static constexpr bool entrywise = true;`: the estimate
// at a parameter depends only on the feedbacks and that parameter's N scores, and is 0 when
// they are all 0), so the estimate on the compact matrices is, entry for entry, the dense
// estimate restricted to U, and zero elsewhere. The step rule then updates θ on U
// (apply_step_rows, optim/step_rules.hpp). Cost per iteration: O(N · H · A), independent
// of the number of rows of θ.
//
// Lead terms (RowScore::lead: a first step on a prior spread over the whole map, recorded
// as base ⊗ c). Rows of U that a score did not touch get its untouched value c · base[r];
// the rows outside U where the base is non-zero all have the same N scores when the base is
// flat (set_base checks it), so one more compact row, the BACKGROUND row (index |U|), holds
// them, and the estimate there is the estimate at each of those rows. The union is kept in
// a row -> compact-row index (O(rows of θ) memory, allocated once, cleared in O(|U|)).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

class RowSparseBatch {
public:
    RowSparseBatch() = default;
    /// Pre-sizes the buffers for `batch` scores of up to `height` union rows and `cols` columns.
    RowSparseBatch(std::size_t batch, std::size_t height, std::size_t cols) : initial_height_(height) {
        shape(batch, height, cols);
    }

    /// Declares the base of the scores' lead terms (RowScore::set_base), or none (nullptr).
    /// The base must be FLAT: its non-zero entries all equal, as the paper's uniform b_1 (then
    /// every row outside the union has the same N scores, so one compact row, the background
    /// row, stands for all of them); config_error naming the first entry that differs. O(size)
    /// once; the vector must outlive the batch and stay unchanged.
    void set_base(const Eigen::VectorXd* base) {
        base_ = base;
        base_value_ = 0.0;
        base_nonzeros_ = 0;
        if (base == nullptr) return;
        for (Eigen::Index r = 0; r < base->size(); ++r) {
            const double x = (*base)[r];
            if (x == 0.0) continue;
            if (base_nonzeros_ > 0 && x != base_value_)
                throw config_error(detail::message("RowSparseBatch::set_base: the base is not flat: entry ", r, " is ",
                                                   x, ", an earlier non-zero entry ", base_value_));
            base_value_ = x;
            ++base_nonzeros_;
        }
    }
    /// Points at another vector with the content set_base checked (its owner moved); O(1).
    void rebind_base(const Eigen::VectorXd* base) noexcept { base_ = base; }
    [[nodiscard]] const Eigen::VectorXd* base() const noexcept { return base_; }

    /// Builds the union of the rows of `scores` and the compact matrices.
    void gather(std::span<const RowScore> scores) {
        if (scores.empty()) throw config_error("RowSparseBatch::gather: empty batch");
        const std::size_t cols = scores[0].cols();
        for (const Eigen::Index r : union_) index_[static_cast<std::size_t>(r)] = no_entry;  // the last batch's
        union_.clear();
        bool any_lead = false;
        for (std::size_t n = 0; n < scores.size(); ++n) {
            const RowScore& s = scores[n];
            if (s.cols() != cols)
                throw config_error(detail::message("RowSparseBatch::gather: score ", n, " has ", s.cols(),
                                                   " columns, the first ", cols));
            if (s.has_lead()) {
                if (s.base() != base_ || base_ == nullptr)
                    throw config_error(detail::message("RowSparseBatch::gather: score ", n,
                                                       " has a lead term on a base other than the batch's "
                                                       "(RowSparseBatch::set_base)"));
                any_lead = true;
            }
            for (const Eigen::Index r : s.rows()) {
                const auto ri = static_cast<std::size_t>(r);
                if (ri >= index_.size()) index_.resize(std::max(ri + 1, 2 * index_.size()), no_entry);
                if (index_[ri] == no_entry) {
                    index_[ri] = 0;  // marked; numbered below
                    union_.push_back(r);
                }
            }
        }
        // Sorted union: by sorting when it is small against the rows marked, else by a scan
        // of the marks (a first step that touched every row of a large map).
        if (8 * union_.size() <= index_.size()) {
            std::sort(union_.begin(), union_.end());
        } else {
            union_.clear();
            for (std::size_t r = 0; r < index_.size(); ++r)
                if (index_[r] != no_entry) union_.push_back(static_cast<Eigen::Index>(r));
        }
        for (std::size_t i = 0; i < union_.size(); ++i) {
            if (i >= no_entry) throw budget_error(detail::message("RowSparseBatch: more than ", no_entry, " rows"));
            index_[static_cast<std::size_t>(union_[i])] = static_cast<slot_type>(i);
        }
        // The background row: the base's non-zero rows outside the union, when a score has a lead.
        background_ = false;
        if (any_lead) {
            std::size_t inside = 0;
            for (const Eigen::Index r : union_)
                if (r < base_->size() && (*base_)[r] != 0.0) ++inside;
            background_ = inside < base_nonzeros_;
        }
        const std::size_t used = union_.size() + (background_ ? 1 : 0);
        // The height follows the batches: it grows to the largest union, and shrinks (to
        // twice the union, not below the initial height) when a batch needs under a quarter
        // of it, so that one wide batch (a first step on a spread prior without a base) does
        // not make every later estimate pay for its rows. Allocates only on such changes.
        std::size_t height = std::max(height_, used);
        if (4 * used < height_) height = std::max({2 * used, initial_height_, std::size_t{1}});
        shape(scores.size(), height, cols);
        for (std::size_t n = 0; n < scores.size(); ++n) {
            Eigen::MatrixXd& m = compact_[n];
            const RowScore& s = scores[n];
            if (s.has_lead()) {
                m.bottomRows(static_cast<Eigen::Index>(height_ - used)).setZero();
                for (std::size_t i = 0; i < union_.size(); ++i)
                    for (std::size_t c = 0; c < cols; ++c)
                        m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) = s.untouched_value(union_[i], c);
                if (background_)
                    for (std::size_t c = 0; c < cols; ++c)
                        m(static_cast<Eigen::Index>(union_.size()), static_cast<Eigen::Index>(c)) =
                            0.0 + s.lead_coefficients()[c] * base_value_;
            } else {
                m.setZero();
            }
            for (std::size_t j = 0; j < s.size(); ++j) {
                const auto i = static_cast<Eigen::Index>(index_[static_cast<std::size_t>(s.rows()[j])]);
                const std::span<const double> v = s.row(j);
                for (std::size_t c = 0; c < cols; ++c) m(i, static_cast<Eigen::Index>(c)) = v[c];
            }
        }
    }

    /// The sorted union of the touched rows (row i of the compact matrices is rows()[i]).
    [[nodiscard]] std::span<const Eigen::Index> rows() const noexcept { return union_; }
    /// One H x cols matrix per score.
    [[nodiscard]] std::span<const Eigen::MatrixXd> compact() const noexcept { return compact_; }
    [[nodiscard]] std::size_t height() const noexcept { return height_; }
    /// Whether the last batch has a background row: compact row rows().size() then holds the
    /// scores of every row r outside rows() with base[r] != 0 (background_row(r) says which).
    [[nodiscard]] bool background() const noexcept { return background_; }
    /// Whether parameter row r is one of the background's rows in the last batch.
    [[nodiscard]] bool background_row(Eigen::Index r) const noexcept {
        if (!background_ || r >= base_->size() || (*base_)[r] == 0.0) return false;
        const auto ri = static_cast<std::size_t>(r);
        return ri >= index_.size() || index_[ri] == no_entry;
    }

private:
    using slot_type = std::uint32_t;
    static constexpr slot_type no_entry = std::numeric_limits<slot_type>::max();

    void shape(std::size_t batch, std::size_t height, std::size_t cols) {
        if (compact_.size() == batch && height == height_ && cols == cols_) return;
        height_ = height;
        cols_ = cols;
        compact_.assign(batch, Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(height), static_cast<Eigen::Index>(cols)));
        union_.reserve(height);
    }

    std::size_t height_ = 0;
    std::size_t initial_height_ = 0;
    std::size_t cols_ = 0;
    std::vector<Eigen::Index> union_;
    std::vector<slot_type> index_;  // parameter row -> compact row (no_entry outside the union)
    std::vector<Eigen::MatrixXd> compact_;
    const Eigen::VectorXd* base_ = nullptr;
    double base_value_ = 0.0;
    std::size_t base_nonzeros_ = 0;
    bool background_ = false;
};

}  // namespace maxent
