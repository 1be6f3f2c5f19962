// Tests of model/grid_layout.hpp, model/grid_observations.hpp and model/grid_world.hpp:
// the paper's grid worlds (Section 6.1, docs/reference.md "Grid worlds") checked cell by cell
// against expectations written here independently of the library's wall bookkeeping.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/grid_world.hpp"

namespace test_grid_world {

using namespace maxent;

namespace {

// All transition and observation rows (and μ) of a model sum to 1 within 1e-12, and every
// entry is in [0, 1].
void require_stochastic(const GridPomdp& m) {
    for (std::size_t a = 0; a < m.num_actions(); ++a) {
        for (std::size_t s = 0; s < m.num_states(); ++s) {
            const SparseDistribution t = m.transition(s, a);
            double sum = 0.0;
            for (const double p : t.probability) {
                REQUIRE(p >= 0.0);
                REQUIRE(p <= 1.0);
                sum += p;
            }
            REQUIRE(std::abs(sum - 1.0) <= 1e-12);
            const SparseDistribution o = m.observation(a, s);
            sum = 0.0;
            for (const double p : o.probability) {
                REQUIRE(p >= 0.0);
                sum += p;
            }
            REQUIRE(std::abs(sum - 1.0) <= 1e-12);
        }
    }
    for (std::size_t s = 0; s < m.num_states(); ++s) {
        double sum = 0.0;
        for (const double p : m.initial_observation(s).probability) sum += p;
        REQUIRE(std::abs(sum - 1.0) <= 1e-12);
    }
    REQUIRE(std::abs(m.initial_distribution().sum() - 1.0) <= 1e-12);
}

// The 6 x 6 four rooms written out from docs/reference.md, independently of GridLayout: the set of
// blocked edges as unordered pairs of cells {(x, y), (x', y')}.
using Edge = std::pair<std::pair<int, int>, std::pair<int, int>>;
std::set<Edge> reference_four_rooms_walls() {
    std::set<Edge> walls;
    auto add = [&](int x1, int y1, int x2, int y2) {
        walls.insert({{x1, y1}, {x2, y2}});
        walls.insert({{x2, y2}, {x1, y1}});
    };
    for (int x = 1; x <= 4; ++x) add(x, 2, x, 3);  // horizontal wall between rows 2 and 3
    for (int y = 1; y <= 4; ++y) add(2, y, 3, y);  // vertical wall between columns 2 and 3
    return walls;
}

// Destination of move a (0 up, 1 down, 2 left, 3 right) from (x, y) on a w x h grid with the
// given blocked edges: the rule of docs/reference.md re-implemented.
std::pair<int, int> expected_destination(int x, int y, int a, int w, int h, const std::set<Edge>& walls) {
    const int dx[] = {0, 0, -1, 1};
    const int dy[] = {-1, 1, 0, 0};
    const int nx = x + dx[a], ny = y + dy[a];
    if (nx < 0 || ny < 0 || nx >= w || ny >= h) return {x, y};
    if (walls.count({{x, y}, {nx, ny}}) != 0) return {x, y};
    return {nx, ny};
}

// The single outcome of a deterministic row, as (x, y).
std::pair<int, int> deterministic_destination(const GridPomdp& m, int x, int y, Move move) {
    const auto s = m.state_index(GridCell{x, y});
    const SparseDistribution t = m.transition(s, move_index(move));
    REQUIRE(t.size() == 1);
    REQUIRE(t.probability[0] == 1.0);
    const GridCell c = m.state_label(static_cast<std::size_t>(t.index[0]));
    return {c.x, c.y};
}

std::size_t idx(int x, int y, int w) { return static_cast<std::size_t>(x + y * w); }

// The single observation of a deterministic observation row.
std::size_t deterministic_observation(const GridPomdp& m, int x, int y, std::size_t action = 0) {
    const SparseDistribution o = m.observation(action, m.state_index(GridCell{x, y}));
    REQUIRE(o.size() == 1);
    REQUIRE(o.probability[0] == 1.0);
    return m.observation_label(static_cast<std::size_t>(o.index[0]));
}

template <class F>
std::string error_message(F&& f) {
    try {
        f();
    } catch (const model_error& e) {
        return e.what();
    }
    return "<no model_error thrown>";
}

}  // namespace

TEST_CASE("grid cells, moves and index helpers", "[grid]") {
    STATIC_REQUIRE(TabularPomdp<GridPomdp>);
    STATIC_REQUIRE(require_tabular_pomdp<GridPomdp>());
    STATIC_REQUIRE(Hashable<GridCell>);

    const GridCell a{3, 4}, b{3, 4}, c{4, 3};
    REQUIRE(a == b);
    REQUIRE_FALSE(a == c);
    REQUIRE(a < c);  // ordered by x first
    REQUIRE(std::hash<GridCell>{}(a) == std::hash<GridCell>{}(b));
    REQUIRE(std::hash<GridCell>{}(a) != std::hash<GridCell>{}(c));
    std::ostringstream out;
    out << a << ' ' << Move::up << ' ' << Move::down << ' ' << Move::left << ' ' << Move::right;
    REQUIRE(out.str() == "(3,4) up down left right");

    REQUIRE(move_index(Move::up) == 0);
    REQUIRE(move_index(Move::down) == 1);
    REQUIRE(move_index(Move::left) == 2);
    REQUIRE(move_index(Move::right) == 3);
    REQUIRE(move_of(3) == Move::right);
    REQUIRE_THROWS_AS(move_of(4), config_error);

    // x + y * width, y = 0 the top row: on a 5-wide grid (2, 3) is 17.
    REQUIRE(cell_index(2, 3, 5) == 17);
    REQUIRE(cell_index(GridCell{4, 0}, 5) == 4);
    REQUIRE(cell_of(17, 5) == GridCell{2, 3});
    for (std::size_t i = 0; i < 35; ++i) REQUIRE(cell_index(cell_of(i, 7), 7) == i);
    REQUIRE_THROWS_AS(cell_index(5, 0, 5), config_error);
    REQUIRE_THROWS_AS(cell_index(-1, 0, 5), config_error);
    REQUIRE_THROWS_AS(cell_of(3, 0), config_error);
}

TEST_CASE("grid world labels, start and horizon", "[grid]") {
    // A non-square grid distinguishes x + y * width from y + x * height.
    const GridPomdp m = single_room(3, 2);
    REQUIRE(m.num_states() == 6);
    REQUIRE(m.num_actions() == 4);
    REQUIRE(m.num_observations() == 6);
    REQUIRE(m.horizon() == 6);  // T = S by default
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x) {
            REQUIRE(m.state_index(GridCell{x, y}) == idx(x, y, 3));
            REQUIRE(m.state_label(idx(x, y, 3)) == GridCell{x, y});
            // identity observations: the observation id is the cell index
            REQUIRE(deterministic_observation(m, x, y) == idx(x, y, 3));
        }
    REQUIRE(m.action_label(0) == Move::up);
    REQUIRE(m.action_label(1) == Move::down);
    REQUIRE(m.action_label(2) == Move::left);
    REQUIRE(m.action_label(3) == Move::right);
    REQUIRE(m.initial_distribution()[0] == 1.0);
    REQUIRE(m.initial_distribution().sum() == 1.0);
    require_stochastic(m);

