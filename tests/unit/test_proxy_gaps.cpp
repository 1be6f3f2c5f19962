// Tests of objective/proxy_gaps.hpp: the per-trajectory bounds of Theorem 5.3 (Proxy Gaps)
// against hand computations, their errors, and the bounds holding exactly for the empirical
// hallucination estimates of real rollouts.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/proxy_gaps.hpp"
#include "maxent/objective/state_observed.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace test_proxy_gaps {

using maxent::proxy_gap_bounds;

TEST_CASE("proxy gap bounds: hand values", "[proxy-gaps]") {
    // J = 2, p = 0.5, H_max = log S = 3: upper 2 / 0.5 = 4 -> clipped to 3; lower (2 - 1.5) / 0.5 = 1.
    auto b = proxy_gap_bounds(2.0, 0.5, 3.0, 3.0);
    CHECK(b.lower == Approx(1.0).margin(1e-15));
    CHECK(b.upper == 3.0);
    // J = 1, p = 0.25: upper 4 -> 3; lower (1 - 0.75) / 0.75 = 1/3.
    b = proxy_gap_bounds(1.0, 0.25, 3.0, 3.0);
    CHECK(b.lower == Approx(1.0 / 3.0).margin(1e-15));
    CHECK(b.upper == 3.0);
    // J = 1.2, p = 0.6: upper 2; lower (1.2 - 1.8) / 0.4 < 0 -> 0.
    b = proxy_gap_bounds(1.2, 0.6, 3.0, 3.0);
    CHECK(b.lower == 0.0);
    CHECK(b.upper == Approx(2.0).margin(1e-15));
    // p = 0: no draw reaches H_S, so H_S > every draw: the lower bound is J itself, no upper bound.
    b = proxy_gap_bounds(1.5, 0.0, 3.0, 3.0);
    CHECK(b.lower == 1.5);
    CHECK(b.upper == 3.0);
    // p = 1: every draw reaches H_S, so H_S <= J: no lower bound.
    b = proxy_gap_bounds(1.5, 1.0, 3.0, 3.0);
    CHECK(b.lower == 0.0);
    CHECK(b.upper == 1.5);
    // MOE with log O > log S: the lower bound uses log O, the clip log S.
    b = proxy_gap_bounds(2.0, 0.2, std::log(64.0), std::log(16.0));
    CHECK(b.lower == Approx((2.0 - 0.2 * std::log(64.0)) / 0.8).epsilon(1e-14));
    CHECK(b.upper == Approx(std::log(16.0)).epsilon(1e-15));
}

TEST_CASE("proxy gap bounds: bad inputs are errors naming the value", "[proxy-gaps]") {
    auto message_of = [](auto&& call) {
        try {
            call();
        } catch (const maxent::config_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(1.0, 1.5, 3.0, 3.0); }), Catch::Contains("1.5"));
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(1.0, std::nan(""), 3.0, 3.0); }),
               Catch::Contains("hallucination probability"));
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(3.5, 0.5, 3.0, 3.0); }), Catch::Contains("3.5"));
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(-0.1, 0.5, 3.0, 3.0); }), Catch::Contains("-0.1"));
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(1.0, 0.5, -1.0, 3.0); }), Catch::Contains("proxy_max"));
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(1.0, 0.5, 3.0, INFINITY); }), Catch::Contains("state_max"));
    // log O = 5, log S = 3, J = 4.9, p = 0.1: the lower bound (4.9 - 0.5) / 0.9 = 4.89 exceeds log S.
    CHECK_THAT(message_of([] { (void)proxy_gap_bounds(4.9, 0.1, 5.0, 3.0); }), Catch::Contains("no true-state entropy"));
}

