// Tests of optim/evaluate.hpp (a policy's feedbacks with 95% intervals in one call, the
// uniform baseline, windowed means of a history) and core/statistics.hpp. Checked against a
// deterministic world whose entropies are known exactly, the θ = 0 softmax policy (which the
// uniform baseline must equal bit for bit), the exact objective (interval coverage over many
// seeds), hand-computed t intervals, and, for a robot that bumps into walls (repeated
// true-state points), kNN entropies recomputed by brute force with the scale rule's floor.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/particle_filter.hpp"
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
    check_same(a.true_entropy_knn, b.true_entropy_knn);
    CHECK(a.knn_rule == b.knn_rule);
    CHECK(a.knn_resolution_low == b.knn_resolution_low);
    CHECK(a.knn_resolution_high == b.knn_resolution_high);
    CHECK(a.knn_floored == b.knn_floored);
}

/// A robot in a corridor of 3 cells (positions 0, 1, 2) that starts against the left wall;
/// action 0 moves left, 1 right, and a move into a wall leaves it where it is. It reads its
/// position with Gaussian noise (no observation bins: MOE by kNN) and its true position is
/// its state point. 16 steps over 3 positions: some position holds 6 of them or more, so
/// every episode has points with k = 4 others at distance 0.
struct BumpingRobot {
    using state_type = double;
    using observation_type = double;
    std::size_t num_actions() const { return 2; }
    std::size_t horizon() const { return 16; }
    template <class G>
    double sample_initial_state(G&) const {
        return 0.0;
    }
    template <class G>
    double sample_initial_observation(double x, G& g) const {
        return sample_observation(0, x, g);
    }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const {
        return std::clamp(x + (a == 1 ? 1.0 : -1.0), 0.0, 2.0);
    }
    template <class G>
    double sample_observation(std::size_t, double x, G& g) const {
        return x + 0.3 * standard_normal(g);
    }
    double observation_likelihood(std::size_t, double o, double x) const {
        const double r = (o - x) / 0.3;
        return std::exp(-0.5 * r * r);
    }
    std::size_t num_state_bins() const { return 3; }
    std::size_t state_bin(double x) const { return static_cast<std::size_t>(x); }
    std::size_t state_point_dimension() const { return 1; }
    void state_point(double x, std::span<double> out) const { out[0] = x; }
};

struct Cells {
    std::size_t operator()(double x) const { return static_cast<std::size_t>(x); }
};

/// Ĥ of 1-D points by brute force with the scale rule written out: ε_i the k-th smallest
/// |x_i − x_j|, floored at δ = 1e-12 (max − min), or 1e-12 when all points are equal.
double scale_rule_by_hand(const std::vector<double>& x, std::size_t k, std::size_t& floored) {
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    const double delta = *hi > *lo ? 1e-12 * (*hi - *lo) : 1e-12;
    const std::size_t n = x.size();
    double sum_log = 0.0;
    std::vector<double> d;
    for (std::size_t i = 0; i < n; ++i) {
        d.clear();
        for (std::size_t j = 0; j < n; ++j)
            if (j != i) d.push_back(std::abs(x[i] - x[j]));
        std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k - 1), d.end());
        floored += d[k - 1] < delta ? 1 : 0;
        sum_log += std::log(std::max(d[k - 1], delta));
    }
    // ψ(n) − ψ(k) = Σ_{j=k}^{n-1} 1/j; V_1 = 2.
    double psi = 0.0;
    for (std::size_t j = k; j < n; ++j) psi += 1.0 / static_cast<double>(j);
    return psi + std::log(2.0) + sum_log / static_cast<double>(n);
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

TEST_CASE("evaluate takes its settings as one struct, the positional form the same call", "[evaluate]") {
    const Model m = test_models::ring_model(5);
    const BayesFilter<Model> filter(m);
    BeliefAveragedPolicy policy(3, 2);
    policy.parameters() << 0.5, -0.2, 0.1, 0.9, -0.4, 0.3;
    const Evaluation positional = evaluate(m, filter, policy, 40, 9, 2, StateCounting::authors);
    check_same(positional, evaluate(m, filter, policy,
                                    {.episodes = 40, .seed = 9, .threads = 2, .counting = StateCounting::authors}));
    check_same(positional, evaluate(m, filter, policy,
                                    EvaluateOptions{.episodes = 40, .seed = 9, .counting = StateCounting::authors}));
    check_same(evaluate_uniform(m, filter, 30, 2), evaluate_uniform(m, filter, {.episodes = 30, .seed = 2}));
    const EvaluateOptions defaults{};
    CHECK(defaults.episodes == 1000);
    CHECK(defaults.threads == 1);
    CHECK(defaults.knn.k == 4);
    CHECK(!defaults.knn.min_distance.has_value());
    // An index world computes no kNN quantity: nothing to report.
    CHECK(positional.knn_rule == "none");
    CHECK(positional.knn_floored == 0);
}