    // The down move increases y; from the top-left corner, down leads to index width = 3.
    REQUIRE(deterministic_destination(m, 0, 0, Move::down) == std::pair{0, 1});
    REQUIRE(m.transition(0, move_index(Move::down)).index[0] == 3);

    const GridPomdp custom = make_grid_world({.layout = GridLayout(4, 4), .horizon = 7, .start = GridCell{2, 1}});
    REQUIRE(custom.horizon() == 7);
    REQUIRE(custom.initial_distribution()[static_cast<Eigen::Index>(idx(2, 1, 4))] == 1.0);
    REQUIRE(custom.initial_distribution().sum() == 1.0);
}

TEST_CASE("6x6 four rooms: the walls, move by move", "[grid]") {
    const GridPomdp m = four_rooms(6, 6);
    require_stochastic(m);
    REQUIRE(m.num_states() == 36);
    REQUIRE(m.horizon() == 36);

    // Specific crossings of the horizontal wall (rows 2|3, columns 1..4; open at x = 0, 5).
    CHECK(deterministic_destination(m, 1, 2, Move::down) == std::pair{1, 2});
    CHECK(deterministic_destination(m, 4, 2, Move::down) == std::pair{4, 2});
    CHECK(deterministic_destination(m, 1, 3, Move::up) == std::pair{1, 3});
    CHECK(deterministic_destination(m, 4, 3, Move::up) == std::pair{4, 3});
    CHECK(deterministic_destination(m, 0, 2, Move::down) == std::pair{0, 3});
    CHECK(deterministic_destination(m, 5, 2, Move::down) == std::pair{5, 3});
    CHECK(deterministic_destination(m, 0, 3, Move::up) == std::pair{0, 2});
    CHECK(deterministic_destination(m, 5, 3, Move::up) == std::pair{5, 2});
    // ... of the vertical wall (columns 2|3, rows 1..4; open at y = 0, 5).
    CHECK(deterministic_destination(m, 2, 1, Move::right) == std::pair{2, 1});
    CHECK(deterministic_destination(m, 2, 4, Move::right) == std::pair{2, 4});
    CHECK(deterministic_destination(m, 3, 1, Move::left) == std::pair{3, 1});
    CHECK(deterministic_destination(m, 3, 4, Move::left) == std::pair{3, 4});
    CHECK(deterministic_destination(m, 2, 0, Move::right) == std::pair{3, 0});
    CHECK(deterministic_destination(m, 2, 5, Move::right) == std::pair{3, 5});
    CHECK(deterministic_destination(m, 3, 0, Move::left) == std::pair{2, 0});
    CHECK(deterministic_destination(m, 3, 5, Move::left) == std::pair{2, 5});
    // Moves along the walls are free; the border blocks.
    CHECK(deterministic_destination(m, 2, 2, Move::left) == std::pair{1, 2});
    CHECK(deterministic_destination(m, 2, 2, Move::up) == std::pair{2, 1});
    CHECK(deterministic_destination(m, 0, 0, Move::up) == std::pair{0, 0});
    CHECK(deterministic_destination(m, 0, 0, Move::left) == std::pair{0, 0});
    CHECK(deterministic_destination(m, 5, 5, Move::right) == std::pair{5, 5});
    CHECK(deterministic_destination(m, 5, 5, Move::down) == std::pair{5, 5});

    // Every cell and every move against the independent rule.
    const auto walls = reference_four_rooms_walls();
    int blocked_by_walls = 0;
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 6; ++x)
            for (int a = 0; a < 4; ++a) {
                const auto expected = expected_destination(x, y, a, 6, 6, walls);
                const auto got = deterministic_destination(m, x, y, move_of(static_cast<std::size_t>(a)));
                INFO("cell (" << x << "," << y << ") move " << a);
                REQUIRE(got == expected);
                if (got == std::pair{x, y} && expected_destination(x, y, a, 6, 6, {}) != std::pair{x, y})
                    ++blocked_by_walls;
            }
    REQUIRE(blocked_by_walls == 16);  // 8 thin walls, each blocking two moves

    // The layout lists the same 8 walls.
    const GridLayout g = GridLayout::four_rooms(6, 6);
    const std::vector<Wall> listed = g.walls();
    REQUIRE(listed.size() == 8);
    for (const Wall& w : listed) {
        const GridCell n = neighbour(w.cell, w.side);
        REQUIRE(walls.count({{w.cell.x, w.cell.y}, {n.x, n.y}}) == 1);
    }
}