TEST_CASE("mbe_hallucination: point-mass beliefs reproduce the true states", "[proxy-gaps]") {
    // Beliefs equal to the true states: every believed sequence is tau_S, so J = H_S and p = 1.
    maxent::Trajectory t;
    t.horizon = 4;
    t.num_states = 3;
    t.belief_dimension = 3;
    t.states = {0, 1, 1, 2};
    t.beliefs = Eigen::MatrixXd::Zero(3, 4);
    for (Eigen::Index k = 0; k < 4; ++k) t.beliefs(static_cast<Eigen::Index>(t.states[static_cast<std::size_t>(k)]), k) = 1.0;
    maxent::DefaultRng g(3);
    const auto h = maxent::mbe_hallucination(t, 50, g);
    const double hs = -(0.25 * std::log(0.25) * 2 + 0.5 * std::log(0.5));  // counts 1, 2, 1
    CHECK(h.true_entropy == Approx(hs).epsilon(1e-14));
    CHECK(h.proxy_value == Approx(hs).epsilon(1e-14));
    CHECK(h.hallucination == 1.0);
    CHECK(h.draws == 50);
    maxent::Trajectory no_beliefs = t;
    no_beliefs.beliefs.resize(0, 0);
    REQUIRE_THROWS_AS(maxent::mbe_hallucination(no_beliefs, 10, g), maxent::config_error);
    REQUIRE_THROWS_AS(maxent::mbe_hallucination(t, 0, g), maxent::config_error);
}

TEST_CASE("the proxy gap bounds contain the true-state entropy of real rollouts", "[proxy-gaps]") {
    // The paper's environment (i) with uninformative observations (k = 0.1), the uniform BA
    // policy, exact beliefs. For each trajectory the empirical (J, p) of M believed sequences
    // must give bounds containing H_S: the inequalities hold for any distribution of the
    // draws, the empirical one included (up to the 1e-12 tie tolerance).
    const auto model = maxent::single_room(5, 5, 0.0, maxent::observe::gaussian(0.1));
    maxent::RolloutOptions options;
    options.needs.beliefs = true;
    maxent::Sampler sampler(model, maxent::BayesFilter(model), options);
    maxent::BeliefAveragedPolicy policy(25, 4);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(25, 4);
    const double log_s = std::log(25.0);
    double p_min = 1.0, p_max = 0.0;
    for (std::uint64_t n = 0; n < 40; ++n) {
        auto g = maxent::stream(7, 0, n);
        const maxent::Trajectory& t = sampler.run(policy, g, score);
        const auto h = maxent::mbe_hallucination(t, 400, g);
        const auto b = proxy_gap_bounds(h.proxy_value, h.hallucination, log_s, log_s);
        CHECK(b.lower <= h.true_entropy + 1e-9);
        CHECK(h.true_entropy <= b.upper + 1e-9);
        p_min = std::min(p_min, h.hallucination);
        p_max = std::max(p_max, h.hallucination);
    }
    // Both bounds were exercised: some trajectories hallucinate often, some rarely.
    CHECK(p_min < 0.5);
    CHECK(p_max > 0.5);
}

// ---------------------------------------------------------------------------------------
// objective/state_observed.hpp: the best policy that sees the true state
// ---------------------------------------------------------------------------------------

TEST_CASE("state_observed_optimum: a hand-solved two-state world", "[proxy-gaps][state-observed]") {
    // States a, b; "stay" stays, "flip" moves to the other state with probability 1/2.
    // Starts in a, T = 3, the paper's counting (s_1 counted, 2 actions). The best final
    // counts are (2, 1): H = log 3 - (2/3) log 2. Stay first: (2, 0) at a, then flip reaches
    // (2, 1) with 1/2. Flip first: 1/2 at b with (1, 1), then stay gives (1, 2); 1/2 at a with
    // (2, 0), then 1/2 as before. Flip first is best: (1/2 + 1/4) (log 3 - (2/3) log 2).
    using Row = std::vector<std::pair<std::string, double>>;
    const auto world = maxent::FinitePomdp<std::string, std::string, std::string>::from_functions(
        {"a", "b"}, {"stay", "flip"}, {"o"},
        [](const std::string& s, const std::string& a) {
            if (a == "stay") return Row{{s, 1.0}};
            return Row{{"a", 0.5}, {"b", 0.5}};
        },
        [](const std::string&) { return Row{{"o", 1.0}}; }, {{"a", 1.0}}, 3);
    const double h21 = std::log(3.0) - 2.0 / 3.0 * std::log(2.0);
    CHECK(*maxent::state_observed_optimum(world, maxent::StateCounting::paper) == Approx(0.75 * h21).epsilon(1e-14));
    // Never above the even split of the 3 counted states over 2 (which is the same (2, 1)).
    CHECK(maxent::even_split_bound(2, 3) == Approx(h21).epsilon(1e-14));
    // Too many (state, counts) nodes for the budget: no value.
    CHECK_FALSE(maxent::state_observed_optimum(world, maxent::StateCounting::paper, 1).has_value());
}

}  // namespace test_proxy_gaps