TEST_CASE("evaluate counts a robot that bumps into walls, by the scale rule unless told otherwise", "[evaluate]") {
    const BumpingRobot world;
    DefaultRng g = stream(8);
    const ParticleFilter filter(world, 3, Cells{}, ParticleFilterOptions{.particles = 16}, g);
    // The default: ties counted at 1e-12 of each episode's extent, nothing thrown.
    const Evaluation e = evaluate_uniform(world, filter, {.episodes = 12, .seed = 3});
    CHECK(e.true_entropy_knn_estimator == "knn");
    CHECK(e.observation_entropy_estimator == "knn");
    CHECK(e.knn_rule == "scale");
    CHECK(std::isfinite(e.true_entropy_knn.mean));
    CHECK(std::isfinite(e.observation_entropy.mean));
    // The same episodes replayed, the true-state kNN entropy by brute force.
    RolloutOptions options{StateCounting::paper, {.belief_entropy = true, .believed_states = true}};
    options.needs.state_points = true;
    options.needs.observation_points = true;
    std::vector<double> by_hand;
    std::size_t floored = 0;
    rollout_fixed_policy(world, filter, UniformPolicy(2), options, 3, evaluation_stream_run, 0, 12,
                         [&](std::size_t, const Trajectory& t, DefaultRng&) {
                             const auto p = t.counted_state_points();
                             by_hand.push_back(scale_rule_by_hand(std::vector<double>(p.begin(), p.end()), 4, floored));
                         });
    CHECK(e.true_entropy_knn.mean == Approx(mean_interval(by_hand).mean).epsilon(1e-12));
    CHECK(floored >= 6 * 12);               // pigeonhole: 6 or more points per episode
    CHECK(e.knn_floored >= floored);        // plus any among the noisy readings (none expected)
    CHECK(e.knn_floored <= floored + 12 * 16);
    CHECK(e.knn_resolution_low >= 1e-12 * (1 - 1e-15));
    CHECK(e.knn_resolution_high <= 1e-11);  // extents: 2 at most (positions), a few more (noisy readings)
    // Any thread count: the same numbers and the same report.
    check_same(e, evaluate_uniform(world, filter, {.episodes = 12, .seed = 3, .threads = 3}));
    // A stated resolution, reported as such; min_distance = 0 refuses the ties, naming the settings.
    const Evaluation half = evaluate_uniform(world, filter, {.episodes = 12, .seed = 3, .knn = {.min_distance = 0.5}});
    CHECK(half.knn_rule == "min_distance");
    CHECK(half.knn_resolution_low == 0.5);
    CHECK(half.knn_resolution_high == 0.5);
    CHECK(half.true_entropy_knn.mean > e.true_entropy_knn.mean);
    CHECK_THROWS_AS(evaluate_uniform(world, filter, {.episodes = 12, .seed = 3, .knn = {.min_distance = 0.0}}),
                    numeric_error);
    CHECK_THROWS_WITH(evaluate_uniform(world, filter, {.episodes = 12, .seed = 3, .knn = {.min_distance = 0.0}}),
                      Catch::Contains("distance 0") && Catch::Contains("KnnCounting::min_distance unset"));
    CHECK_THROWS_WITH(evaluate_uniform(world, filter, {.episodes = 12, .seed = 3, .knn = {.min_distance = 1e-200}}),
                      Catch::Contains("min_distance = 1e-200"));
    // k = 0: no kNN quantity, nothing to report.
    const Evaluation none = evaluate_uniform(world, filter, {.episodes = 12, .seed = 3, .knn = {.k = 0}});
    CHECK(none.knn_rule == "none");
    CHECK(none.knn_floored == 0);
    CHECK(none.knn_resolution_high == 0.0);
    check_same(none.true_entropy, e.true_entropy);
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
