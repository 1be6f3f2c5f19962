// maxent/model/grid_world.hpp — builders of the paper's grid-world POMDPs (and custom maps).
//
// Paper, Section 6.1 (environments i–iv, deterministic and stochastic transitions), with
// docs/reference.md "Grid worlds". A grid world is a `GridPomdp`, i.e. a
// `FinitePomdp<GridCell, Move, std::size_t>` with
//   * states: the cells, state index = cell index x + y * width (y = 0 is the top row);
//   * actions: Move::up, down, left, right (indices 0..3);
//   * transitions: the chosen move happens with probability 1 - p and each of the other
//     three with p / 3 ("slip" p; p = 0 deterministic, the paper's stochastic worlds use
//     p = 0.1). A move across a wall or the border leaves the agent in place; moves with the
//     same destination add up, so a row has at most 4 non-zeros;
//   * observations: std::size_t ids given by an ObservationSpec (grid_observations.hpp);
//     the first observation o_1 uses the same matrix;
//   * μ: the point mass on the start cell, (0, 0) by default; horizon T = S by default.
//
// Usage:
//     auto m = maxent::four_rooms(6, 6, 0.1, maxent::observe::gaussian(10.0));
//     auto e = maxent::paper_environment(maxent::PaperEnvironment::four_rooms_room_id, 0.0);
//     maxent::GridLayout maze(5, 4);                  // a custom map
//     maze.add_vertical_wall(1, 0, 2);
//     auto c = maxent::make_grid_world({.layout = maze, .slip = 0.05,
//                                       .observation = maxent::observe::side()});
// The paper's "observation variance" v is the inverse of the precision k:
// observe::gaussian_variance(0.1) is observe::gaussian(precision_from_variance(0.1)), i.e. k = 10.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "maxent/model/concepts.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_layout.hpp"
#include "maxent/model/grid_observations.hpp"

namespace maxent {

/// The POMDP type of every grid world.
using GridPomdp = FinitePomdp<GridCell, Move, std::size_t>;

static_assert(require_tabular_pomdp<GridPomdp>());

/// Everything that defines a grid world.
struct GridSpec {
    /// Size and walls: GridLayout::single_room(w, h), GridLayout::four_rooms(w, h) or a
    /// custom layout.
    GridLayout layout;
    /// Slip probability p in [0, 1]: the chosen move happens with 1 - p, each other with p / 3.
    double slip = 0.0;
    /// Observation model (observe::identity(), gaussian(k), room_id(), side()).
    ObservationSpec observation = observe::Identity{};
    /// Horizon T; the number of cells when empty.
    std::optional<std::size_t> horizon = std::nullopt;
    /// The start cell (μ is the point mass on it); the paper always starts at (0, 0).
    GridCell start{0, 0};
};

namespace detail {
inline void check_slip(double slip) {
    if (!std::isfinite(slip) || !(slip >= 0.0) || slip > 1.0)
        throw model_error(detail::message("slip probability p = ", slip, " must be in [0, 1]"));
}
}  // namespace detail

/// The four S x S transition matrices (one per move, in all_moves order) of layout g with
/// slip probability p. Throws model_error naming p if p is outside [0, 1] or not finite.
[[nodiscard]] inline std::vector<SparseMatrix> grid_transition_matrices(const GridLayout& g, double slip) {
    detail::check_slip(slip);
    const std::size_t S = g.num_cells();
    const auto n = static_cast<Eigen::Index>(S);
    std::vector<SparseMatrix> P;
    P.reserve(all_moves.size());
    for (const Move chosen : all_moves) {
        SparseMatrix m(n, n);
        m.reserve(Eigen::VectorXi::Constant(n, static_cast<int>(all_moves.size())));
        for (std::size_t s = 0; s < S; ++s) {
            // Merge the (at most 4) outcomes by destination, then insert them in column order.
            std::array<std::pair<std::size_t, double>, 4> out{};
            std::size_t count = 0;
            for (const Move actual : all_moves) {
                const double p = actual == chosen ? 1.0 - slip : slip / 3.0;
                if (p == 0.0) continue;
                const std::size_t d = g.destination(s, actual);
                std::size_t k = 0;
                while (k < count && out[k].first != d) ++k;
                if (k == count) out[count++] = {d, 0.0};
                out[k].second += p;
            }
            for (std::size_t i = 1; i < count; ++i)  // insertion sort of <= 4 entries by column
                for (std::size_t j = i; j > 0 && out[j - 1].first > out[j].first; --j) std::swap(out[j - 1], out[j]);
            for (std::size_t k = 0; k < count; ++k)
                m.insert(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(out[k].first)) = out[k].second;
        }
        m.makeCompressed();
        detail::append_by_swap(P, m);
    }
    return P;
}

/// Builds the grid world of `spec`. Throws model_error naming the offending value for a slip
/// outside [0, 1], a bad Gaussian precision or threshold, a start cell outside the grid or a
/// zero horizon (bad sizes are already rejected by GridLayout).
[[nodiscard]] inline GridPomdp make_grid_world(const GridSpec& spec) {
    const GridLayout& g = spec.layout;
    const std::size_t S = g.num_cells();
    if (!g.contains(spec.start))
        throw model_error(detail::message("start cell ", spec.start, " is outside the ", g.width(), " x ", g.height(),
                                          " grid"));
    std::vector<SparseMatrix> P = grid_transition_matrices(g, spec.slip);
    std::vector<SparseMatrix> Z;
    SparseMatrix z = grid_observation_matrix(spec.observation, g.width(), g.height());
    detail::append_by_swap(Z, z);

    std::vector<GridCell> states;
    states.reserve(S);
    for (std::size_t i = 0; i < S; ++i) states.push_back(g.cell(i));
    std::vector<Move> actions(all_moves.begin(), all_moves.end());
    std::vector<std::size_t> observations(num_grid_observations(spec.observation, g.width(), g.height()));
    for (std::size_t o = 0; o < observations.size(); ++o) observations[o] = o;

    Eigen::VectorXd mu = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(S));
    mu[static_cast<Eigen::Index>(g.index(spec.start))] = 1.0;
    return GridPomdp(std::move(states), std::move(actions), std::move(observations), std::move(P), std::move(Z),
                     std::move(mu), spec.horizon.value_or(S));
}