TEST_CASE("four rooms generalises to other even sizes", "[grid]") {
    // 8 x 4: horizontal wall between rows 1 and 2 for x = 1..6, vertical wall between columns
    // 3 and 4 for y = 1..2.
    std::set<Edge> walls;
    auto add = [&](int x1, int y1, int x2, int y2) {
        walls.insert({{x1, y1}, {x2, y2}});
        walls.insert({{x2, y2}, {x1, y1}});
    };
    for (int x = 1; x <= 6; ++x) add(x, 1, x, 2);
    for (int y = 1; y <= 2; ++y) add(3, y, 4, y);
    const GridPomdp m = four_rooms(8, 4, 0.0, observe::room_id());
    require_stochastic(m);
    REQUIRE(GridLayout::four_rooms(8, 4).walls().size() == 8);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 8; ++x)
            for (int a = 0; a < 4; ++a)
                REQUIRE(deterministic_destination(m, x, y, move_of(static_cast<std::size_t>(a))) ==
                        expected_destination(x, y, a, 8, 4, walls));
    // 2 x 2 four rooms has no interior walls.
    REQUIRE(GridLayout::four_rooms(2, 2).walls().empty());
    // The rule reproduces the 6 x 6 map exactly.
    GridLayout by_hand(6, 6);
    by_hand.add_horizontal_wall(2, 1, 4).add_vertical_wall(2, 1, 4);
    REQUIRE(by_hand == GridLayout::four_rooms(6, 6));
}

TEST_CASE("stochastic rows: 1 - p for the chosen move, p / 3 for each other, merged", "[grid]") {
    const double p = 0.1;
    const GridPomdp m = four_rooms(6, 6, p);
    require_stochastic(m);
    auto prob = [&](int x, int y, Move a, int nx, int ny) {
        return m.transition_probability(idx(x, y, 6), move_index(a), idx(nx, ny, 6));
    };
    auto nnz = [&](int x, int y, Move a) { return m.transition(idx(x, y, 6), move_index(a)).size(); };

    // Interior cell of a room: four distinct destinations.
    CHECK(nnz(1, 1, Move::right) == 4);
    CHECK(prob(1, 1, Move::right, 2, 1) == Approx(0.9).margin(1e-15));
    CHECK(prob(1, 1, Move::right, 1, 0) == Approx(p / 3).margin(1e-15));
    CHECK(prob(1, 1, Move::right, 1, 2) == Approx(p / 3).margin(1e-15));
    CHECK(prob(1, 1, Move::right, 0, 1) == Approx(p / 3).margin(1e-15));
    // Corner (0, 0), up: up and left both stay.
    CHECK(nnz(0, 0, Move::up) == 3);
    CHECK(prob(0, 0, Move::up, 0, 0) == Approx(0.9 + p / 3).margin(1e-15));
    CHECK(prob(0, 0, Move::up, 0, 1) == Approx(p / 3).margin(1e-15));
    CHECK(prob(0, 0, Move::up, 1, 0) == Approx(p / 3).margin(1e-15));
    // Corner (0, 0), down: the two failed moves that stay merge.
    CHECK(prob(0, 0, Move::down, 0, 1) == Approx(0.9).margin(1e-15));
    CHECK(prob(0, 0, Move::down, 0, 0) == Approx(2 * p / 3).margin(1e-15));
    CHECK(prob(0, 0, Move::down, 1, 0) == Approx(p / 3).margin(1e-15));
    // Against the wall: (2, 1) right is blocked, so the chosen move stays.
    CHECK(nnz(2, 1, Move::right) == 4);
    CHECK(prob(2, 1, Move::right, 2, 1) == Approx(0.9).margin(1e-15));
    CHECK(prob(2, 1, Move::right, 3, 1) == 0.0);
    CHECK(prob(2, 1, Move::right, 1, 1) == Approx(p / 3).margin(1e-15));
    // (2, 2) sits in the corner of two walls: right and down both stay.
    CHECK(prob(2, 2, Move::left, 1, 2) == Approx(0.9).margin(1e-15));
    CHECK(prob(2, 2, Move::left, 2, 2) == Approx(2 * p / 3).margin(1e-15));
    CHECK(prob(2, 2, Move::left, 2, 1) == Approx(p / 3).margin(1e-15));

    // Every row against an independent construction.
    const auto walls = reference_four_rooms_walls();
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 6; ++x)
            for (int a = 0; a < 4; ++a) {
                std::map<std::size_t, double> expected;
                for (int actual = 0; actual < 4; ++actual) {
                    const auto [nx, ny] = expected_destination(x, y, actual, 6, 6, walls);
                    expected[idx(nx, ny, 6)] += actual == a ? 1.0 - p : p / 3.0;
                }
                const SparseDistribution row = m.transition(idx(x, y, 6), static_cast<std::size_t>(a));
                REQUIRE(row.size() == expected.size());
                for (const auto& [s2, q] : expected)
                    REQUIRE(row(s2) == Approx(q).margin(1e-15));
            }

    // p = 1: the chosen move never happens.
    const GridPomdp always_slip = single_room(3, 3, 1.0);
    require_stochastic(always_slip);
    const SparseDistribution row = always_slip.transition(idx(1, 1, 3), move_index(Move::up));
    REQUIRE(row.size() == 3);
    REQUIRE(row(idx(1, 0, 3)) == 0.0);
    REQUIRE(row(idx(1, 2, 3)) == Approx(1.0 / 3).margin(1e-15));
}

TEST_CASE("Gaussian observations: hand-computed values", "[grid]") {
    for (const double k : {0.1, 1.0, 3.0, 10.0}) {
        // 2 x 1: Obs(0 | 0) = 1 / (1 + e^{-k/2}).
        const GridPomdp m = single_room(2, 1, 0.0, observe::gaussian(k));
        require_stochastic(m);
        const double e = std::exp(-k / 2);
        REQUIRE(m.observation_probability(0, 0, 0) == Approx(1.0 / (1.0 + e)).epsilon(1e-14));
        REQUIRE(m.observation_probability(0, 0, 1) == Approx(e / (1.0 + e)).epsilon(1e-14));
        REQUIRE(m.observation_probability(3, 1, 1) == Approx(1.0 / (1.0 + e)).epsilon(1e-14));
        // 2 x 2, from (0, 0): weights 1, e^{-k/2} (x2), e^{-k} (diagonal, d² = 2).
        const GridPomdp sq = single_room(2, 2, 0.0, observe::gaussian(k));
        const double z = 1.0 + 2 * e + std::exp(-k);
        REQUIRE(sq.observation_probability(0, 0, 0) == Approx(1.0 / z).epsilon(1e-14));
        REQUIRE(sq.observation_probability(0, 0, 1) == Approx(e / z).epsilon(1e-14));
        REQUIRE(sq.observation_probability(0, 0, 2) == Approx(e / z).epsilon(1e-14));
        REQUIRE(sq.observation_probability(0, 0, 3) == Approx(std::exp(-k) / z).epsilon(1e-14));
    }
}

