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
// Sparse Gaussian rows. On large grids (80 x 80 = 6400 cells) a dense S x S Gaussian would
// hold 41M entries, almost all negligible. `observe::gaussian(k, threshold)` keeps the
// entries whose unnormalised weight exp(-k d² / 2) is at least `threshold` times the row's
// largest weight (which is 1, at o = s), i.e. the cells with d² <= 2 ln(1/threshold) / k,
// and renormalises the row. Only the cells within that radius are visited. The default
// threshold 1e-12 changes no probability by more than about 1e-12 relative; threshold 0
// keeps every entry (weights that underflow to 0 are still left out).
// Example: k = 10 keeps d² <= 5, i.e. at most 21 entries per row.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
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
/// exp(-k ||c(s) - c(o)||² / 2) and normalised. Columns are sorted within each row. Throws
/// model_error naming k or the threshold if k is not finite and positive or the threshold
/// is outside [0, 1].
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

    // Build the CSR arrays directly, row after row; columns come out sorted.
    const std::size_t S = g.num_cells();
    std::vector<sparse_index> outer;
    std::vector<sparse_index> inner;
    std::vector<double> values;
    outer.reserve(S + 1);
    outer.push_back(0);
    const auto per_row = static_cast<std::size_t>(std::min<long long>((2 * reach + 1) * (2 * reach + 1), W * H));
    inner.reserve(S * per_row);
    values.reserve(S * per_row);
    for (long long y = 0; y < H; ++y) {
        for (long long x = 0; x < W; ++x) {
            const std::size_t row_begin = values.size();
            double sum = 0.0;
            for (long long dy = std::max(-reach, -y); dy <= std::min(reach, H - 1 - y); ++dy) {
                const long long rx = detail::isqrt(reach2 - dy * dy);
                for (long long dx = std::max(-rx, -x); dx <= std::min(rx, W - 1 - x); ++dx) {
                    const auto d2 = static_cast<double>(dx * dx + dy * dy);
                    const double weight = std::exp(-0.5 * k * d2);
                    if (weight == 0.0) continue;  // underflow (threshold 0, large k)
                    inner.push_back(static_cast<sparse_index>((x + dx) + (y + dy) * W));
                    values.push_back(weight);
                    sum += weight;
                }
            }
            for (std::size_t i = row_begin; i < values.size(); ++i) values[i] /= sum;  // sum >= 1 (o = s)
            outer.push_back(static_cast<sparse_index>(values.size()));
        }
    }
    const auto nnz = static_cast<Eigen::Index>(values.size());
    const Eigen::Map<const SparseMatrix> view(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(S), nnz,
                                              outer.data(), inner.data(), values.data());
    SparseMatrix m = view;
    m.makeCompressed();
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
