// Tests of belief/belief_index.hpp and belief/reachable_beliefs.hpp (Algorithm 2).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/belief_index.hpp"
#include "maxent/belief/reachable_beliefs.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/pomdp_file.hpp"

#ifndef MAXENT_CLASSIC_POMDP_DIR
#error "tests/CMakeLists.txt must define MAXENT_CLASSIC_POMDP_DIR"
#endif

namespace test_reachable_beliefs {

namespace reachable_beliefs_test {

using namespace maxent;
using Catch::Matchers::Contains;

Eigen::VectorXd vec(std::initializer_list<double> x) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(x.size()));
    Eigen::Index i = 0;
    for (const double y : x) v[i++] = y;
    return v;
}

PomdpFile tiger() { return read_pomdp_file(std::string(MAXENT_CLASSIC_POMDP_DIR) + "/tiger.95.POMDP"); }

/// p_d = 0.85^d / (0.85^d + 0.15^d): the belief in the tiger's side after d agreeing listens.
double agree(int d) { return std::pow(0.85, d) / (std::pow(0.85, d) + std::pow(0.15, d)); }

TEST_CASE("tiger: the reachable beliefs are the hand-derived list", "[beliefs]") {
    // States (tiger-left, tiger-right), actions (listen, open-left, open-right), observations
    // (hear-left, hear-right); prior (0.5, 0.5).
    //  * listen keeps the state and hears the right side with 0.85:
    //      B^{listen, left}(b) ∝ (0.85 b_L, 0.15 b_R).
    //  * open-left / open-right reset the state uniformly and the observation is uniform:
    //      every (open, o) gives back (0.5, 0.5) — already stored (the prior).
    // Depth 1: from (0.5, 0.5): listen/left -> (0.85, 0.15), listen/right -> (0.15, 0.85).
    // Depth 2: from (0.85, 0.15): listen/left -> (p2, 1 - p2), p2 = 0.7225 / 0.745 = 0.96979...;
    //          listen/right -> ∝ (0.85 * 0.15, 0.15 * 0.85) = (0.5, 0.5), stored. Symmetrically
    //          (1 - p2, p2) from (0.15, 0.85).
    // Depth 3: (p3, 1 - p3), p3 = 0.85^3 / (0.85^3 + 0.15^3) = 0.99453...; listen/right from
    //          (p2, 1 - p2) gives ∝ (0.85^2 0.15, 0.15^2 0.85) ∝ (0.85, 0.15): the depth-1 belief
    //          again, reached through a different product (equal within rounding).
    // So depth d >= 1 adds exactly (p_d, 1 - p_d) and (1 - p_d, p_d), in that order.
    const PomdpFile f = tiger();
    const auto& m = f.model;
    REQUIRE(m.num_states() == 2);
    ReachableOptions o;
    o.max_depth = 3;
    const ReachableBeliefs r = reachable_beliefs(m, o);
    REQUIRE(r.complete);
    REQUIRE(r.size() == 7);
    CHECK(r.new_per_depth == std::vector<std::size_t>{1, 2, 2, 2});
    CHECK(r.first_of_depth == std::vector<std::size_t>{0, 1, 3, 5, 7});
    CHECK(r.depth_reached() == 3);
    // Expanded beliefs: depths 0..2 (5 beliefs), 3 actions x 2 observations each, none impossible.
    CHECK(r.successors == 30);
    CHECK(r.zero_likelihood_skipped == 0);
    const std::vector<double> left{0.5, agree(1), 1 - agree(1), agree(2), 1 - agree(2), agree(3), 1 - agree(3)};
    CHECK(agree(2) == Approx(0.7225 / 0.745).epsilon(1e-15));
    Eigen::VectorXd b;
    for (std::size_t i = 0; i < left.size(); ++i) {
        r.beliefs.dense(i, b);
        INFO("belief " << i << " = (" << b[0] << ", " << b[1] << ")");
        CHECK(b[0] == Approx(left[i]).margin(1e-14));
        CHECK(b[1] == Approx(1.0 - left[i]).margin(1e-14));
    }
    CHECK(r.depth_of(0) == 0);
    CHECK(r.depth_of(2) == 1);
    CHECK(r.depth_of(6) == 3);
    CHECK_THROWS_AS(r.depth_of(7), config_error);
}

