// Tests of belief/: the exact Bayes filter (paper, Section 2.1) and the noisy belief oracle
// (paper, Assumption 5.1 / Figure 3), against hand-derived posteriors and fixed-seed
// statistics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "forward_only.hpp"
#include "random_pomdp.hpp"

namespace belief_test {

using StringPomdp = maxent::FinitePomdp<std::string, std::string, std::string>;

Eigen::MatrixXd mat(Eigen::Index rows, Eigen::Index cols, std::initializer_list<double> values) {
    Eigen::MatrixXd m(rows, cols);
    auto it = values.begin();
    for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = *it++;
    return m;
}

Eigen::VectorXd vec(std::initializer_list<double> values) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
    Eigen::Index i = 0;
    for (double x : values) v[i++] = x;
    return v;
}

// Tiger: states tiger-left / tiger-right; listen keeps the state and reports the tiger's
// side with accuracy 0.85; opening a door resets the tiger uniformly and the observation
// is uninformative (0.5 / 0.5): action-dependent observations.
StringPomdp tiger() {
    const Eigen::MatrixXd keep = Eigen::MatrixXd::Identity(2, 2);
    const Eigen::MatrixXd reset = Eigen::MatrixXd::Constant(2, 2, 0.5);
    const Eigen::MatrixXd hear = mat(2, 2, {0.85, 0.15, 0.15, 0.85});
    const Eigen::MatrixXd blind = Eigen::MatrixXd::Constant(2, 2, 0.5);
    return StringPomdp({"tiger-left", "tiger-right"}, {"listen", "open-left", "open-right"},
                       {"hear-left", "hear-right"}, {keep, reset, reset}, {hear, blind, blind}, vec({0.5, 0.5}), 10);
}

// Tiger variant where every action keeps the state, but the observation accuracy depends on
// the action: listen 0.85, peek 0.6, wait 0.5 (uninformative).
StringPomdp tiger_accuracies() {
    const Eigen::MatrixXd keep = Eigen::MatrixXd::Identity(2, 2);
    return StringPomdp({"tiger-left", "tiger-right"}, {"listen", "peek", "wait"}, {"hear-left", "hear-right"},
                       {keep, keep, keep},
                       {mat(2, 2, {0.85, 0.15, 0.15, 0.85}), mat(2, 2, {0.6, 0.4, 0.4, 0.6}),
                        Eigen::MatrixXd::Constant(2, 2, 0.5)},
                       vec({0.5, 0.5}), 10);
}

// 1-D corridor of 3 cells c0 c1 c2; actions left / right move one cell with probability 0.8
// and stay with 0.2 (a move into the wall stays). Observations dark / light:
//   Obs(. | c0) = (0.9, 0.1), Obs(. | c1) = (0.5, 0.5), Obs(. | c2) = (0.2, 0.8).
StringPomdp corridor() {
    const Eigen::MatrixXd left = mat(3, 3, {1.0, 0.0, 0.0,  //
                                            0.8, 0.2, 0.0,  //
                                            0.0, 0.8, 0.2});
    const Eigen::MatrixXd right = mat(3, 3, {0.2, 0.8, 0.0,  //
                                             0.0, 0.2, 0.8,  //
                                             0.0, 0.0, 1.0});
    const Eigen::MatrixXd obs = mat(3, 2, {0.9, 0.1,  //
                                           0.5, 0.5,  //
                                           0.2, 0.8});
    return StringPomdp({"c0", "c1", "c2"}, {"left", "right"}, {"dark", "light"}, {left, right}, {obs},
                       vec({1.0, 0.0, 0.0}), 3);
}

// Deterministic corridor: actions stay / right (right moves one cell, blocked at c2);
// deterministic observations: c0 -> "a", c1 and c2 -> "b"; "never" is emitted by no state.
StringPomdp deterministic_corridor() {
    const Eigen::MatrixXd stay = Eigen::MatrixXd::Identity(3, 3);
    const Eigen::MatrixXd right = mat(3, 3, {0.0, 1.0, 0.0,  //
                                             0.0, 0.0, 1.0,  //
                                             0.0, 0.0, 1.0});
    const Eigen::MatrixXd obs = mat(3, 3, {1.0, 0.0, 0.0,  //
                                           0.0, 1.0, 0.0,  //
                                           0.0, 1.0, 0.0});
    return StringPomdp({"c0", "c1", "c2"}, {"stay", "right"}, {"a", "b", "never"}, {stay, right}, {obs},
                       vec({1.0, 0.0, 0.0}), 3);
}

// Ring of 6 cells; actions cw / ccw move one cell with probability 0.9 and stay with 0.1;
// deterministic observation: which half of the ring (cells 0-2 -> "low", 3-5 -> "high").
StringPomdp ring() {
    const int n = 6;
    Eigen::MatrixXd cw = Eigen::MatrixXd::Zero(n, n), ccw = Eigen::MatrixXd::Zero(n, n);
    Eigen::MatrixXd obs = Eigen::MatrixXd::Zero(n, 2);
    std::vector<std::string> cells;
    for (int i = 0; i < n; ++i) {
        cells.push_back(std::string(1, 'r').append(std::to_string(i)));  // not "r" + ...: GCC 12 false -Wrestrict
        cw(i, (i + 1) % n) += 0.9;
        cw(i, i) += 0.1;
        ccw(i, (i + n - 1) % n) += 0.9;
        ccw(i, i) += 0.1;
        obs(i, i < 3 ? 0 : 1) = 1.0;
    }
    Eigen::VectorXd mu = Eigen::VectorXd::Zero(n);
    mu[0] = 1.0;
    return StringPomdp(cells, {"cw", "ccw"}, {"low", "high"}, {cw, ccw}, {obs}, mu, 6);
}

bool on_simplex(const Eigen::VectorXd& b, double tolerance) {
    double sum = 0.0;
    for (Eigen::Index i = 0; i < b.size(); ++i) {
        if (!std::isfinite(b[i]) || b[i] < 0.0 || b[i] > 1.0) return false;
        sum += b[i];
    }
    return std::abs(sum - 1.0) <= tolerance;
}