/// An open w x h room (environment i with observe::gaussian(k) on 5 x 5).
[[nodiscard]] inline GridPomdp single_room(std::size_t w, std::size_t h, double slip = 0.0,
                                           ObservationSpec observation = observe::Identity{}) {
    return make_grid_world({.layout = GridLayout::single_room(w, h), .slip = slip, .observation = observation});
}

/// Four rooms on an even w x h grid (GridLayout::four_rooms; environments ii–iv on 6 x 6).
/// Throws model_error naming the size if w or h is odd.
[[nodiscard]] inline GridPomdp four_rooms(std::size_t w, std::size_t h, double slip = 0.0,
                                          ObservationSpec observation = observe::Identity{}) {
    return make_grid_world({.layout = GridLayout::four_rooms(w, h), .slip = slip, .observation = observation});
}

/// The environments of the paper's Section 6.1.
enum class PaperEnvironment {
    single_room_gaussian,  ///< (i)   5 x 5 single room, O = S, Gaussian observations
    four_rooms_gaussian,   ///< (ii)  6 x 6 four rooms, O = S, Gaussian observations
    four_rooms_room_id,    ///< (iii) 6 x 6 four rooms, 4 observations: the room id
    four_rooms_side,       ///< (iv)  6 x 6 four rooms, 2 observations: the left or right side
};

inline std::ostream& operator<<(std::ostream& os, PaperEnvironment e) {
    switch (e) {
        case PaperEnvironment::single_room_gaussian: return os << "(i) 5x5 single room, Gaussian observations";
        case PaperEnvironment::four_rooms_gaussian: return os << "(ii) 6x6 four rooms, Gaussian observations";
        case PaperEnvironment::four_rooms_room_id: return os << "(iii) 6x6 four rooms, room-id observations";
        case PaperEnvironment::four_rooms_side: return os << "(iv) 6x6 four rooms, left/right observations";
    }
    return os << "PaperEnvironment(" << static_cast<int>(e) << ')';
}

/// Environment i–iv of the paper with slip probability p (0 "deterministic", 0.1
/// "stochastic") and, for the Gaussian environments i and ii, the precision k = 1 / v
/// (v = the paper's "observation variance": 0.1 -> k = 10, 10 -> k = 0.1). k is required
/// for i and ii (model_error naming the environment if missing) and ignored for iii and iv.
/// Start (0, 0), horizon T = S.
[[nodiscard]] inline GridPomdp paper_environment(PaperEnvironment env, double slip = 0.0,
                                                 std::optional<double> k = std::nullopt) {
    auto precision = [&]() {
        if (!k) throw model_error(detail::message("paper environment ", env, " needs the Gaussian precision k"));
        return *k;
    };
    switch (env) {
        case PaperEnvironment::single_room_gaussian: return single_room(5, 5, slip, observe::gaussian(precision()));
        case PaperEnvironment::four_rooms_gaussian: return four_rooms(6, 6, slip, observe::gaussian(precision()));
        case PaperEnvironment::four_rooms_room_id: return four_rooms(6, 6, slip, observe::room_id());
        case PaperEnvironment::four_rooms_side: return four_rooms(6, 6, slip, observe::side());
    }
    throw model_error(detail::message("unknown paper environment ", static_cast<int>(env)));
}

}  // namespace maxent