TEST_CASE("reachable beliefs skip zero-likelihood pairs and stop when the set is closed", "[beliefs]") {
    // Two states that never move, observed exactly: from (0.5, 0.5) the two observations give
    // (1, 0) and (0, 1); from (1, 0) observation 1 is impossible (skipped) and observation 0
    // gives (1, 0) again. Nothing new at depth 2: the enumeration stops at depth 1.
    using Model = FinitePomdp<int, int, int>;
    const Model m({0, 1}, {0}, {0, 1}, std::vector<Eigen::MatrixXd>{Eigen::MatrixXd::Identity(2, 2)},
                  std::vector<Eigen::MatrixXd>{Eigen::MatrixXd::Identity(2, 2)}, vec({1.0, 0.0}), 5);
    ReachableOptions o;
    o.max_depth = 4;
    const ReachableBeliefs r = reachable_beliefs(m, o);
    CHECK(r.new_per_depth == std::vector<std::size_t>{1, 2});
    CHECK(r.first_of_depth == std::vector<std::size_t>{0, 1, 3});
    CHECK(r.depth_reached() == 1);
    CHECK(r.successors == 4);  // 2 from the prior, 1 from each point mass
    CHECK(r.zero_likelihood_skipped == 2);
    Eigen::VectorXd b;
    r.beliefs.dense(1, b);
    CHECK(b == vec({1.0, 0.0}));
    r.beliefs.dense(2, b);
    CHECK(b == vec({0.0, 1.0}));
    CHECK(r.beliefs.belief(1).size() == 1);  // sparse: only the positive entry is stored
    // A given prior; bad priors are rejected naming the entry or the sum.
    CHECK(reachable_beliefs(m, vec({1.0, 0.0}), o).size() == 1);
    CHECK_THROWS_WITH(reachable_beliefs(m, vec({0.5, 0.6}), o), Contains("sums to"));
    CHECK_THROWS_WITH(reachable_beliefs(m, vec({1.5, -0.5}), o), Contains("prior entry 1"));
    CHECK_THROWS_AS(reachable_beliefs(m, vec({1.0}), o), config_error);
}

TEST_CASE("the index treats beliefs closer than the tolerance as one, farther as two", "[beliefs]") {
    const double tol = 1e-9;
    BeliefIndex index(3, tol);
    const Eigen::VectorXd b = vec({0.2, 0.3, 0.5});
    const auto [id0, new0] = index.insert(b);
    CHECK(new0);
    CHECK(id0 == 0);
    Eigen::VectorXd near = b;
    near[1] += 0.6 * tol;
    near[2] -= 0.6 * tol;
    CHECK(index.find(near) == 0);
    CHECK_FALSE(index.insert(near).second);
    Eigen::VectorXd far = b;
    far[1] += 1.5 * tol;
    far[2] -= 1.5 * tol;
    CHECK(index.find(far) == BeliefIndex::npos);
    const auto [id1, new1] = index.insert(far);
    CHECK(new1);
    CHECK(id1 == 1);
    CHECK(index.size() == 2);
    // Not transitive, earliest wins: `mid` is within the tolerance of both stored beliefs
    // (0.75 tol from b, 0.75 tol from far) and is found as b, the earlier one.
    Eigen::VectorXd mid = b;
    mid[1] += 0.75 * tol;
    mid[2] -= 0.75 * tol;
    CHECK(index.distance(mid, 0) < tol);
    CHECK(index.distance(mid, 1) < tol);
    CHECK(index.find(mid) == 0);
    // Stored values are the first representative, exactly.
    Eigen::VectorXd out;
    index.dense(0, out);
    CHECK(out == b);
    // Bad input.
    CHECK_THROWS_WITH(index.find(vec({0.2, 0.3})), Contains("2 entries for 3 states"));
    CHECK_THROWS_WITH(index.insert(vec({0.2, 1.3, 0.5})), Contains("entry 1"));
    CHECK_THROWS_WITH(index.insert(vec({0.2, std::nan(""), 0.5})), Contains("entry 1"));
    CHECK_THROWS_AS(BeliefIndex(3, 0.0), config_error);
    CHECK_THROWS_AS(BeliefIndex(0), config_error);
}

TEST_CASE("pairs closer than the tolerance are found across bucket boundaries", "[beliefs]") {
    // Random beliefs and random perturbations of L∞ size < tol: many pairs fall into
    // neighbouring buckets; every one must be found. Perturbations of size > tol never are.
    const double tol = 1e-9;
    const std::size_t S = 16;
    DefaultRng g(42);
    BeliefIndex index(S, tol);
    std::vector<Eigen::VectorXd> stored;
    for (int i = 0; i < 2000; ++i) {
        Eigen::VectorXd b(static_cast<Eigen::Index>(S));
        for (Eigen::Index s = 0; s < b.size(); ++s) b[s] = 0.01 + uniform01(g);
        b /= b.sum();
        if (index.insert(b).second) stored.push_back(b);
    }
    REQUIRE(index.size() == 2000);  // random beliefs are far apart
    std::size_t straddling = 0;
    for (std::size_t i = 0; i < stored.size(); ++i) {
        Eigen::VectorXd q = stored[i];
        for (Eigen::Index s = 0; s < q.size(); ++s) q[s] += (2.0 * uniform01(g) - 1.0) * 0.999 * tol;
        REQUIRE(index.distance(q, i) < tol);
        if (index.bucket(q) != index.bucket(stored[i])) ++straddling;
        CHECK(index.find(q) == i);
        Eigen::VectorXd far = stored[i];
        far[static_cast<Eigen::Index>(i % S)] += 1.001 * tol;
        CHECK(index.find(far) == BeliefIndex::npos);
    }
    INFO(straddling << " of " << stored.size() << " near pairs straddle a bucket boundary");
    CHECK(straddling > 20);
}