// One simulated step of the true system: s <- s' ~ P(. | s, a), returns o ~ Obs(. | s', a).
template <class M, class G>
std::size_t step_true_system(const M& model, std::size_t& s, std::size_t a, G& g) {
    s = maxent::sample_categorical(model.transition(s, a), g);
    return maxent::sample_categorical(model.observation(a, s), g);
}

// User-defined label types: a grid cell, a move, a room id.
struct Cell {
    int x;
    int y;
    friend bool operator==(const Cell&, const Cell&) = default;
};
enum class Move { east, west };
enum class RoomId { west, east };
// Cell and Move are streamable, so that messages name them; RoomId is not (named "#i").
std::ostream& operator<<(std::ostream& os, const Cell& c) { return os << '(' << c.x << ", " << c.y << ')'; }
std::ostream& operator<<(std::ostream& os, Move a) { return os << (a == Move::east ? "east" : "west"); }

}  // namespace belief_test

template <>
struct std::hash<belief_test::Cell> {
    std::size_t operator()(const belief_test::Cell& c) const noexcept { return std::hash<int>{}(c.x * 1000 + c.y); }
};

namespace test_belief {

using namespace belief_test;
using maxent::BayesFilter;
using maxent::NoisyBelief;
using Filter = BayesFilter<StringPomdp>;

TEST_CASE("both belief updaters satisfy the BeliefUpdater concept", "[belief]") {
    STATIC_REQUIRE(maxent::BeliefUpdater<BayesFilter<StringPomdp>>);
    STATIC_REQUIRE(maxent::BeliefUpdater<NoisyBelief<BayesFilter<StringPomdp>>>);
    STATIC_REQUIRE(maxent::BeliefUpdater<NoisyBelief<NoisyBelief<BayesFilter<StringPomdp>>>>);
    STATIC_REQUIRE(maxent::require_belief_updater<BayesFilter<StringPomdp>>());
    STATIC_REQUIRE(maxent::require_belief_updater<NoisyBelief<BayesFilter<StringPomdp>>>());
    // The filter points to the model: it can be built from an lvalue, never from a temporary.
    STATIC_REQUIRE(std::is_constructible_v<Filter, const StringPomdp&>);
    STATIC_REQUIRE_FALSE(std::is_constructible_v<Filter, StringPomdp&&>);
    STATIC_REQUIRE_FALSE(std::is_constructible_v<Filter, StringPomdp&&, const Eigen::VectorXd&>);
}

TEST_CASE("a NoisyBelief over a filter is built in one line (the spellings README shows)", "[belief]") {
    const auto m = tiger();
    const double sigma = 0.01;
    auto a = maxent::make_noisy_belief(BayesFilter(m), sigma);
    NoisyBelief b{BayesFilter(m), sigma};
    auto c = NoisyBelief(BayesFilter(m), sigma);
    STATIC_REQUIRE(std::is_same_v<decltype(a), NoisyBelief<Filter>>);
    STATIC_REQUIRE(std::is_same_v<decltype(b), NoisyBelief<Filter>>);
    STATIC_REQUIRE(std::is_same_v<decltype(c), NoisyBelief<Filter>>);
    const Filter filter(m);
    auto d = maxent::make_noisy_belief(filter, 0.0);  // an lvalue is copied
    STATIC_REQUIRE(std::is_same_v<decltype(d), NoisyBelief<Filter>>);
    // The same draws give the same noisy beliefs.
    Eigen::VectorXd ba, bb;
    a.initial(ba);
    b.initial(bb);
    maxent::DefaultRng ga(5), gb(5);
    a.update(ba, m.action_index("listen"), m.observation_index("hear-left"), ga);
    b.update(bb, m.action_index("listen"), m.observation_index("hear-left"), gb);
    CHECK(ba == bb);
    CHECK(a.dimension() == 2);
    CHECK(d.dimension() == 2);
}

TEST_CASE("tiger listen: hear left, hear left, hear right", "[belief]") {
    const auto m = tiger();
    BayesFilter filter(m);
    const std::size_t listen = m.action_index("listen");
    const std::size_t left = m.observation_index("hear-left"), right = m.observation_index("hear-right");
    maxent::DefaultRng g(1);

    Eigen::VectorXd b;
    filter.initial(b);
    REQUIRE(b.size() == 2);
    CHECK(b[0] == 0.5);
    CHECK(b[1] == 0.5);
    // P(hear-left | (0.5, 0.5), listen) = 0.5 * 0.85 + 0.5 * 0.15 = 0.5.
    CHECK(filter.predicted_observation_probability(b, listen, left) == Approx(0.5).margin(1e-15));

    // One hear-left: (0.5 * 0.85, 0.5 * 0.15) / 0.5 = (0.85, 0.15).
    filter.update(b, listen, left, g);
    CHECK(b[0] == Approx(0.85).margin(1e-12));
    CHECK(b[1] == Approx(0.15).margin(1e-12));
    // P(hear-left | (0.85, 0.15), listen) = 0.85^2 + 0.15^2 = 0.745.
    CHECK(filter.predicted_observation_probability(b, listen, left) == Approx(0.745).margin(1e-15));

    // Two: (0.85^2, 0.15^2) / (0.85^2 + 0.15^2) = (0.7225, 0.0225) / 0.745.
    filter.update(b, listen, left, g);
    const double p2 = 0.85 * 0.85 / (0.85 * 0.85 + 0.15 * 0.15);
    CHECK(b[0] == Approx(p2).margin(1e-12));
    CHECK(b[1] == Approx(1.0 - p2).margin(1e-12));
    CHECK(b[0] == Approx(0.9698).margin(1e-4));
    CHECK(b[1] == Approx(0.0302).margin(1e-4));

    // hear-right: (p2 * 0.15, (1 - p2) * 0.85) ∝ (0.85^2 * 0.15, 0.15^2 * 0.85) ∝ (0.85, 0.15).
    filter.update(b, listen, right);  // the overload without generator
    CHECK(b[0] == Approx(0.85).margin(1e-12));
    CHECK(b[1] == Approx(0.15).margin(1e-12));
}

TEST_CASE("action-dependent observations use the column of the action taken", "[belief]") {
    SECTION("tiger: opening resets the tiger and the observation is uninformative") {
        const auto m = tiger();
        REQUIRE(m.observation_depends_on_action());
        BayesFilter filter(m, vec({0.85, 0.15}));
        Eigen::VectorXd b;
        filter.initial(b);
        // open-left: predicted (0.5, 0.5) whatever b; Obs = 0.5 for both -> (0.5, 0.5).
        filter.update(b, m.action_index("open-left"), m.observation_index("hear-left"));
        CHECK(b[0] == Approx(0.5).margin(1e-15));
        CHECK(b[1] == Approx(0.5).margin(1e-15));
        // Same observation after listen from the same prior: (0.85 * 0.85, 0.15 * 0.15) / 0.745.
        filter.initial(b);
        filter.update(b, m.action_index("listen"), m.observation_index("hear-left"));
        CHECK(b[0] == Approx(0.7225 / 0.745).margin(1e-12));
    }
    SECTION("identity transitions, accuracy 0.85 / 0.6 / 0.5 by action") {
        const auto m = tiger_accuracies();
        BayesFilter filter(m);
        const std::size_t left = 0, right = 1;
        Eigen::VectorXd b;
        // From (0.5, 0.5) hear-left gives the accuracy of the action as the posterior.
        filter.initial(b);
        filter.update(b, m.action_index("listen"), left);
        CHECK(b[0] == Approx(0.85).margin(1e-12));
        filter.initial(b);
        filter.update(b, m.action_index("peek"), left);
        CHECK(b[0] == Approx(0.6).margin(1e-12));
        filter.initial(b);
        filter.update(b, m.action_index("wait"), left);
        CHECK(b[0] == Approx(0.5).margin(1e-12));
        // From (0.85, 0.15), peek + hear-right: (0.85 * 0.4, 0.15 * 0.6) / (0.34 + 0.09).
        b = vec({0.85, 0.15});
        CHECK(filter.predicted_observation_probability(b, m.action_index("peek"), right) ==
              Approx(0.43).margin(1e-15));
        filter.update(b, m.action_index("peek"), right);
        CHECK(b[0] == Approx(0.34 / 0.43).margin(1e-12));
        CHECK(b[1] == Approx(0.09 / 0.43).margin(1e-12));
        // wait leaves any belief unchanged.
        const Eigen::VectorXd before = b;
        filter.update(b, m.action_index("wait"), right);
        CHECK(b[0] == Approx(before[0]).margin(1e-15));
        CHECK(b[1] == Approx(before[1]).margin(1e-15));
    }
}

TEST_CASE("corridor with slip: two filter steps checked by hand", "[belief]") {
    const auto m = corridor();
    BayesFilter filter(m);  // uniform prior (1/3, 1/3, 1/3) although μ is a point mass on c0
    const std::size_t left = m.action_index("left"), right = m.action_index("right");
    const std::size_t dark = m.observation_index("dark"), light = m.observation_index("light");
    Eigen::VectorXd b;
    filter.initial(b);
    CHECK(b[0] == Approx(1.0 / 3.0).margin(1e-15));

    // Step 1, right then light.
    //   predicted: c0 = 1/3 * 0.2 = 0.2/3; c1 = 1/3 * 0.8 + 1/3 * 0.2 = 1/3; c2 = 1/3 * 0.8 + 1/3 * 1 = 1.8/3
    //   times Obs(light | .) = (0.1, 0.5, 0.8): (0.02, 0.5, 1.44) / 3, evidence 1.96 / 3
    //   posterior (0.02, 0.5, 1.44) / 1.96.
    CHECK(filter.predicted_observation_probability(b, right, light) == Approx(1.96 / 3.0).margin(1e-14));
    filter.update(b, right, light);
    CHECK(b[0] == Approx(0.02 / 1.96).margin(1e-12));
    CHECK(b[1] == Approx(0.5 / 1.96).margin(1e-12));
    CHECK(b[2] == Approx(1.44 / 1.96).margin(1e-12));

    // Step 2, left then dark. With b = (0.02, 0.5, 1.44) / 1.96:
    //   predicted * 1.96: c0 = 0.02 * 1 + 0.5 * 0.8 = 0.42; c1 = 0.5 * 0.2 + 1.44 * 0.8 = 1.252;
    //                     c2 = 1.44 * 0.2 = 0.288   (sum 1.96)
    //   times Obs(dark | .) = (0.9, 0.5, 0.2): (0.378, 0.626, 0.0576), sum 1.0616
    //   posterior (0.378, 0.626, 0.0576) / 1.0616; evidence 1.0616 / 1.96.
    CHECK(filter.predicted_observation_probability(b, left, dark) == Approx(1.0616 / 1.96).margin(1e-14));
    filter.update(b, left, dark);
    CHECK(b[0] == Approx(0.378 / 1.0616).margin(1e-12));
    CHECK(b[1] == Approx(0.626 / 1.0616).margin(1e-12));
    CHECK(b[2] == Approx(0.0576 / 1.0616).margin(1e-12));
    CHECK(b.sum() == Approx(1.0).margin(1e-15));
}

TEST_CASE("user-defined state, action and observation types through the filter", "[belief]") {
    // 2 x 2 grid of Cells; Move::east / Move::west reach the target column with 0.8; with
    // 0.1 the agent falls to row y = 1 (same column), with 0.1 it stays; a move into the
    // border stays. Observation: the room (west: x = 0, east: x = 1), correct with 0.75.
    using Model = maxent::FinitePomdp<Cell, Move, RoomId>;
    const std::vector<Cell> cells{{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    auto transition = [](const Cell& c, Move a) {
        const int target = a == Move::east ? 1 : 0;
        // Repeated successors add up (e.g. from (1, 1) all three entries are (1, 1)).
        return std::vector<std::pair<Cell, double>>{{Cell{target, c.y}, 0.8}, {Cell{c.x, 1}, 0.1}, {c, 0.1}};
    };
    auto observation = [](const Cell& c) {
        const RoomId room = c.x == 0 ? RoomId::west : RoomId::east;
        const RoomId other = c.x == 0 ? RoomId::east : RoomId::west;
        return std::vector<std::pair<RoomId, double>>{{room, 0.75}, {other, 0.25}};
    };
    const Model m = Model::from_functions(cells, {Move::east, Move::west}, {RoomId::west, RoomId::east}, transition,
                                          observation, {{Cell{0, 0}, 1.0}}, 4);
    const auto i00 = static_cast<Eigen::Index>(m.state_index(Cell{0, 0}));
    const auto i10 = static_cast<Eigen::Index>(m.state_index(Cell{1, 0}));
    const auto i01 = static_cast<Eigen::Index>(m.state_index(Cell{0, 1}));
    const auto i11 = static_cast<Eigen::Index>(m.state_index(Cell{1, 1}));

    Eigen::VectorXd prior(4);
    prior[i00] = 0.4;
    prior[i10] = 0.1;
    prior[i01] = 0.3;
    prior[i11] = 0.2;
    BayesFilter filter(m, prior);
    maxent::DefaultRng g(3);
    Eigen::VectorXd b;
    filter.initial(b);

    // Step 1: east, observe east.
    //   P(. | s, east): (0,0) -> (1,0) 0.8, (0,1) 0.1, (0,0) 0.1;  (1,0) -> (1,0) 0.9, (1,1) 0.1;
    //                   (0,1) -> (1,1) 0.8, (0,1) 0.2;             (1,1) -> (1,1) 1.
    //   predicted: (0,0) 0.4*0.1 = 0.04; (1,0) 0.4*0.8 + 0.1*0.9 = 0.41;
    //              (0,1) 0.4*0.1 + 0.3*0.2 = 0.10; (1,1) 0.1*0.1 + 0.3*0.8 + 0.2*1 = 0.45
    //   likelihood of east: (0.25, 0.75, 0.25, 0.75) -> (0.01, 0.3075, 0.025, 0.3375) / 0.68.
    filter.update(b, m.action_index(Move::east), m.observation_index(RoomId::east), g);
    CHECK(b[i00] == Approx(0.01 / 0.68).margin(1e-12));
    CHECK(b[i10] == Approx(0.3075 / 0.68).margin(1e-12));
    CHECK(b[i01] == Approx(0.025 / 0.68).margin(1e-12));
    CHECK(b[i11] == Approx(0.3375 / 0.68).margin(1e-12));

    // Step 2: west, observe west. With u = (0.01, 0.3075, 0.025, 0.3375) = 0.68 b:
    //   P(. | s, west): (0,0) -> (0,0) 0.9, (0,1) 0.1;  (1,0) -> (0,0) 0.8, (1,1) 0.1, (1,0) 0.1;
    //                   (0,1) -> (0,1) 1;             (1,1) -> (0,1) 0.8, (1,1) 0.2.
    //   predicted * 0.68: (0,0) 0.01*0.9 + 0.3075*0.8 = 0.255; (1,0) 0.3075*0.1 = 0.03075;
    //                     (0,1) 0.01*0.1 + 0.025 + 0.3375*0.8 = 0.296; (1,1) 0.03075 + 0.0675 = 0.09825
    //   likelihood of west (0.75, 0.25, 0.75, 0.25): (0.19125, 0.0076875, 0.222, 0.0245625), sum 0.4455.
    filter.update(b, m.action_index(Move::west), m.observation_index(RoomId::west), g, 2);
    CHECK(b[i00] == Approx(0.19125 / 0.4455).margin(1e-12));
    CHECK(b[i10] == Approx(0.0076875 / 0.4455).margin(1e-12));
    CHECK(b[i01] == Approx(0.222 / 0.4455).margin(1e-12));
    CHECK(b[i11] == Approx(0.0245625 / 0.4455).margin(1e-12));

    // Step 3: east, observe west. With v = (0.19125, 0.0076875, 0.222, 0.0245625) = 0.4455 b:
    //   predicted * 0.4455: (0,0) 0.019125; (1,0) 0.153 + 0.00691875 = 0.15991875;
    //                       (0,1) 0.019125 + 0.0444 = 0.063525;
    //                       (1,1) 0.00076875 + 0.1776 + 0.0245625 = 0.20293125
    //   likelihood of west: (0.01434375, 0.0399796875, 0.04764375, 0.0507328125), sum 0.1527.
    filter.update(b, m.action_index(Move::east), m.observation_index(RoomId::west), g, 3);
    CHECK(b[i00] == Approx(0.01434375 / 0.1527).margin(1e-12));
    CHECK(b[i10] == Approx(0.0399796875 / 0.1527).margin(1e-12));
    CHECK(b[i01] == Approx(0.04764375 / 0.1527).margin(1e-12));
    CHECK(b[i11] == Approx(0.0507328125 / 0.1527).margin(1e-12));

    // Errors name the user's labels through their operator<< ("#i" when there is none).
    CHECK(maxent::detail::describe_action(m, m.action_index(Move::west)) == "'west'");
    CHECK(maxent::detail::describe_state(m, static_cast<std::size_t>(i01)) == "'(0, 1)'");
    CHECK(maxent::detail::describe_observation(m, 1) == "#1");
    try {
        filter.update(b, 2, 0);
        FAIL("expected config_error");
    } catch (const maxent::config_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("action index 2"));
    }
    try {
        filter.set_prior(Eigen::VectorXd::Constant(4, 0.3125));
        FAIL("expected config_error");
    } catch (const maxent::config_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("sums to 1.25"));
    }
    try {
        Eigen::VectorXd negative = Eigen::VectorXd::Constant(4, 0.25);
        negative[i01] = -0.25;
        filter.set_prior(negative);
        FAIL("expected config_error");
    } catch (const maxent::config_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("(state '(0, 1)') is -0.25"));
    }
}

