// maxent/optim/row_sparse_batch.hpp — a batch of row-sparse scores as compact dense
// matrices over the union of their rows (Algorithm 1, lines 5–6, for RowSparsePolicy).
//
// Given the N RowScores of one iteration (policy/row_score.hpp), `gather` forms the sorted
// union U of their rows and N dense H x A matrices, row i of which holds parameter row U[i]
// (rows i >= |U| are zero). H only grows (it starts at N · K, the most rows a batch of K-step
// trajectories can touch), so after the first iteration nothing is allocated.
//
// Why this is exact: rows outside U have a zero score in every trajectory. Every built-in
// GradientEstimator is ENTRY-WISE (`static constexpr bool entrywise = true;`: the estimate
// at a parameter depends only on the feedbacks and that parameter's N scores, and is 0 when
// they are all 0), so the estimate on the compact matrices is, entry for entry, the dense
// estimate restricted to U, and zero elsewhere. The step rule then updates θ on U
// (apply_step_rows, optim/step_rules.hpp). Cost per iteration: O(N · H · A), independent
// of the number of rows of θ.
#pragma once

#include <algorithm>
#include <cstddef>
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
    RowSparseBatch(std::size_t batch, std::size_t height, std::size_t cols) { shape(batch, height, cols); }

    /// Builds the union of the rows of `scores` and the compact matrices.
    void gather(std::span<const RowScore> scores) {
        if (scores.empty()) throw config_error("RowSparseBatch::gather: empty batch");
        const std::size_t cols = scores[0].cols();
        union_.clear();
        for (const RowScore& s : scores) {
            if (s.cols() != cols)
                throw config_error(detail::message("RowSparseBatch::gather: a score has ", s.cols(),
                                                   " columns, the first ", cols));
            union_.insert(union_.end(), s.rows().begin(), s.rows().end());
        }
        std::sort(union_.begin(), union_.end());
        union_.erase(std::unique(union_.begin(), union_.end()), union_.end());
        shape(scores.size(), std::max(height_, union_.size()), cols);
        for (std::size_t n = 0; n < scores.size(); ++n) {
            Eigen::MatrixXd& m = compact_[n];
            m.setZero();
            const RowScore& s = scores[n];
            for (std::size_t j = 0; j < s.size(); ++j) {
                const auto i = static_cast<Eigen::Index>(
                    std::lower_bound(union_.begin(), union_.end(), s.rows()[j]) - union_.begin());
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

private:
    void shape(std::size_t batch, std::size_t height, std::size_t cols) {
        if (compact_.size() == batch && height == height_ && cols == cols_) return;
        height_ = height;
        cols_ = cols;
        compact_.assign(batch, Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(height), static_cast<Eigen::Index>(cols)));
        union_.reserve(height);
    }

    std::size_t height_ = 0;
    std::size_t cols_ = 0;
    std::vector<Eigen::Index> union_;
    std::vector<Eigen::MatrixXd> compact_;
};

}  // namespace maxent
