// Tests of exact_leaf_bound (objective/exact.hpp): the branch-counting bound is an upper
// bound on the leaves exact_objective enumerates, equals them where every branch is taken,
// is never above the coarse product bound, and admits the 6-state, T = 4 MBE enumerations
// the product bound refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/policy/belief_averaged.hpp"

#include "random_pomdp.hpp"
#include "ring_model.hpp"

namespace test_leaf_bound {

using namespace maxent;

namespace {

using Model = FinitePomdp<int, int, int>;

/// A corridor of 6 cells; actions left, right, stay (and, with A = 4, jump two to the right):
/// a move succeeds with probability 0.8, else the agent stays. Three observations, one per
/// zone {0, 1}, {2, 3}, {4, 5}: exact when eps = 0, else a neighbouring zone with probability
/// eps. μ uniform.
Model corridor(std::size_t horizon, int A, double eps) {
    std::vector<Eigen::MatrixXd> P;
    for (int a = 0; a < A; ++a) {
        Eigen::MatrixXd M = Eigen::MatrixXd::Zero(6, 6);
        const int d = a == 0 ? -1 : a == 1 ? 1 : a == 2 ? 0 : 2;
        for (int s = 0; s < 6; ++s) {
            const int t = std::clamp(s + d, 0, 5);
            if (t == s) {
                M(s, s) = 1.0;
            } else {
                M(s, t) = 0.8;
                M(s, s) = 0.2;
            }
        }
        P.push_back(M);
    }
    Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(6, 3);
    for (int s = 0; s < 6; ++s) {
        const int zone = s / 2;
        if (eps == 0.0) {
            Z(s, zone) = 1.0;
        } else {
            const int other = zone != 1 ? 1 : (s % 2 == 0 ? 0 : 2);
            Z(s, zone) = 1.0 - eps;
            Z(s, other) = eps;
        }
    }
    std::vector<int> actions;
    for (int a = 0; a < A; ++a) actions.push_back(a);
    return Model({0, 1, 2, 3, 4, 5}, actions, {0, 1, 2}, P, std::vector<Eigen::MatrixXd>{Z},
                 Eigen::VectorXd::Constant(6, 1.0 / 6.0), horizon);
}

/// Every bound against the leaves actually enumerated (a belief-averaged policy at θ = 0
/// gives every action positive probability).
template <class F>
void check_bounds(const Model& m, const F& feedback, StateCounting counting) {
    const RolloutNeeds needs = feedback.needs();
    const std::size_t coarse = detail::product_leaf_bound(m, needs, counting);
    const std::size_t generic = exact_leaf_bound(m, needs, counting);
    const std::size_t bayes = exact_leaf_bound(m, BayesFilter<Model>(m), needs, counting);
    const ExactResult r = exact_objective(m, BeliefAveragedPolicy(m.num_states(), m.num_actions()), feedback,
                                          {.counting = counting, .max_leaves = coarse});
    INFO("S = " << m.num_states() << ", T = " << m.horizon() << ": leaves " << r.leaves << ", Bayes bound " << bayes
                << ", bound " << generic << ", product bound " << coarse);
    CHECK(r.leaf_bound == bayes);
    CHECK(r.leaves <= bayes);
    CHECK(bayes <= generic);
    CHECK(generic <= coarse);
    if (!needs.believed_states) CHECK(generic == bayes);
}

}  // namespace

TEST_CASE("leaf bound: an upper bound on the leaves, exact where every branch is taken", "[exact][leaf-bound]") {
    for (std::size_t T = 2; T <= 4; ++T)
        for (const StateCounting c : {StateCounting::paper, StateCounting::authors}) {
            const Model ring = test_models::ring_model(T);
            // Every action, successor and observation of the ring has positive probability.
            const ExactResult r = exact_objective(ring, BeliefAveragedPolicy(3, 2), MSE{}, {.counting = c});
            CHECK(r.leaves == exact_leaf_bound(ring, MSE{}.needs(), c));
            check_bounds(ring, MBE{}, c);
            check_bounds(ring, RegMBE(0.1), c);
        }
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        Model model = maxent_test::random_model(seed, 4 + static_cast<int>(seed % 2), 2, 3);
        for (const std::size_t T : {std::size_t{3}, std::size_t{4}}) {
            model.set_horizon(T);
            check_bounds(model, MSE{}, StateCounting::paper);
            check_bounds(model, MBE{}, StateCounting::paper);
            check_bounds(model, MBE{}, StateCounting::authors);
        }
    }
    check_bounds(corridor(4, 3, 0.0), MBE{}, StateCounting::paper);
    check_bounds(corridor(3, 4, 0.2), MBE{}, StateCounting::paper);
}

TEST_CASE("leaf bound: the 6-state, T = 4 MBE corridor is now within the default budget", "[exact][leaf-bound]") {
    // Measured once (Release): exact_objective enumerates 11,326,284 leaves here.
    const Model m = corridor(4, 4, 0.2);
    const RolloutNeeds needs = MBE{}.needs();
    const std::size_t coarse = detail::product_leaf_bound(m, needs, StateCounting::paper);
    const std::size_t generic = exact_leaf_bound(m, needs, StateCounting::paper);
    const std::size_t bayes = exact_leaf_bound(m, BayesFilter<Model>(m), needs, StateCounting::paper);
    CHECK(coarse == 63'700'992);  // 6 · 2 · (4 · 2 · 2)^3 · 6^4: refused at the default 5·10^7
    CHECK(generic == 34'297'344);
    CHECK(bayes == 14'469'192);
    CHECK(coarse > ExactOptions{}.max_leaves);
    CHECK(bayes < ExactOptions{}.max_leaves);
    CHECK(bayes >= 11'326'284);
}

TEST_CASE("leaf bound: long horizons end, saturate or stay at 1", "[exact][leaf-bound]") {
    // One branch per step: the recursion reaches its fixed point at once, whatever T.
    const Model cycle(std::vector<int>{0, 1}, std::vector<int>{0}, std::vector<int>{0},
                      std::vector<Eigen::MatrixXd>{(Eigen::MatrixXd(2, 2) << 0, 1, 1, 0).finished()},
                      std::vector<Eigen::MatrixXd>{Eigen::MatrixXd::Ones(2, 1)},
                      (Eigen::VectorXd(2) << 1, 0).finished(), std::size_t{1} << 40);
    CHECK(exact_leaf_bound(cycle, MSE{}.needs(), StateCounting::paper) == 1);
    // Counts that grow by one per step (a state that may stay or leave to an absorbing one)
    // over a horizon too long to recurse: the coarse bound instead, still an upper bound.
    const Model absorbing(std::vector<int>{0, 1}, std::vector<int>{0}, std::vector<int>{0},
                          std::vector<Eigen::MatrixXd>{(Eigen::MatrixXd(2, 2) << 0.5, 0.5, 0, 1).finished()},
                          std::vector<Eigen::MatrixXd>{Eigen::MatrixXd::Ones(2, 1)},
                          (Eigen::VectorXd(2) << 1, 0).finished(), std::size_t{1} << 40);
    CHECK(exact_leaf_bound(absorbing, MSE{}.needs(), StateCounting::paper) ==
          detail::product_leaf_bound(absorbing, MSE{}.needs(), StateCounting::paper));
    Model short_absorbing = absorbing;
    short_absorbing.set_horizon(10);
    CHECK(exact_leaf_bound(short_absorbing, MSE{}.needs(), StateCounting::paper) == 10);  // stay k times, k = 0..9
}

}  // namespace test_leaf_bound