TEST_CASE("an observation with zero likelihood throws zero_likelihood_error naming action, observation, step",
          "[belief]") {
    const auto m = deterministic_corridor();
    BayesFilter filter(m, vec({0.0, 0.0, 1.0}));  // certain to be in c2, which emits "b"
    maxent::DefaultRng g(5);
    Eigen::VectorXd b;
    filter.initial(b);
    const Eigen::VectorXd before = b;
    const std::size_t stay = m.action_index("stay"), a_obs = m.observation_index("a");

    try {
        filter.update(b, stay, a_obs, g, 7);
        FAIL("expected zero_likelihood_error");
    } catch (const maxent::zero_likelihood_error& e) {
        CHECK(e.action() == stay);
        CHECK(e.observation() == a_obs);
        CHECK(e.step() == 7);
        const std::string what = e.what();
        CHECK_THAT(what, Catch::Contains("action 0 ('stay')"));
        CHECK_THAT(what, Catch::Contains("observation 0 ('a')"));
        CHECK_THAT(what, Catch::Contains("at step 7"));
    }
    // Strong guarantee: the belief is unchanged.
    CHECK((b.array() == before.array()).all());

    try {
        filter.update(b, stay, a_obs);
        FAIL("expected zero_likelihood_error");
    } catch (const maxent::zero_likelihood_error& e) {
        CHECK(e.step() == maxent::unknown_step);
        CHECK_THAT(e.what(), !Catch::Contains("at step"));
    }
    // An observation no state emits is impossible from any belief.
    filter.initial(b);
    b = vec({1.0 / 3, 1.0 / 3, 1.0 / 3});
    CHECK(filter.predicted_observation_probability(b, stay, m.observation_index("never")) == 0.0);
    CHECK_THROWS_AS(filter.update(b, stay, m.observation_index("never"), g, 1), maxent::zero_likelihood_error);
    // zero_likelihood_error is a maxent::error.
    CHECK_THROWS_AS(filter.update(b, stay, m.observation_index("never")), maxent::error);
}

