// maxent/model/grid_observations.hpp — the observation models of the paper's grid worlds.
//
// Paper, Section 6.1, environments i–iv, with docs/reference.md "Grid worlds". Observations are
// labelled by a std::size_t id:
//   * identity  (fully observable):  O = S, Obs(o | s) = 1 iff o = s (o = cell index);
//   * gaussian  (environments i, ii): O = S and Obs(o | s) ∝ exp(-k ||c(s) - c(o)||² / 2),
//     normalised per row, with c() the 2-D cell coordinate (Euclidean, walls ignored) and
//     k > 0 a precision. The paper's "observation variance" v is 1 / k
//     (precision_from_variance): v = 0.1 -> k = 10 (nearly exact), v = 10 -> k = 0.1
//     (nearly uniform on 5 x 5: Obs(s | s) ≈ 0.05), v = 0.2 -> k = 5;
//   * room_id   (environment iii): 4 observations, the quadrant of the cell:
//     (y < h/2, x < w/2) -> 0, (y < h/2, x >= w/2) -> 1, (y >= h/2, x < w/2) -> 2, else 3;
//     on the four-rooms map these are the rooms. Deterministic;
//   * side      (environment iv): 2 observations, x < w/2 -> 0, else 1. Deterministic.
// (Integer division: w/2 and h/2 round down for odd sizes.)
//
// Sparse Gaussian rows: `observe::gaussian(k, threshold)` keeps the entries whose
// unnormalised weight exp(-k d² / 2) is at least `threshold` times the row's largest (1, at
// o = s), i.e. the cells with d² <= 2 ln(1/threshold) / k, and renormalises the row; only
// those cells are visited. The default threshold 1e-12 changes no probability by more than
// about 1e-12 relative; 0 keeps every entry (weights that underflow to 0 are still left out).
// k = 10 keeps d² <= 5: at most 21 entries per row. Built in O(S · entries per row) time and
// memory (docs/performance.md, "Building large grid worlds").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/SparseCore>

#include "maxent/core/error.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_layout.hpp"