TEST_CASE("Gaussian observations on 5x5: variance 10 is nearly uniform, 0.1 nearly exact", "[grid]") {
    const GridPomdp flat = single_room(5, 5, 0.0, observe::gaussian(0.1));
    const GridPomdp sharp = single_room(5, 5, 0.0, observe::gaussian(10.0));
    require_stochastic(flat);
    require_stochastic(sharp);
    for (std::size_t s = 0; s < 25; ++s) {
        INFO("state " << s);
        const double f = flat.observation_probability(0, s, s);
        CHECK(f > 0.04);
        CHECK(f < 0.08);
        CHECK(flat.observation(0, s).size() == 25);  // nothing dropped at k = 0.1
        CHECK(sharp.observation_probability(0, s, s) > 0.95);
        // Observation rows ignore the action.
        for (std::size_t a = 1; a < 4; ++a) CHECK(flat.observation_probability(a, s, s) == f);
    }
    // The centre: Obs(s | s) = 1 / (Σ_{dx=-2..2} e^{-0.05 dx²})².
    double z1 = 0.0;
    for (int d = -2; d <= 2; ++d) z1 += std::exp(-0.05 * d * d);
    CHECK(flat.observation_probability(0, idx(2, 2, 5), idx(2, 2, 5)) == Approx(1.0 / (z1 * z1)).epsilon(1e-13));

    // The paper's variance maps to the precision k = 1 / v.
    CHECK(precision_from_variance(0.1) == Approx(10.0).epsilon(1e-15));
    CHECK(precision_from_variance(10.0) == Approx(0.1).epsilon(1e-15));
    CHECK(precision_from_variance(0.2) == Approx(5.0).epsilon(1e-15));
    const GridPomdp by_variance = single_room(5, 5, 0.0, observe::gaussian_variance(10.0));
    for (std::size_t s = 0; s < 25; ++s)
        for (std::size_t o = 0; o < 25; ++o)
            REQUIRE(by_variance.observation_probability(0, s, o) ==
                    Approx(flat.observation_probability(0, s, o)).epsilon(1e-14));
}

TEST_CASE("room-id and side observations", "[grid]") {
    const GridPomdp rooms = four_rooms(6, 6, 0.0, observe::room_id());
    const GridPomdp sides = four_rooms(6, 6, 0.1, observe::side());
    require_stochastic(rooms);
    require_stochastic(sides);
    REQUIRE(rooms.num_observations() == 4);
    REQUIRE(sides.num_observations() == 2);
    CHECK(deterministic_observation(rooms, 0, 0) == 0);
    CHECK(deterministic_observation(rooms, 2, 2) == 0);
    CHECK(deterministic_observation(rooms, 3, 0) == 1);
    CHECK(deterministic_observation(rooms, 5, 2, 3) == 1);
    CHECK(deterministic_observation(rooms, 0, 3) == 2);
    CHECK(deterministic_observation(rooms, 2, 5, 1) == 2);
    CHECK(deterministic_observation(rooms, 3, 3) == 3);
    CHECK(deterministic_observation(rooms, 5, 5, 2) == 3);
    for (int y = 0; y < 6; ++y) {
        CHECK(deterministic_observation(sides, 0, y) == 0);
        CHECK(deterministic_observation(sides, 2, y) == 0);
        CHECK(deterministic_observation(sides, 3, y) == 1);
        CHECK(deterministic_observation(sides, 5, y, 3) == 1);
    }
    // Each room holds 9 cells; each side 18.
    std::vector<int> per_room(4, 0), per_side(2, 0);
    for (std::size_t s = 0; s < 36; ++s) {
        const GridCell c = rooms.state_label(s);
        ++per_room[deterministic_observation(rooms, c.x, c.y)];
        ++per_side[deterministic_observation(sides, c.x, c.y)];
    }
    CHECK(per_room == std::vector<int>{9, 9, 9, 9});
    CHECK(per_side == std::vector<int>{18, 18});
    // The likelihood column of room 1 lists exactly its 9 cells.
    const SparseDistribution col = rooms.likelihood(0, 1);
    REQUIRE(col.size() == 9);
    for (const auto s : col.index) {
        const GridCell c = rooms.state_label(static_cast<std::size_t>(s));
        CHECK(c.x >= 3);
        CHECK(c.y < 3);
    }
}

TEST_CASE("paper environments i-iv", "[grid]") {
    for (const double p : {0.0, 0.1}) {
        const GridPomdp i = paper_environment(PaperEnvironment::single_room_gaussian, p, 10.0);
        const GridPomdp ii = paper_environment(PaperEnvironment::four_rooms_gaussian, p, 0.1);
        const GridPomdp iii = paper_environment(PaperEnvironment::four_rooms_room_id, p);
        const GridPomdp iv = paper_environment(PaperEnvironment::four_rooms_side, p);
        for (const GridPomdp* m : {&i, &ii, &iii, &iv}) {
            require_stochastic(*m);
            REQUIRE(m->horizon() == m->num_states());
            REQUIRE(m->initial_distribution()[0] == 1.0);
        }
        REQUIRE(i.num_states() == 25);
        REQUIRE(i.num_observations() == 25);
        REQUIRE(ii.num_states() == 36);
        REQUIRE(ii.num_observations() == 36);
        REQUIRE(iii.num_observations() == 4);
        REQUIRE(iv.num_observations() == 2);
        // ii, iii and iv share the four-rooms dynamics.
        for (std::size_t a = 0; a < 4; ++a)
            for (std::size_t s = 0; s < 36; ++s)
                for (std::size_t s2 = 0; s2 < 36; ++s2) {
                    REQUIRE(ii.transition_probability(s, a, s2) == iii.transition_probability(s, a, s2));
                    REQUIRE(ii.transition_probability(s, a, s2) == iv.transition_probability(s, a, s2));
                }
        // (1, 2) down: blocked by the wall; stays with 1 - p (+ nothing else stays).
        REQUIRE(ii.transition_probability(idx(1, 2, 6), 1, idx(1, 2, 6)) == Approx(1.0 - p).margin(1e-15));
    }
    const std::string msg = error_message([] { (void)paper_environment(PaperEnvironment::four_rooms_gaussian); });
    REQUIRE(msg.find("(ii)") != std::string::npos);
    REQUIRE(msg.find("precision k") != std::string::npos);
}