TEST_CASE("bad indices and bad beliefs are config errors naming the value", "[belief]") {
    const auto m = corridor();
    BayesFilter filter(m);
    maxent::DefaultRng g(9);
    Eigen::VectorXd b;
    filter.initial(b);
    auto message_of = [&](auto&& call) -> std::string {
        try {
            call();
        } catch (const maxent::config_error& e) {
            return e.what();
        }
        return "no config_error";
    };
    CHECK_THAT(message_of([&] { filter.update(b, 2, 0, g); }), Catch::Contains("action index 2"));
    CHECK_THAT(message_of([&] { filter.update(b, 0, 5, g); }), Catch::Contains("observation index 5"));
    Eigen::VectorXd wrong = Eigen::VectorXd::Constant(4, 0.25);
    CHECK_THAT(message_of([&] { filter.update(wrong, 0, 0, g); }), Catch::Contains("4 entries for 3 states"));
    Eigen::VectorXd negative = vec({0.5, -0.125, 0.625});
    CHECK_THAT(message_of([&] { filter.update(negative, 0, 0, g); }), Catch::Contains("belief entry 1 is -0.125"));
    Eigen::VectorXd not_finite = vec({0.5, 0.5, std::nan("")});
    CHECK_THAT(message_of([&] { filter.update(not_finite, 0, 0, g); }), Catch::Contains("belief entry 2 is nan"));
    Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
    CHECK_THAT(message_of([&] { filter.update(zero, 0, 0, g); }), Catch::Contains("total mass 0"));
    CHECK_THAT(message_of([&] { (void)filter.predicted_observation_probability(b, 0, 2); }),
               Catch::Contains("observation index 2"));
}