TEST_CASE("budgets of beliefs and bytes stop the enumeration with a clear error", "[beliefs]") {
    const PomdpFile f = tiger();
    ReachableOptions o;
    o.max_depth = 3;
    o.max_beliefs = 4;  // prior, 2 at depth 1, the first of depth 2, then out of budget
    try {
        (void)reachable_beliefs(f.model, o);
        FAIL("no budget_error");
    } catch (const budget_error& e) {
        const std::string w = e.what();
        CHECK_THAT(w, Contains("max_beliefs = 4"));
        CHECK_THAT(w, Contains("depth reached 2 of max_depth 3"));
        CHECK_THAT(w, Contains("[1, 2, 1]"));
    }
    o.stop_at_budget = true;
    const ReachableBeliefs partial = reachable_beliefs(f.model, o);
    CHECK_FALSE(partial.complete);
    CHECK(partial.size() == 4);
    CHECK(partial.new_per_depth == std::vector<std::size_t>{1, 2, 1});
    CHECK_THAT(partial.stopped, Contains("max_beliefs = 4"));

    // Bytes: a 3 x 3 room with Gaussian observations has 1 + 36 + ~1300 beliefs by depth 2.
    const auto room = single_room(3, 3, 0.0, observe::gaussian_variance(0.2));
    ReachableOptions ob;
    ob.max_depth = 2;
    ob.max_bytes = 20000;
    try {
        (void)reachable_beliefs(room, ob);
        FAIL("no budget_error");
    } catch (const budget_error& e) {
        CHECK_THAT(std::string(e.what()), Contains("max_bytes = 20000"));
        CHECK_THAT(std::string(e.what()), Contains("depth reached"));
    }
    ob.stop_at_budget = true;
    const ReachableBeliefs cut = reachable_beliefs(room, ob);
    CHECK_FALSE(cut.complete);
    CHECK(cut.size() > 37);
    CHECK(cut.beliefs.bytes() <= 20000);
    // A tiny budget fails at the prior.
    ob.max_bytes = 10;
    CHECK(reachable_beliefs(room, ob).size() == 0);
    ob.stop_at_budget = false;
    CHECK_THROWS_AS(reachable_beliefs(room, ob), budget_error);
}

TEST_CASE("the 3x3 room's enumeration agrees with a naive search over observation paths", "[beliefs]") {
    // Independent check: apply BayesFilter along every (a, o) path of length <= 2 and keep
    // the distinct results with an O(n^2) L∞ scan. Same sets, same per-depth counts.
    const auto m = single_room(3, 3, 0.0, observe::gaussian_variance(0.2));
    ReachableOptions o;
    o.max_depth = 2;
    const ReachableBeliefs r = reachable_beliefs(m, o);
    REQUIRE(r.complete);

    BayesFilter<GridPomdp> filter(m);
    std::vector<Eigen::VectorXd> naive;
    std::vector<std::size_t> per_depth;
    auto add = [&](const Eigen::VectorXd& b) {
        for (const auto& x : naive)
            if ((x - b).cwiseAbs().maxCoeff() < 1e-9) return;
        naive.push_back(b);
        ++per_depth.back();
    };
    std::vector<Eigen::VectorXd> frontier{Eigen::VectorXd::Constant(9, 1.0 / 9.0)};
    per_depth.push_back(0);
    add(frontier[0]);
    for (int d = 1; d <= 2; ++d) {
        per_depth.push_back(0);
        std::vector<Eigen::VectorXd> next;
        for (const auto& b : frontier)
            for (std::size_t a = 0; a < m.num_actions(); ++a)
                for (std::size_t obs = 0; obs < m.num_observations(); ++obs) {
                    if (filter.predicted_observation_probability(b, a, obs) == 0.0) continue;
                    Eigen::VectorXd x = b;
                    filter.update(x, a, obs);
                    const std::size_t before = naive.size();
                    add(x);
                    if (naive.size() > before) next.push_back(x);
                }
        frontier = std::move(next);
    }
    CHECK(r.new_per_depth == per_depth);
    REQUIRE(r.size() == naive.size());
    for (std::size_t i = 0; i < naive.size(); ++i) {
        const auto id = r.beliefs.find(naive[i]);
        REQUIRE(id != BeliefIndex::npos);
        CHECK(r.beliefs.distance(naive[i], id) == 0.0);  // bit-identical to BayesFilter
    }
    INFO("3x3, variance 0.2: new beliefs per depth " << per_depth[0] << ", " << per_depth[1] << ", "
                                                     << per_depth[2]);
    CHECK(per_depth[1] > 9);
}

TEST_CASE("policy_belief_depth follows the counting convention", "[beliefs]") {
    CHECK(policy_belief_depth(StateCounting::paper, 9) == 7);    // 8 actions: beliefs b_1..b_8
    CHECK(policy_belief_depth(StateCounting::authors, 9) == 8);  // 9 actions
    CHECK(policy_belief_depth(StateCounting::paper, 1) == 0);
}

}  // namespace reachable_beliefs_test

}  // namespace test_reachable_beliefs