namespace maxent {

/// Default relative cut-off of sparse Gaussian observation rows (see the header comment).
inline constexpr double default_gaussian_threshold = 1e-12;

namespace observe {

/// Fully observable: the observation is the cell index.
struct Identity {
    friend constexpr bool operator==(const Identity&, const Identity&) = default;
};
/// Discretised Gaussian over cell coordinates with precision k (= 1 / variance).
struct Gaussian {
    double k = 1.0;
    double threshold = default_gaussian_threshold;
    friend constexpr bool operator==(const Gaussian&, const Gaussian&) = default;
};
/// The quadrant (room of the four-rooms map), 4 observations.
struct RoomId {
    friend constexpr bool operator==(const RoomId&, const RoomId&) = default;
};
/// The left or right half of the grid, 2 observations.
struct Side {
    friend constexpr bool operator==(const Side&, const Side&) = default;
};

}  // namespace observe

/// Which observation model a grid world uses; build one with observe::identity(),
/// observe::gaussian(k), observe::gaussian_variance(v), observe::room_id(), observe::side().
using ObservationSpec = std::variant<observe::Identity, observe::Gaussian, observe::RoomId, observe::Side>;

/// The Gaussian precision k = 1 / v for the paper's "observation variance" v.
/// Throws model_error naming v if v is not finite and positive.
[[nodiscard]] inline double precision_from_variance(double variance) {
    if (!std::isfinite(variance) || !(variance > 0.0))
        throw model_error(detail::message("observation variance v = ", variance,
                                          " must be finite and positive (the precision is k = 1 / v)"));
    return 1.0 / variance;
}

namespace detail {
inline void check_gaussian(double k, double threshold) {
    if (!std::isfinite(k) || !(k > 0.0))
        throw model_error(detail::message("Gaussian observation precision k = ", k, " must be finite and positive"));
    if (!std::isfinite(threshold) || !(threshold >= 0.0) || threshold > 1.0)
        throw model_error(detail::message("Gaussian observation threshold = ", threshold, " must be in [0, 1]"));
}
}  // namespace detail

namespace observe {

[[nodiscard]] inline ObservationSpec identity() { return Identity{}; }

/// Gaussian with precision k > 0 and relative cut-off threshold in [0, 1] (0 keeps every
/// entry). Throws model_error naming k or the threshold.
[[nodiscard]] inline ObservationSpec gaussian(double k, double threshold = default_gaussian_threshold) {
    maxent::detail::check_gaussian(k, threshold);
    return Gaussian{k, threshold};
}

/// Gaussian given the paper's "observation variance" v (k = 1 / v).
[[nodiscard]] inline ObservationSpec gaussian_variance(double variance,
                                                       double threshold = default_gaussian_threshold) {
    return gaussian(precision_from_variance(variance), threshold);
}

[[nodiscard]] inline ObservationSpec room_id() { return RoomId{}; }
[[nodiscard]] inline ObservationSpec side() { return Side{}; }

}  // namespace observe

/// The quadrant of cell c on a w x h grid (0 top-left, 1 top-right, 2 bottom-left,
/// 3 bottom-right; the room of the four-rooms map).
[[nodiscard]] constexpr std::size_t room_of(GridCell c, std::size_t w, std::size_t h) noexcept {
    const bool top = static_cast<std::size_t>(c.y) < h / 2;
    const bool left = static_cast<std::size_t>(c.x) < w / 2;
    return top ? (left ? 0u : 1u) : (left ? 2u : 3u);
}

/// The half of the grid of cell c: 0 left (x < w/2), 1 right.
[[nodiscard]] constexpr std::size_t side_of(GridCell c, std::size_t w) noexcept {
    return static_cast<std::size_t>(c.x) < w / 2 ? 0u : 1u;
}

/// Number of observations of a model on a w x h grid.
[[nodiscard]] inline std::size_t num_grid_observations(const ObservationSpec& spec, std::size_t w, std::size_t h) {
    struct Count {
        std::size_t cells;
        std::size_t operator()(const observe::Identity&) const { return cells; }
        std::size_t operator()(const observe::Gaussian&) const { return cells; }
        std::size_t operator()(const observe::RoomId&) const { return 4; }
        std::size_t operator()(const observe::Side&) const { return 2; }
    };
    return std::visit(Count{w * h}, spec);
}

namespace detail {

/// A deterministic observation matrix: row s has a single 1 in column obs(s).
template <class ObsOf>
SparseMatrix deterministic_observations(const GridLayout& g, std::size_t num_obs, ObsOf obs) {
    const std::size_t S = g.num_cells();
    SparseMatrix m(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(num_obs));
    m.reserve(Eigen::VectorXi::Constant(static_cast<Eigen::Index>(S), 1));
    for (std::size_t s = 0; s < S; ++s)
        m.insert(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(obs(g.cell(s)))) = 1.0;
    m.makeCompressed();
    return m;
}

/// Largest integer r with r * r <= n (n >= 0).
inline long long isqrt(long long n) {
    auto r = static_cast<long long>(std::sqrt(static_cast<double>(n)));
    while (r > 0 && r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return r;
}

}  // namespace detail

/// Obs(o | s) = [o = s] on a w x h grid (S x S identity).
[[nodiscard]] inline SparseMatrix identity_observations(std::size_t w, std::size_t h) {
    const GridLayout g(w, h);
    return detail::deterministic_observations(g, g.num_cells(), [&](GridCell c) { return g.index(c); });
}

/// The quadrant map (4 observations) on a w x h grid.
[[nodiscard]] inline SparseMatrix room_id_observations(std::size_t w, std::size_t h) {
    const GridLayout g(w, h);
    return detail::deterministic_observations(g, 4, [&](GridCell c) { return room_of(c, w, h); });
}

/// The left/right map (2 observations) on a w x h grid.
[[nodiscard]] inline SparseMatrix side_observations(std::size_t w, std::size_t h) {
    const GridLayout g(w, h);
    return detail::deterministic_observations(g, 2, [&](GridCell c) { return side_of(c, w); });
}

/// The sparse Gaussian observation matrix (S x S) on a w x h grid: row s holds the cells o
/// with ||c(s) - c(o)||² <= 2 ln(1 / threshold) / k (all cells for threshold 0), weighted
/// exp(-k ||c(s) - c(o)||² / 2) and normalised. Columns are sorted within each row.
/// Built in O(S · entries per row) time and exactly that memory: the weights depend only on
/// (|dx|, |dy|), so they are computed once per offset (the same expression, so the same
/// bits, as per entry); a first pass counts each row's entries, a second writes them straight
/// into the matrix's compressed arrays. Throws model_error naming k or the threshold if k is
/// not finite and positive or the threshold is outside [0, 1], and naming the count if the
/// matrix would hold more entries than the sparse index allows (int).
[[nodiscard]] inline SparseMatrix gaussian_observations(std::size_t w, std::size_t h, double k,
                                                        double threshold = default_gaussian_threshold) {
    detail::check_gaussian(k, threshold);
    const GridLayout g(w, h);  // validates the size
    const auto W = static_cast<long long>(w), H = static_cast<long long>(h);
    // Largest squared distance kept, capped at the grid's diameter² (so it fits any grid).
    const long long diameter2 = (W - 1) * (W - 1) + (H - 1) * (H - 1);
    long long reach2 = diameter2;
    if (threshold > 0.0) {
        const double limit = 2.0 * std::log(1.0 / threshold) / k;  // >= 0 since threshold <= 1
        if (limit < static_cast<double>(diameter2)) reach2 = static_cast<long long>(std::floor(limit));
    }
    const long long reach = detail::isqrt(reach2);

    // The neighbourhood, by offset (|dx|, |dy|) within the grid and the disc d² <= reach2:
    // the weights exp(-k d² / 2) (0 where they underflow, e.g. threshold 0 and a large k),
    // per |dy| the largest |dx| of a non-zero weight (-1 if none) and the running counts of
    // non-zero weights; rows of the disc beyond the last non-zero weight are never visited.
    const long long box_y = std::min(reach, H - 1), nx = std::min(reach, W - 1);
    const auto stride = static_cast<std::size_t>(nx + 1);
    std::vector<double> weight(static_cast<std::size_t>(box_y + 1) * stride, 0.0);
    std::vector<std::size_t> nonzero_before(static_cast<std::size_t>(box_y + 1) * (stride + 1), 0);
    std::vector<long long> half_width(static_cast<std::size_t>(box_y + 1), -1);
    long long ry = 0;  // the largest |dy| with a non-zero weight (|dy| = 0 has weight 1)
    for (long long dy = 0; dy <= box_y; ++dy) {
        const auto ady = static_cast<std::size_t>(dy);
        const long long rx = std::min(detail::isqrt(reach2 - dy * dy), nx);
        for (long long dx = 0; dx <= rx; ++dx) {
            const double wgt = std::exp(-0.5 * k * static_cast<double>(dx * dx + dy * dy));
            weight[ady * stride + static_cast<std::size_t>(dx)] = wgt;
            if (wgt != 0.0) half_width[ady] = dx;
        }
        for (std::size_t j = 0; j < stride; ++j)
            nonzero_before[ady * (stride + 1) + j + 1] =
                nonzero_before[ady * (stride + 1) + j] + (weight[ady * stride + j] != 0.0 ? 1 : 0);
        if (half_width[ady] >= 0) ry = dy;
    }
    auto dx_range = [&](long long x, std::size_t ady) {
        const long long rx = half_width[ady];
        return std::pair{std::max(-rx, -x), std::min(rx, W - 1 - x)};
    };
    // Visits the kept entries of row (x, y) in column order: f(column, weight).
    auto for_each_entry = [&](long long x, long long y, auto&& f) {
        for (long long dy = std::max(-ry, -y); dy <= std::min(ry, H - 1 - y); ++dy) {
            const auto ady = static_cast<std::size_t>(dy < 0 ? -dy : dy);
            const double* row_weights = weight.data() + ady * stride;
            const auto [first, last] = dx_range(x, ady);
            for (long long dx = first; dx <= last; ++dx) {
                const double wgt = row_weights[dx < 0 ? -dx : dx];
                if (wgt == 0.0) continue;  // underflow
                f((x + dx) + (y + dy) * W, wgt);
            }
        }
    };
    // The number of entries of row (x, y), from the running counts (O(rows of the disc)).
    auto row_count = [&](long long x, long long y) {
        std::size_t c = 0;
        for (long long dy = std::max(-ry, -y); dy <= std::min(ry, H - 1 - y); ++dy) {
            const auto ady = static_cast<std::size_t>(dy < 0 ? -dy : dy);
            const auto [first, last] = dx_range(x, ady);
            if (first > last) continue;
            const std::size_t* before = nonzero_before.data() + ady * (stride + 1);
            // |dx| in [0, last] and in [1, -first]
            c += before[static_cast<std::size_t>(last + 1)] + before[static_cast<std::size_t>(1 - first)] - before[1];
        }
        return c;
    };

    // Pass 1: the row starts.
    const std::size_t S = g.num_cells();
    const auto n = static_cast<Eigen::Index>(S);
    SparseMatrix m(n, n);  // compressed, outer index all 0
    sparse_index* outer = m.outerIndexPtr();
    std::size_t count = 0;
    for (long long y = 0; y < H; ++y)
        for (long long x = 0; x < W; ++x) {
            count += row_count(x, y);
            if (count > static_cast<std::size_t>(std::numeric_limits<sparse_index>::max()))
                throw model_error(detail::message("Gaussian observations on the ", w, " x ", h, " grid with k = ", k,
                                                  ", threshold = ", threshold, " would hold at least ", count,
                                                  " entries, more than the sparse index allows (",
                                                  std::numeric_limits<sparse_index>::max(), ")"));
            outer[y * W + x + 1] = static_cast<sparse_index>(count);
        }
    // Pass 2: the entries, normalised row by row (the sum adds the weights in column order).
    m.resizeNonZeros(static_cast<Eigen::Index>(count));
    sparse_index* inner = m.innerIndexPtr();
    double* values = m.valuePtr();
    for (long long y = 0; y < H; ++y)
        for (long long x = 0; x < W; ++x) {
            const auto begin = static_cast<std::size_t>(outer[y * W + x]);
            std::size_t i = begin;
            double sum = 0.0;
            for_each_entry(x, y, [&](long long column, double wgt) {
                inner[i] = static_cast<sparse_index>(column);
                values[i++] = wgt;
                sum += wgt;
            });
            for (std::size_t j = begin; j < i; ++j) values[j] /= sum;  // sum >= 1 (o = s)
        }
    return m;
}

/// The observation matrix of `spec` on a w x h grid (S x num_grid_observations).
[[nodiscard]] inline SparseMatrix grid_observation_matrix(const ObservationSpec& spec, std::size_t w,
                                                          std::size_t h) {
    struct Build {
        std::size_t w, h;
        SparseMatrix operator()(const observe::Identity&) const { return identity_observations(w, h); }
        SparseMatrix operator()(const observe::Gaussian& o) const {
            return gaussian_observations(w, h, o.k, o.threshold);
        }
        SparseMatrix operator()(const observe::RoomId&) const { return room_id_observations(w, h); }
        SparseMatrix operator()(const observe::Side&) const { return side_observations(w, h); }
    };
    return std::visit(Build{w, h}, spec);
}

}  // namespace maxent