TEST_CASE("prior: uniform by default, any valid prior on request, invalid priors rejected", "[belief]") {
    const auto m = corridor();
    SECTION("uniform default, initial() resizes only when needed") {
        BayesFilter filter(m);
        Eigen::VectorXd b;
        filter.initial(b);
        REQUIRE(b.size() == 3);
        for (Eigen::Index i = 0; i < 3; ++i) CHECK(b[i] == 1.0 / 3.0);
        const double* data = b.data();
        b.setZero();
        filter.initial(b);
        CHECK(b.data() == data);
        CHECK(b[2] == 1.0 / 3.0);
    }
    SECTION("non-uniform prior honoured by initial() and update()") {
        BayesFilter filter(m, vec({0.5, 0.3, 0.2}));
        Eigen::VectorXd b;
        filter.initial(b);
        CHECK(b[0] == 0.5);
        CHECK(b[1] == 0.3);
        CHECK(b[2] == 0.2);
        // right, then light: predicted c0 = 0.5*0.2 = 0.1; c1 = 0.5*0.8 + 0.3*0.2 = 0.46;
        // c2 = 0.3*0.8 + 0.2 = 0.44; times (0.1, 0.5, 0.8): (0.01, 0.23, 0.352), sum 0.592.
        filter.update(b, m.action_index("right"), m.observation_index("light"));
        CHECK(b[0] == Approx(0.01 / 0.592).margin(1e-12));
        CHECK(b[1] == Approx(0.23 / 0.592).margin(1e-12));
        CHECK(b[2] == Approx(0.352 / 0.592).margin(1e-12));
        // set_prior replaces it.
        filter.set_prior(vec({0.0, 0.0, 1.0}));
        filter.initial(b);
        CHECK(b[2] == 1.0);
    }
    SECTION("the model's initial distribution on request: BayesFilter(model, model_prior)") {
        BayesFilter filter(m, maxent::model_prior);  // corridor: μ = e_0
        Eigen::VectorXd b;
        filter.initial(b);
        CHECK(b == vec({1.0, 0.0, 0.0}));
        // right, then light, from e_0: predicted (0.2, 0.8, 0) times (0.1, 0.5, 0.8) = (0.02, 0.4, 0).
        filter.update(b, m.action_index("right"), m.observation_index("light"));
        CHECK(b[0] == Approx(0.02 / 0.42).margin(1e-15));
        CHECK(b[1] == Approx(0.4 / 0.42).margin(1e-15));
        CHECK(b[2] == 0.0);
        // The default is still the paper's uniform b_1.
        Eigen::VectorXd u;
        BayesFilter(m).initial(u);
        CHECK(u[0] == 1.0 / 3.0);
    }
    SECTION("invalid priors are rejected with the entry named and the old prior kept") {
        BayesFilter filter(m);
        auto message_of = [&](const Eigen::VectorXd& p) -> std::string {
            try {
                filter.set_prior(p);
            } catch (const maxent::config_error& e) {
                return e.what();
            }
            return "no config_error";
        };
        CHECK_THAT(message_of(vec({0.5, 0.5})), Catch::Contains("2 entries for 3 states"));
        CHECK_THAT(message_of(vec({0.625, -0.125, 0.5})), Catch::Contains("prior entry 1 (state 'c1') is -0.125"));
        CHECK_THAT(message_of(vec({0.5, 0.5, std::nan("")})), Catch::Contains("prior entry 2 (state 'c2') is nan"));
        CHECK_THAT(message_of(vec({0.5, 0.5, std::numeric_limits<double>::infinity()})), Catch::Contains("prior entry 2"));
        CHECK_THAT(message_of(vec({0.25, 0.25, 0.25})), Catch::Contains("sums to 0.75"));
        // 1 + 1e-10 is within the 1e-9 tolerance.
        CHECK_NOTHROW(filter.set_prior(vec({0.5, 0.25, 0.25 + 1e-10})));
        CHECK_THROWS_AS(BayesFilter<StringPomdp>(m, vec({1.0, 1.0, 1.0})), maxent::config_error);
        CHECK_THAT(message_of(vec({0.3, 0.3, 0.3})), Catch::Contains("sums to"));
        Eigen::VectorXd b;
        filter.initial(b);
        CHECK(b[2] == 0.25 + 1e-10);  // the last valid prior
    }
}