TEST_CASE("sparse Gaussian rows on an 80x80 grid", "[grid]") {
    const double k = 10.0;  // keeps d² <= 2 ln(1e12) / 10 = 5.53, i.e. d² in {0, 1, 2, 4, 5}
    const GridPomdp m = single_room(80, 80, 0.1, observe::gaussian(k));
    REQUIRE(m.num_states() == 6400);
    REQUIRE(m.num_observations() == 6400);
    REQUIRE(m.horizon() == 6400);
    const SparseMatrix& Z = m.observation_matrix(0);
    // Lattice points with d² <= 5: 1 + 4 + 4 + 4 + 8 = 21 (interior); 8 in a corner.
    REQUIRE(Z.nonZeros() < 21 * 6400);
    std::size_t max_row = 0;
    for (std::size_t s = 0; s < 6400; ++s) max_row = std::max(max_row, m.observation(0, s).size());
    REQUIRE(max_row == 21);
    REQUIRE(m.observation(0, idx(40, 40, 80)).size() == 21);
    REQUIRE(m.observation(0, idx(0, 0, 80)).size() == 8);
    REQUIRE(m.observation(0, idx(79, 0, 80)).size() == 8);
    const double z = 1 + 4 * std::exp(-k / 2) + 4 * std::exp(-k) + 4 * std::exp(-2 * k) + 8 * std::exp(-2.5 * k);
    REQUIRE(m.observation_probability(0, idx(40, 40, 80), idx(40, 40, 80)) == Approx(1.0 / z).epsilon(1e-14));
    REQUIRE(m.observation_probability(0, idx(40, 40, 80), idx(42, 41, 80)) ==
            Approx(std::exp(-2.5 * k) / z).epsilon(1e-12));
    REQUIRE(m.observation_probability(0, idx(40, 40, 80), idx(42, 42, 80)) == 0.0);  // d² = 8: dropped
    for (std::size_t s = 0; s < 6400; ++s) {
        double sum = 0.0;
        for (const double p : m.observation(0, s).probability) sum += p;
        REQUIRE(std::abs(sum - 1.0) <= 1e-12);
        sum = 0.0;
        for (const double p : m.transition(s, 2).probability) sum += p;
        REQUIRE(std::abs(sum - 1.0) <= 1e-12);
    }
}

TEST_CASE("Gaussian threshold keeps exactly the entries above it, renormalised", "[grid]") {
    // Brute force over all pairs on 7 x 6 with k = 1 and threshold 1e-3 (keeps d² <= 13.8).
    const std::size_t w = 7, h = 6;
    const double k = 1.0, threshold = 1e-3;
    const SparseMatrix Z = gaussian_observations(w, h, k, threshold);
    const Eigen::MatrixXd dense = Eigen::MatrixXd(Z);
    for (std::size_t s = 0; s < w * h; ++s) {
        const GridCell cs = cell_of(s, w);
        double kept_sum = 0.0;
        std::vector<double> weight(w * h);
        for (std::size_t o = 0; o < w * h; ++o) {
            const GridCell co = cell_of(o, w);
            const double d2 = std::pow(cs.x - co.x, 2) + std::pow(cs.y - co.y, 2);
            weight[o] = std::exp(-k * d2 / 2);  // the row maximum is 1 (o = s)
            if (weight[o] >= threshold) kept_sum += weight[o];
        }
        for (std::size_t o = 0; o < w * h; ++o) {
            const double got = dense(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(o));
            if (weight[o] >= threshold)
                REQUIRE(got == Approx(weight[o] / kept_sum).epsilon(1e-13));
            else
                REQUIRE(got == 0.0);
        }
    }
    // Threshold 0 keeps every entry; threshold 1 keeps only o = s.
    const SparseMatrix all = gaussian_observations(4, 4, 10.0, 0.0);
    REQUIRE(all.nonZeros() == 16 * 16);
    const SparseMatrix self = gaussian_observations(4, 4, 0.5, 1.0);
    REQUIRE(self.nonZeros() == 16);
    for (Eigen::Index s = 0; s < 16; ++s) REQUIRE(self.coeff(s, s) == 1.0);
}

TEST_CASE("custom layouts", "[grid]") {
    // A 3 x 2 grid with a wall right of (0, 0) and a wall below (2, 0).
    const GridLayout g(3, 2, {Wall{{0, 0}, Move::right}, Wall{{2, 1}, Move::up}});
    REQUIRE(g.has_wall({0, 0}, Move::right));
    REQUIRE(g.has_wall({1, 0}, Move::left));  // walls block both ways
    REQUIRE(g.has_wall({2, 0}, Move::down));
    REQUIRE_FALSE(g.has_wall({0, 0}, Move::up));  // the border is not a wall ...
    REQUIRE(g.blocked({0, 0}, Move::up));          // ... but it blocks
    REQUIRE(g.walls() == std::vector<Wall>{Wall{{0, 0}, Move::right}, Wall{{2, 0}, Move::down}});

    const GridPomdp m = make_grid_world({.layout = g, .slip = 0.0, .observation = observe::side()});
    require_stochastic(m);
    CHECK(deterministic_destination(m, 0, 0, Move::right) == std::pair{0, 0});
    CHECK(deterministic_destination(m, 1, 0, Move::left) == std::pair{1, 0});
    CHECK(deterministic_destination(m, 2, 0, Move::down) == std::pair{2, 0});
    CHECK(deterministic_destination(m, 2, 1, Move::up) == std::pair{2, 1});
    CHECK(deterministic_destination(m, 1, 0, Move::down) == std::pair{1, 1});
    CHECK(deterministic_destination(m, 0, 1, Move::right) == std::pair{1, 1});

    // Walls on the border or outside the grid are rejected.
    GridLayout bad(3, 2);
    CHECK_THROWS_AS(bad.add_wall({2, 0}, Move::right), model_error);
    CHECK_THROWS_AS(bad.add_wall({3, 0}, Move::left), model_error);
    CHECK_THROWS_AS(bad.add_horizontal_wall(1, 0, 2), model_error);  // below the last row
}

