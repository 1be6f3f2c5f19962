// Tests of optim/evaluate.hpp (a policy's feedbacks with 95% intervals in one call, the
// uniform baseline, windowed means of a history) and core/statistics.hpp. Checked against a
// deterministic world whose entropies are known exactly, the θ = 0 softmax policy (which the
// uniform baseline must equal bit for bit), the exact objective (interval coverage over many
// seeds) and hand-computed t intervals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/observation_policy.hpp"
#include "maxent/policy/uniform.hpp"

#include "ring_model.hpp"

namespace test_evaluate {

using namespace maxent;

namespace {

using Model = FinitePomdp<int, int, int>;

/// Three rooms in a cycle; both actions move forward, the observation is the room, μ = e_0.
Model deterministic_cycle(std::size_t horizon) {
    Eigen::MatrixXd forward = Eigen::MatrixXd::Zero(3, 3);
    for (Eigen::Index s = 0; s < 3; ++s) forward(s, (s + 1) % 3) = 1.0;
    Eigen::VectorXd mu = Eigen::VectorXd::Zero(3);
    mu[0] = 1.0;
    return Model({0, 1, 2}, {0, 1}, {0, 1, 2}, std::vector<Eigen::MatrixXd>{forward, forward},
                 std::vector<Eigen::MatrixXd>{Eigen::MatrixXd::Identity(3, 3)}, mu, horizon);
}

void check_same(const MeanInterval& a, const MeanInterval& b) {
    CHECK(a.mean == b.mean);
    CHECK(a.low == b.low);
    CHECK(a.high == b.high);
    CHECK(a.n == b.n);
}
void check_same(const Evaluation& a, const Evaluation& b) {
    check_same(a.true_entropy, b.true_entropy);
    check_same(a.observation_entropy, b.observation_entropy);
    check_same(a.believed_entropy, b.believed_entropy);
    check_same(a.belief_entropy_sum, b.belief_entropy_sum);
}

}  // namespace

TEST_CASE("evaluate: a deterministic world gives its known entropies with intervals of width 0", "[evaluate]") {
    // T = 3 rooms visited in a fixed cycle from room 0, seen exactly; the filter starts from μ,
    // so every belief is one-hot on the true room: H(d(τ_S)) = H(d(τ_O)) = H(d(τ_S̃)) = log 3
    // and Σ_t H(b_t) = 0 in every episode.
    const Model m = deterministic_cycle(3);
    const Evaluation e = evaluate(m, BayesFilter<Model>(m, model_prior), ObservationPolicy(3, 2), 50, 1);
    CHECK(e.episodes == 50);
    for (const MeanInterval* q : {&e.true_entropy, &e.observation_entropy, &e.believed_entropy}) {
        CHECK(q->mean == Approx(std::log(3.0)).epsilon(1e-15));
        CHECK(q->low == q->mean);
        CHECK(q->high == q->mean);
        CHECK(q->n == 50);
    }
    CHECK(e.belief_entropy_sum.mean == 0.0);
    CHECK(e.belief_entropy_sum.half_width() == 0.0);
}

TEST_CASE("evaluate: the uniform baseline is the θ = 0 softmax policy on the same streams", "[evaluate]") {
    const Model m = test_models::ring_model(6);
    const BayesFilter<Model> filter(m);
    const Evaluation uniform = evaluate_uniform(m, filter, 300, 17);
    check_same(uniform, evaluate(m, filter, BeliefAveragedPolicy(3, 2), 300, 17));
    check_same(uniform, evaluate(m, filter, ObservationPolicy(2, 2), 300, 17));
    check_same(uniform, evaluate(m, filter, UniformPolicy(2), 300, 17));
    // Any thread count gives the same numbers.
    check_same(uniform, evaluate_uniform(m, filter, 300, 17, 3));
    BeliefAveragedPolicy trained(3, 2);
    trained.parameters() << 1.0, -0.5, 0.2, 0.7, -1.0, 0.3;
    check_same(evaluate(m, filter, trained, 301, 4, 1), evaluate(m, filter, trained, 301, 4, 4));
    // A different policy gives different episodes.
    CHECK(evaluate(m, filter, trained, 300, 17).true_entropy.mean != uniform.true_entropy.mean);
}

TEST_CASE("evaluate: the 95% intervals cover the exact objective about 95% of the time", "[evaluate]") {
    // 200 seeds of 30 episodes on the noisy ring (T = 4) at a fixed θ; the exact J of MSE,
    // MOE and MBE by enumeration. With 200 independent intervals the coverage of a correct 95%
    // interval lies in [0.90, 0.99] with probability above 0.99 (binomial; the t interval of
    // these bounded feedbacks is close to exact at n = 30). Seeds are fixed, so the outcome is too.
    const Model m = test_models::ring_model(4);
    BeliefAveragedPolicy policy(3, 2);
    policy.parameters() << 0.8, -0.3, -0.6, 0.4, 0.1, 1.2;
    const BayesFilter<Model> filter(m);
    const double mse = exact_objective(m, policy, MSE{}).objective;
    const double moe = exact_objective(m, policy, MOE{}).objective;
    const double mbe = exact_objective(m, policy, MBE{}).objective;
    constexpr int seeds = 200;
    int covered[3] = {0, 0, 0};
    for (int seed = 0; seed < seeds; ++seed) {
        const Evaluation e = evaluate(m, filter, policy, 30, static_cast<std::uint64_t>(seed));
        covered[0] += e.true_entropy.contains(mse) ? 1 : 0;
        covered[1] += e.observation_entropy.contains(moe) ? 1 : 0;
        covered[2] += e.believed_entropy.contains(mbe) ? 1 : 0;
    }
    for (const int c : covered) {
        INFO("covered " << c << " of " << seeds);
        CHECK(c >= 180);
        CHECK(c <= 198);
    }
}

TEST_CASE("evaluate and windowed means refuse bad input", "[evaluate]") {
    const Model m = test_models::ring_model(3);
    CHECK_THROWS_WITH(evaluate_uniform(m, BayesFilter<Model>(m), 1, 0), Catch::Contains("1 episodes"));
    CHECK_THROWS_AS(evaluate(m, BayesFilter<Model>(m), BeliefAveragedPolicy(4, 2), 10, 0), config_error);
    std::vector<IterationMetrics> history(5);
    CHECK_THROWS_WITH(windowed_means(history, 1), Catch::Contains("window 1 must be >= 2"));
    CHECK_THROWS_WITH(windowed_means(std::span(history).first(1), 2), Catch::Contains("1 iterations"));
    CHECK_THROWS_WITH(mean_interval(std::vector<double>{1.0, std::nan("")}), Catch::Contains("value 1 is nan"));
}

TEST_CASE("windowed means of a training history, with hand-computed t intervals", "[evaluate]") {
    std::vector<IterationMetrics> history(5);
    for (std::size_t k = 0; k < 5; ++k) {
        history[k].iteration = k;
        history[k].true_entropy = static_cast<double>(k + 1);  // 1 2 3 4 5
        history[k].feedback = 10.0;
    }
    const std::vector<HistoryWindow> w = windowed_means(history, 2);
    REQUIRE(w.size() == 2);  // [1 2] and [3 4 5]: a last window of 1 joins the one before
    CHECK(w[0].first == 0);
    CHECK(w[0].count == 2);
    CHECK(w[0].value.mean == 1.5);
    // s = sqrt(1/2), t_{0.975,1} = tan(0.475 π) = 12.7062047...
    CHECK(w[0].value.half_width() == Approx(std::tan(0.475 * std::numbers::pi) * std::sqrt(0.5) / std::sqrt(2.0)).epsilon(1e-9));
    CHECK(w[1].first == 2);
    CHECK(w[1].count == 3);
    CHECK(w[1].value.mean == 4.0);
    CHECK(w[1].value.half_width() == Approx(4.302652730 / std::sqrt(3.0)).epsilon(1e-9));  // s = 1, t_{0.975,2}
    const std::vector<HistoryWindow> f = windowed_means(history, 5, &IterationMetrics::feedback);
    REQUIRE(f.size() == 1);
    CHECK(f[0].value.mean == 10.0);
    CHECK(f[0].value.half_width() == 0.0);
}

}  // namespace test_evaluate