TEST_CASE("the filter does not reallocate the belief and stays on the simplex", "[belief]") {
    const auto m = corridor();
    BayesFilter filter(m);
    maxent::DefaultRng g(11);
    Eigen::VectorXd b;
    filter.initial(b);
    const double* data = b.data();
    std::size_t s = 0;
    for (std::size_t t = 0; t < 2000; ++t) {
        const auto a = static_cast<std::size_t>(maxent::uniform_index(g, m.num_actions()));
        const std::size_t o = step_true_system(m, s, a, g);
        filter.update(b, a, o, g, t);
        REQUIRE(on_simplex(b, 1e-12));
    }
    CHECK(b.data() == data);
}

TEST_CASE("noisy oracle: sigma is validated", "[belief]") {
    const auto m = corridor();
    for (double bad : {-0.1, std::nan(""), std::numeric_limits<double>::infinity()}) {
        try {
            NoisyBelief noisy(Filter(m), bad);
            FAIL("expected config_error");
        } catch (const maxent::config_error& e) {
            CHECK_THAT(e.what(), Catch::Contains("sigma"));
        }
    }
    NoisyBelief noisy(Filter(m), 0.03);
    CHECK(noisy.sigma() == 0.03);
    CHECK(noisy.dimension() == 3);
    CHECK(&noisy.inner().model() == &m);
}

TEST_CASE("noisy oracle at sigma = 0 is the exact filter bit for bit and draws nothing", "[belief]") {
    const auto m = corridor();
    BayesFilter exact(m);
    NoisyBelief noisy(Filter(m), 0.0);
    maxent::DefaultRng env(21), g_exact(5), g_noisy(5);
    const maxent::DefaultRng g_start = g_noisy;
    Eigen::VectorXd b1, b2;
    exact.initial(b1);
    noisy.initial(b2);
    REQUIRE((b1.array() == b2.array()).all());
    std::size_t s = 0;
    for (std::size_t t = 0; t < 1000; ++t) {
        const auto a = static_cast<std::size_t>(maxent::uniform_index(env, m.num_actions()));
        const std::size_t o = step_true_system(m, s, a, env);
        exact.update(b1, a, o, g_exact);
        noisy.update(b2, a, o, g_noisy, t);
        REQUIRE((b1.array() == b2.array()).all());
    }
    CHECK(g_noisy == g_start);
    CHECK(noisy.stats().updates == 1000);
    CHECK(noisy.fallbacks() == 0);
    // At sigma = 0 an impossible observation is an error, as for the exact filter.
    const auto d = deterministic_corridor();
    NoisyBelief exact_noisy(Filter(d, vec({0.0, 0.0, 1.0})), 0.0);
    exact_noisy.initial(b2);
    CHECK_THROWS_AS(exact_noisy.update(b2, 0, 0, g_noisy), maxent::zero_likelihood_error);
}

TEST_CASE("noisy oracle: one update is clip(b + sigma z, 0, 1) renormalised, with z drawn in state order",
          "[belief]") {
    const auto m = corridor();
    const double sigma = 0.05;
    NoisyBelief noisy(Filter(m), sigma);
    BayesFilter exact(m);
    maxent::DefaultRng g(77);
    Eigen::VectorXd b = vec({0.2, 0.5, 0.3});
    Eigen::VectorXd expected = b;
    for (int t = 0; t < 50; ++t) {
        maxent::DefaultRng replay = g;  // the same stream, replayed by hand
        exact.update(expected, 1, 1);
        double sum = 0.0;
        for (Eigen::Index s = 0; s < 3; ++s) {
            double x = expected[s] + sigma * maxent::standard_normal(replay);
            x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
            expected[s] = x;
            sum += x;
        }
        expected /= sum;
        noisy.update(b, 1, 1, g);
        REQUIRE((b - expected).cwiseAbs().maxCoeff() <= 1e-15);
        REQUIRE(g == replay);  // exactly S normals consumed
        expected = b;
    }
}