TEST_CASE("ASCII rendering of layouts", "[grid]") {
    const std::string expected =
        "+-----------+\n"
        "|. . . . . .|\n"
        "|     |     |\n"
        "|. . .|. . .|\n"
        "|     |     |\n"
        "|. . .|. . .|\n"
        "| ----+---- |\n"
        "|. . .|. . .|\n"
        "|     |     |\n"
        "|. . .|. . .|\n"
        "|     |     |\n"
        "|. . . . . .|\n"
        "+-----------+\n";
    REQUIRE(render_ascii(GridLayout::four_rooms(6, 6)) == expected);
    REQUIRE(render_ascii(GridLayout(2, 1)) == "+---+\n|. .|\n+---+\n");
    const GridLayout g(3, 2, {Wall{{0, 0}, Move::right}});
    REQUIRE(render_ascii(g, [](GridCell c) { return c == GridCell{0, 0} ? 'S' : '.'; }) ==
            "+-+---+\n"  // '+' where the wall meets the border
            "|S|. .|\n"
            "| |   |\n"
            "|. . .|\n"
            "+-----+\n");
}

TEST_CASE("grid builders reject bad input with messages naming the value", "[grid]") {
    std::string msg = error_message([] { (void)four_rooms(5, 6); });
    CHECK(msg.find("5 x 6") != std::string::npos);
    msg = error_message([] { (void)GridLayout::four_rooms(6, 7); });
    CHECK(msg.find("6 x 7") != std::string::npos);

    msg = error_message([] { (void)single_room(0, 4); });
    CHECK(msg.find("width") != std::string::npos);
    CHECK(msg.find("0 x 4") != std::string::npos);
    msg = error_message([] { (void)single_room(4, 0); });
    CHECK(msg.find("height") != std::string::npos);

    msg = error_message([] { (void)observe::gaussian(0.0); });
    CHECK(msg.find("k = 0") != std::string::npos);
    msg = error_message([] { (void)observe::gaussian(-2.5); });
    CHECK(msg.find("k = -2.5") != std::string::npos);
    msg = error_message([] { (void)observe::gaussian(std::nan("")); });
    CHECK(msg.find("k = nan") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(3, 3, -1.0); });
    CHECK(msg.find("k = -1") != std::string::npos);
    // A spec built by hand (bypassing observe::gaussian) is checked when the world is built.
    msg = error_message([] { (void)single_room(3, 3, 0.0, observe::Gaussian{-4.0, 1e-12}); });
    CHECK(msg.find("k = -4") != std::string::npos);
    msg = error_message([] { (void)observe::gaussian(1.0, -0.5); });
    CHECK(msg.find("threshold = -0.5") != std::string::npos);
    msg = error_message([] { (void)precision_from_variance(0.0); });
    CHECK(msg.find("v = 0") != std::string::npos);

    msg = error_message([] { (void)single_room(3, 3, 1.5); });
    CHECK(msg.find("p = 1.5") != std::string::npos);
    msg = error_message([] { (void)four_rooms(6, 6, -0.25); });
    CHECK(msg.find("p = -0.25") != std::string::npos);
    msg = error_message([] { (void)four_rooms(6, 6, std::nan("")); });
    CHECK(msg.find("p = nan") != std::string::npos);

    msg = error_message([] { (void)make_grid_world({.layout = GridLayout(3, 3), .start = GridCell{3, 0}}); });
    CHECK(msg.find("(3,0)") != std::string::npos);
    msg = error_message([] { (void)make_grid_world({.layout = GridLayout(3, 3), .horizon = 0}); });
    CHECK(msg.find("horizon") != std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Construction in O(S · neighbourhood): the same bits as the construction it
// replaced, kept here as the reference (commit 40b2425's gaussian_observations, verbatim
// but for its name).
// ---------------------------------------------------------------------------------------

namespace {

SparseMatrix reference_gaussian_observations(std::size_t w, std::size_t h, double k, double threshold) {
    const GridLayout g(w, h);
    const auto W = static_cast<long long>(w), H = static_cast<long long>(h);
    const long long diameter2 = (W - 1) * (W - 1) + (H - 1) * (H - 1);
    long long reach2 = diameter2;
    if (threshold > 0.0) {
        const double limit = 2.0 * std::log(1.0 / threshold) / k;
        if (limit < static_cast<double>(diameter2)) reach2 = static_cast<long long>(std::floor(limit));
    }
    const long long reach = detail::isqrt(reach2);
    const std::size_t S = g.num_cells();
    std::vector<sparse_index> outer;
    std::vector<sparse_index> inner;
    std::vector<double> values;
    outer.push_back(0);
    for (long long y = 0; y < H; ++y) {
        for (long long x = 0; x < W; ++x) {
            const std::size_t row_begin = values.size();
            double sum = 0.0;
            for (long long dy = std::max(-reach, -y); dy <= std::min(reach, H - 1 - y); ++dy) {
                const long long rx = detail::isqrt(reach2 - dy * dy);
                for (long long dx = std::max(-rx, -x); dx <= std::min(rx, W - 1 - x); ++dx) {
                    const auto d2 = static_cast<double>(dx * dx + dy * dy);
                    const double weight = std::exp(-0.5 * k * d2);
                    if (weight == 0.0) continue;
                    inner.push_back(static_cast<sparse_index>((x + dx) + (y + dy) * W));
                    values.push_back(weight);
                    sum += weight;
                }
            }
            for (std::size_t i = row_begin; i < values.size(); ++i) values[i] /= sum;
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

/// Same shape, same sparsity pattern and the same bits in every stored value (== on the
/// doubles, and on their bit patterns so that -0.0 and 0.0 would differ).
bool same_bits(const SparseMatrix& a, const SparseMatrix& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || a.nonZeros() != b.nonZeros()) return false;
    if (!a.isCompressed() || !b.isCompressed()) return false;
    for (Eigen::Index r = 0; r <= a.outerSize(); ++r)
        if (a.outerIndexPtr()[r] != b.outerIndexPtr()[r]) return false;
    for (Eigen::Index i = 0; i < a.nonZeros(); ++i) {
        if (a.innerIndexPtr()[i] != b.innerIndexPtr()[i]) return false;
        if (!(a.valuePtr()[i] == b.valuePtr()[i])) return false;
        if (std::memcmp(a.valuePtr() + i, b.valuePtr() + i, sizeof(double)) != 0) return false;
    }
    return true;
}

/// Running sums of each row, added left to right (what FinitePomdp stores for sampling).
std::vector<double> reference_running_sums(const SparseMatrix& m) {
    std::vector<double> out;
    for (Eigen::Index r = 0; r < m.outerSize(); ++r) {
        double c = 0.0;
        for (auto i = m.outerIndexPtr()[r]; i < m.outerIndexPtr()[r + 1]; ++i) out.push_back(c += m.valuePtr()[i]);
    }
    return out;
}

/// Every stored matrix and running sum of a grid world against references built here.
void check_model_bits(const GridPomdp& m, const std::vector<SparseMatrix>& P, const SparseMatrix& Z) {
    REQUIRE(same_bits(m.observation_matrix(0), Z));
    REQUIRE(same_bits(m.initial_observation_matrix(), Z));
    const SparseMatrix Zt = Z.transpose();
    for (std::size_t o = 0; o < m.num_observations(); ++o) {
        const SparseDistribution col = m.likelihood(0, o);
        const auto begin = Zt.outerIndexPtr()[o];
        REQUIRE(col.size() == static_cast<std::size_t>(Zt.outerIndexPtr()[o + 1] - begin));
        for (std::size_t i = 0; i < col.size(); ++i) {
            REQUIRE(col.index[i] == Zt.innerIndexPtr()[begin + static_cast<Eigen::Index>(i)]);
            REQUIRE(col.probability[i] == Zt.valuePtr()[begin + static_cast<Eigen::Index>(i)]);
        }
    }
    const std::vector<double> z_sums = reference_running_sums(Z);
    for (std::size_t a = 0; a < m.num_actions(); ++a) {
        REQUIRE(same_bits(m.transition_matrix(a), P[a]));
        REQUIRE(same_bits(m.transition_matrix_transposed(a), SparseMatrix(P[a].transpose())));
        const std::vector<double> p_sums = reference_running_sums(P[a]);
        for (std::size_t s = 0; s < m.num_states(); ++s) {
            const SparseDistribution t = m.transition(s, a);
            const auto tb = static_cast<std::size_t>(P[a].outerIndexPtr()[s]);
            for (std::size_t i = 0; i < t.size(); ++i) REQUIRE(t.cumulative[i] == p_sums[tb + i]);
        }
    }
    for (std::size_t s = 0; s < m.num_states(); ++s) {
        const SparseDistribution o1 = m.initial_observation(s);
        const SparseDistribution o = m.observation(0, s);
        const auto zb = static_cast<std::size_t>(Z.outerIndexPtr()[s]);
        REQUIRE(o1.size() == o.size());
        for (std::size_t i = 0; i < o.size(); ++i) {
            REQUIRE(o.cumulative[i] == z_sums[zb + i]);
            REQUIRE(o1.cumulative[i] == z_sums[zb + i]);
            REQUIRE(o1.index[i] == o.index[i]);
        }
    }
}

}  // namespace

TEST_CASE("Gaussian observations: the same bits as the reference construction", "[grid][construction]") {
    struct Case {
        std::size_t w, h;
        double k, threshold;
    };
    std::vector<Case> cases;
    // The paper's grids (5 x 5 and 6 x 6 with k = 10, 5, 0.1) and the benchmarks' rooms.
    for (const double k : {0.1, 0.2, 1.0, 5.0, 10.0})
        for (const std::size_t side : {1u, 2u, 3u, 4u, 5u, 6u, 12u})
            cases.push_back({side, side, k, default_gaussian_threshold});
    for (const std::size_t side : {20u, 40u, 80u}) cases.push_back({side, side, 10.0, default_gaussian_threshold});
    cases.push_back({40, 40, 1.0, default_gaussian_threshold});
    cases.push_back({20, 20, 0.1, default_gaussian_threshold});
    // Rectangles, thresholds that cut, keep everything (0) or keep only o = s (1), weights
    // that underflow to 0 (threshold 0 with a large k), a threshold below the smallest
    // double's exponent range.
    cases.push_back({7, 3, 1.0, default_gaussian_threshold});
    cases.push_back({3, 17, 0.5, 1e-3});
    cases.push_back({1, 9, 2.0, default_gaussian_threshold});
    cases.push_back({9, 1, 2.0, 0.0});
    cases.push_back({8, 8, 0.3, 0.0});
    cases.push_back({12, 10, 1000.0, 0.0});
    cases.push_back({30, 30, 40.0, 0.0});
    cases.push_back({6, 6, 10.0, 1.0});
    cases.push_back({10, 10, 0.05, 1e-300});
    cases.push_back({11, 13, 3.0, 0.25});
    for (const Case& c : cases) {
        INFO(c.w << " x " << c.h << ", k = " << c.k << ", threshold = " << c.threshold);
        const SparseMatrix fast = gaussian_observations(c.w, c.h, c.k, c.threshold);
        const SparseMatrix reference = reference_gaussian_observations(c.w, c.h, c.k, c.threshold);
        CHECK(fast.isCompressed());
        CHECK(same_bits(fast, reference));
    }
}

TEST_CASE("grid worlds: every stored matrix and running sum as built from the references", "[grid][construction]") {
    GridLayout maze(7, 5);
    maze.add_vertical_wall(1, 0, 2).add_horizontal_wall(2, 3, 6).add_wall({4, 0}, Move::right);
    const std::vector<GridLayout> layouts = {GridLayout::single_room(5, 5), GridLayout::four_rooms(6, 6),
                                             GridLayout::four_rooms(10, 8), maze};
    for (const GridLayout& layout : layouts) {
        for (const double slip : {0.0, 0.1}) {
            const std::vector<SparseMatrix> P = grid_transition_matrices(layout, slip);
            const std::size_t w = layout.width(), h = layout.height();
            const std::vector<std::pair<ObservationSpec, SparseMatrix>> specs = {
                {observe::gaussian(10.0), reference_gaussian_observations(w, h, 10.0, default_gaussian_threshold)},
                {observe::gaussian(0.1), reference_gaussian_observations(w, h, 0.1, default_gaussian_threshold)},
                {observe::gaussian_variance(0.2), reference_gaussian_observations(w, h, 5.0, default_gaussian_threshold)},
                {observe::identity(), identity_observations(w, h)},
                {observe::room_id(), room_id_observations(w, h)},
                {observe::side(), side_observations(w, h)}};
            for (const auto& [spec, Z] : specs) {
                INFO(w << " x " << h << ", slip " << slip << ", " << Z.cols() << " observations");
                const GridPomdp m = make_grid_world({.layout = layout, .slip = slip, .observation = spec});
                check_model_bits(m, P, Z);
            }
        }
    }
    // The paper's environments i-iv as the paper runner builds them.
    for (const double slip : {0.0, 0.1}) {
        check_model_bits(paper_environment(PaperEnvironment::single_room_gaussian, slip, 10.0),
                         grid_transition_matrices(GridLayout::single_room(5, 5), slip),
                         reference_gaussian_observations(5, 5, 10.0, default_gaussian_threshold));
        check_model_bits(paper_environment(PaperEnvironment::four_rooms_gaussian, slip, 0.1),
                         grid_transition_matrices(GridLayout::four_rooms(6, 6), slip),
                         reference_gaussian_observations(6, 6, 0.1, default_gaussian_threshold));
    }
}

TEST_CASE("a 200 x 200 room is built in O(S · neighbourhood)", "[grid][construction]") {
    // 40,000 cells, at most 21 observation entries per row for k = 10: the model holds
    // O(S) entries (a dense observation matrix would hold 1.6 billion).
    const GridPomdp m = single_room(200, 200, 0.1, observe::gaussian(10.0));
    REQUIRE(m.num_states() == 40000);
    const SparseMatrix& Z = m.observation_matrix(0);
    CHECK(Z.nonZeros() == 831220);  // the cells (x, y) + (dx, dy) inside the grid with dx² + dy² <= 5, counted
    CHECK(m.observation(0, m.state_index({100, 100})).size() == 21);
    CHECK(m.observation(0, m.state_index({0, 0})).size() == 8);
    CHECK(&m.initial_observation_matrix() == &m.observation_matrix(0));  // shared, not copied
    for (std::size_t a = 0; a < 4; ++a) CHECK(m.transition_matrix(a).nonZeros() <= 4 * 40000);
}

TEST_CASE("action-dependent observations: the uniform first observation, built sparse", "[grid][construction]") {
    // Two states, two actions, three observations, one observation matrix per action: o_1 is
    // uniform over O unless set, with the bits of 1.0 / O (what to_sparse of the dense
    // constant matrix gave).
    const Eigen::MatrixXd P = Eigen::MatrixXd::Identity(2, 2);
    Eigen::MatrixXd Z0(2, 3), Z1(2, 3);
    Z0 << 1, 0, 0, 0, 0.5, 0.5;
    Z1 << 0, 1, 0, 0.25, 0, 0.75;
    const FinitePomdp<int, int, int> m({0, 1}, {0, 1}, {0, 1, 2}, std::vector<Eigen::MatrixXd>{P, P},
                                       std::vector<Eigen::MatrixXd>{Z0, Z1}, Eigen::Vector2d(1.0, 0.0), 3);
    const SparseMatrix uniform = to_sparse(Eigen::MatrixXd::Constant(2, 3, 1.0 / 3.0));
    CHECK(same_bits(m.initial_observation_matrix(), uniform));
    const SparseDistribution o1 = m.initial_observation(1);
    REQUIRE(o1.size() == 3);
    CHECK(o1.cumulative[0] == 1.0 / 3.0);
    CHECK(o1.cumulative[1] == 1.0 / 3.0 + 1.0 / 3.0);
    CHECK(o1.cumulative[2] == (1.0 / 3.0 + 1.0 / 3.0) + 1.0 / 3.0);
    // Setting it replaces the uniform law; on a model with one shared matrix it stops sharing.
    FinitePomdp<int, int, int> shared({0, 1}, {0, 1}, {0, 1, 2}, std::vector<Eigen::MatrixXd>{P, P},
                                      std::vector<Eigen::MatrixXd>{Z0}, Eigen::Vector2d(1.0, 0.0), 3);
    CHECK(&shared.initial_observation_matrix() == &shared.observation_matrix(0));
    shared.set_initial_observation(to_sparse(Z1));
    CHECK(same_bits(shared.initial_observation_matrix(), to_sparse(Z1)));
    CHECK(shared.initial_observation(1).cumulative[1] == 0.25 + 0.75);
    CHECK(same_bits(shared.observation_matrix(0), to_sparse(Z0)));
}

TEST_CASE("grid construction rejects bad sizes and precisions by name", "[grid][construction]") {
    std::string msg = error_message([] { (void)gaussian_observations(0, 5, 10.0); });
    CHECK(msg.find("0 x 5") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 0, 10.0); });
    CHECK(msg.find("5 x 0") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 5, 0.0); });
    CHECK(msg.find("k = 0") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 5, -1e-3); });
    CHECK(msg.find("k = -0.001") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 5, std::nan("")); });
    CHECK(msg.find("k = nan") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 5, std::numeric_limits<double>::infinity()); });
    CHECK(msg.find("k = inf") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 5, 1.0, std::nan("")); });
    CHECK(msg.find("threshold = nan") != std::string::npos);
    msg = error_message([] { (void)gaussian_observations(5, 5, 1.0, 1.5); });
    CHECK(msg.find("threshold = 1.5") != std::string::npos);
    msg = error_message([] { (void)single_room(0, 0, 0.0, observe::Gaussian{10.0, 1e-12}); });
    CHECK(msg.find("0 x 0") != std::string::npos);
    // More entries than the sparse index (int) holds: a dense 1500 x 1500 Gaussian would
    // have 5e12; refused while counting, before anything that size is allocated.
    msg = error_message([] { (void)gaussian_observations(1500, 1500, 1e-9, 0.0); });
    CHECK(msg.find("1500 x 1500") != std::string::npos);
    CHECK(msg.find("sparse index") != std::string::npos);
}

}  // namespace test_grid_world