TEST_CASE("noisy oracle re-localises from the prior when the noisy belief makes o impossible", "[belief]") {
    const auto m = deterministic_corridor();
    const double sigma = 0.1;
    NoisyBelief noisy(Filter(m), sigma);
    maxent::DefaultRng g(8);
    // A (noisy) belief certain of c2; observation "a" is only emitted in c0.
    Eigen::VectorXd b = vec({0.0, 0.0, 1.0});
    maxent::DefaultRng replay = g;
    noisy.update(b, m.action_index("stay"), m.observation_index("a"), g, 4);
    CHECK(noisy.stats().relocalised == 1);
    CHECK(noisy.fallbacks() == 1);
    // Expected: the uniform prior updated by (stay, a) is (1, 0, 0); then the noise.
    Eigen::VectorXd expected = vec({1.0, 0.0, 0.0});
    double sum = 0.0;
    for (Eigen::Index s = 0; s < 3; ++s) {
        double x = expected[s] + sigma * maxent::standard_normal(replay);
        x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
        expected[s] = x;
        sum += x;
    }
    expected /= sum;
    CHECK((b - expected).cwiseAbs().maxCoeff() <= 1e-15);
    CHECK(g == replay);

    // An observation that no state emits is rethrown and leaves b unchanged.
    const Eigen::VectorXd before = b;
    try {
        noisy.update(b, m.action_index("stay"), m.observation_index("never"), g, 5);
        FAIL("expected zero_likelihood_error");
    } catch (const maxent::zero_likelihood_error& e) {
        CHECK(e.step() == 5);
        CHECK_THAT(e.what(), Catch::Contains("observation 2 ('never')"));
    }
    CHECK((b.array() == before.array()).all());
    CHECK(noisy.stats().relocalised == 1);
    CHECK(noisy.stats().updates == 1);
    noisy.reset_stats();
    CHECK(noisy.fallbacks() == 0);
    CHECK(noisy.stats().updates == 0);
}

TEST_CASE("noisy oracle keeps the exact posterior when every entry is clipped to zero", "[belief]") {
    // sigma = 1e6: each entry is clipped to 0 (z < 0) or 1 (z > 0); with 3 states all three are
    // clipped to 0 with probability 1/8 per step.
    const auto m = corridor();
    NoisyBelief noisy(Filter(m), 1e6);
    BayesFilter exact(m);
    maxent::DefaultRng g(13), env(14);
    Eigen::VectorXd b, posterior;
    noisy.initial(b);
    std::size_t s = 0, all_clipped = 0;
    for (std::size_t t = 0; t < 400; ++t) {
        const auto a = static_cast<std::size_t>(maxent::uniform_index(env, m.num_actions()));
        const std::size_t o = step_true_system(m, s, a, env);
        posterior = b;
        bool possible = exact.predicted_observation_probability(posterior, a, o) > 0.0;
        if (possible) exact.update(posterior, a, o);
        noisy.update(b, a, o, g, t);
        REQUIRE(on_simplex(b, 1e-12));
        if (noisy.stats().all_clipped > all_clipped) {
            all_clipped = noisy.stats().all_clipped;
            REQUIRE(possible);  // this model has full-support observations
            REQUIRE((b.array() == posterior.array()).all());
        } else {
            // Entries are 0 or 1 before renormalisation: every positive entry equals the largest.
            const double top = b.maxCoeff();
            for (Eigen::Index i = 0; i < b.size(); ++i) REQUIRE((b[i] == 0.0 || b[i] == top));
        }
    }
    // Expected about 400 / 8 = 50 events; P(fewer than 20) is negligible (binomial, sd 6.6).
    CHECK(all_clipped >= 20);
    CHECK(noisy.stats().clipped_entries > 0);
}

TEST_CASE("noisy oracle stays on the simplex over 1e5 steps with fallbacks, reproducibly", "[belief]") {
    const auto m = ring();
    auto run = [&](std::uint64_t seed, std::size_t steps, std::vector<double>& trace) {
        NoisyBelief noisy(Filter(m), 0.3);
        maxent::DefaultRng env = maxent::stream(seed, 0, 0), g = maxent::stream(seed, 0, 1);
        Eigen::VectorXd b;
        noisy.initial(b);
        std::size_t s = maxent::sample_categorical(m.initial_distribution(), env);
        std::size_t off_simplex = 0;
        for (std::size_t t = 0; t < steps; ++t) {
            const auto a = static_cast<std::size_t>(maxent::uniform_index(env, m.num_actions()));
            const std::size_t o = step_true_system(m, s, a, env);
            noisy.update(b, a, o, g, t);
            if (!on_simplex(b, 1e-12)) ++off_simplex;
            if (t % 97 == 0) trace.insert(trace.end(), b.data(), b.data() + b.size());
        }
        return std::pair{off_simplex, noisy.stats()};
    };
    // (Shorter reruns keep the test fast under sanitizers: a rerun must reproduce a prefix.)
    std::vector<double> trace1, trace2, trace3;
    const auto [off1, stats1] = run(2024, 100000, trace1);
    const auto [off2, stats2] = run(2024, 20000, trace2);
    const auto [off3, stats3] = run(2025, 20000, trace3);
    CHECK(off1 == 0);
    CHECK(off2 == 0);
    CHECK(off3 == 0);
    CHECK(stats1.updates == 100000);
    // Deterministic observations + noise that moves mass to states inconsistent with the
    // next observation: both fallbacks are exercised (369 re-localisations and 10 all-clipped
    // steps with this seed); clipping happens.
    CHECK(stats1.relocalised > 0);
    CHECK(stats1.all_clipped > 0);
    CHECK(stats1.clipped_entries > 0);
    // Same seed: bit-identical beliefs; another seed differs.
    REQUIRE(trace2.size() < trace1.size());
    CHECK(std::equal(trace2.begin(), trace2.end(), trace1.begin()));
    REQUIRE(trace3.size() == trace2.size());
    CHECK(trace3 != trace2);
    CHECK(stats2.updates == 20000);
    CHECK(stats3.updates == 20000);
}

TEST_CASE("noisy oracle: perturbation statistics at a small sigma match the second-order prediction",
          "[belief]") {
    // Two states, identity transition, one uninformative observation: the exact posterior of
    // the prior p = (0.8, 0.2) is p itself. Restarting from the prior each time, the noisy
    // output is n1 = (p1 + e1) / (1 + e1 + e2) with e_i = sigma z_i i.i.d.; at sigma = 0.01 no
    // clipping can occur (it would need |z| > 20, while Box–Muller gives |z| <= 8.6). To
    // second order: E[n1] = p1 + sigma^2 (2 p1 - 1), Var[n1] = sigma^2 ((1 - p1)^2 + p1^2).
    const StringPomdp m({"x", "y"}, {"stay"}, {"nothing"}, {Eigen::MatrixXd::Identity(2, 2)},
                        {Eigen::MatrixXd::Ones(2, 1)}, vec({0.5, 0.5}), 1);
    const double sigma = 0.01, p1 = 0.8;
    NoisyBelief noisy(Filter(m, vec({p1, 1.0 - p1})), sigma);
    maxent::DefaultRng g(99);
    const int n = 100000;
    double sum = 0.0, sum2 = 0.0;
    Eigen::VectorXd b;
    for (int i = 0; i < n; ++i) {
        noisy.initial(b);
        noisy.update(b, 0, 0, g);
        const double d = b[0] - p1;
        sum += d;
        sum2 += d * d;
    }
    CHECK(noisy.stats().clipped_entries == 0);
    const double mean = sum / n;
    const double sd = std::sqrt(sum2 / n - mean * mean);
    const double sd_predicted = sigma * std::sqrt((1 - p1) * (1 - p1) + p1 * p1);  // 0.008246
    const double standard_error = sd_predicted / std::sqrt(double(n));              // 2.6e-5
    // Mean within 5 standard errors of the second-order bias 6e-5 (and far from 1e-3).
    CHECK(std::abs(mean - sigma * sigma * (2 * p1 - 1)) < 5 * standard_error);
    // SD within 2% (its relative standard error is 1/sqrt(2n) = 0.22%).
    CHECK(std::abs(sd / sd_predicted - 1.0) < 0.02);
}

// The model without transition matrices (tests/support/forward_only.hpp): BayesFilter takes its
// forward path, scattering the transition rows of the believed states.
template <class M>
using ConceptOnly = test_models::ForwardOnly<M>;

using maxent_test::random_model;

TEST_CASE("the filter's backward prediction gives the forward scatter's posterior bit for bit", "[belief]") {
    // FinitePomdp exposes transition_matrix_transposed, so BayesFilter predicts each state of
    // the likelihood's support from its predecessors; through ConceptOnly it scatters the rows
    // of the believed states. Both add the same products in the same order: equal bits.
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        const auto m = random_model(seed, 17, 3, 5);
        const ConceptOnly<maxent::FinitePomdp<int, int, int>> forward_model(m);
        BayesFilter<maxent::FinitePomdp<int, int, int>> backward(m);
        BayesFilter<ConceptOnly<maxent::FinitePomdp<int, int, int>>> forward(forward_model);
        maxent::DefaultRng g(seed + 100);
        int compared = 0, impossible = 0;
        for (int trial = 0; trial < 200; ++trial) {
            Eigen::VectorXd b(17);
            for (Eigen::Index s = 0; s < 17; ++s) b[s] = maxent::uniform01(g) < 0.4 ? 0.0 : maxent::uniform01(g);
            if (trial % 4 == 0) {  // a point mass: some observations become impossible
                b.setZero();
                b[static_cast<Eigen::Index>(maxent::uniform_index(g, 17))] = 1.0;
            }
            if (b.sum() == 0.0) b[0] = 1.0;
            for (std::size_t a = 0; a < 3; ++a)
                for (std::size_t o = 0; o < 5; ++o) {
                    Eigen::VectorXd x = b, y = b;
                    bool x_threw = false, y_threw = false;
                    try {
                        backward.update(x, a, o);
                    } catch (const maxent::zero_likelihood_error&) {
                        x_threw = true;
                    }
                    try {
                        forward.update(y, a, o);
                    } catch (const maxent::zero_likelihood_error&) {
                        y_threw = true;
                    }
                    REQUIRE(x_threw == y_threw);
                    if (x_threw) {
                        ++impossible;
                        continue;
                    }
                    REQUIRE((x.array() == y.array()).all());
                    REQUIRE(backward.predicted_observation_probability(b, a, o) ==
                            forward.predicted_observation_probability(b, a, o));
                    ++compared;
                }
        }
        CHECK(compared > 1000);
        CHECK(impossible > 0);  // the zero-likelihood path was exercised too
    }
}

TEST_CASE("FinitePomdp: transposed transitions list predecessors in ascending order", "[belief][model]") {
    const auto m = random_model(7, 23, 2, 4);
    for (std::size_t a = 0; a < 2; ++a) {
        const auto& P = m.transition_matrix(a);
        const auto& Pt = m.transition_matrix_transposed(a);
        REQUIRE(Pt.isCompressed());
        REQUIRE(Eigen::MatrixXd(Pt) == Eigen::MatrixXd(P).transpose());
        for (Eigen::Index r = 0; r < Pt.outerSize(); ++r)
            for (auto k = Pt.outerIndexPtr()[r] + 1; k < Pt.outerIndexPtr()[r + 1]; ++k)
                REQUIRE(Pt.innerIndexPtr()[k - 1] < Pt.innerIndexPtr()[k]);
    }
    REQUIRE_THROWS_AS(m.transition_matrix_transposed(2), maxent::config_error);
}

}  // namespace test_belief
