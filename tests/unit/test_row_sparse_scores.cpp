// Tests of row-sparse scores for the policies with fixed parameters: the
// belief-averaged policy (logit form), the mixture and the believed-state policy S̃ record
// their scores on the rows they touch (RowSparsePolicy), and the trainer takes that path
// when it pays. Every comparison is `==` on θ and on the metrics after several iterations,
// against the dense path on the same seeds; plus the lazy Adam rule against a hand
// computation, the row score's lead term, and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/row_sparse_batch.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/belief_mixture.hpp"
#include "maxent/policy/believed_state_policy.hpp"
#include "maxent/policy/observation_policy.hpp"
#include "maxent/policy/row_score.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

namespace test_row_sparse_scores {

namespace {

maxent::GridPomdp square_room(std::size_t side, double k, std::size_t horizon) {
    return maxent::make_grid_world({.layout = maxent::GridLayout::single_room(side, side),
                                    .slip = 0.0,
                                    .observation = maxent::observe::gaussian(k),
                                    .horizon = horizon});
}

maxent::TrainerConfig small_config(std::size_t iterations, std::size_t batch, std::uint64_t seed,
                                   maxent::ScorePath path) {
    maxent::TrainerConfig c;
    c.iterations = iterations;
    c.batch = batch;
    c.seed = seed;
    c.track_belief_entropy = true;
    c.scores = path;
    return c;
}

/// Trains the same components on the dense path and on the row path (or the automatic
/// choice) and requires equal bits everywhere; returns whether the second took the rows.
template <class M, class U, class P, class F, class E, class R>
bool same_bits(const M& m, const U& u, const P& p, const F& f, const E& e, const R& r, std::size_t iterations,
               std::size_t batch, maxent::ScorePath second) {
    maxent::Trainer dense(m, u, p, f, e, r, small_config(iterations, batch, 11, maxent::ScorePath::dense));
    maxent::Trainer other(m, u, p, f, e, r, small_config(iterations, batch, 11, second));
    REQUIRE_FALSE(dense.uses_row_scores());
    const maxent::TrainResult x = dense.run();
    const maxent::TrainResult y = other.run();
    REQUIRE(x.history.size() == iterations);
    REQUIRE(y.history.size() == iterations);
    for (std::size_t k = 0; k < iterations; ++k) {
        INFO("iteration " << k);
        REQUIRE(x.history[k].true_entropy == y.history[k].true_entropy);
        REQUIRE(x.history[k].feedback == y.history[k].feedback);
        REQUIRE(x.history[k].belief_entropy_sum == y.history[k].belief_entropy_sum);
        REQUIRE(x.history[k].gradient_norm == y.history[k].gradient_norm);
    }
    REQUIRE(x.parameters.rows() == y.parameters.rows());
    REQUIRE((x.parameters.array() == y.parameters.array()).all());
    CHECK(x.parameters.cwiseAbs().maxCoeff() > 0.0);  // it learned something
    return other.uses_row_scores();
}

template <class M, class U, class P>
void every_estimator(const M& m, const U& u, const P& p, std::size_t iterations, std::size_t batch,
                     maxent::ScorePath second, bool expect_rows) {
    SECTION("reinforce, constant step") {
        CHECK(same_bits(m, u, p, maxent::MSE{}, maxent::Reinforce{}, maxent::ConstantStep(0.3), iterations, batch,
                        second) == expect_rows);
    }
    SECTION("batch mean, constant step, MBE") {
        CHECK(same_bits(m, u, p, maxent::MBE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), iterations,
                        batch, second) == expect_rows);
    }
    SECTION("leave-one-out, Adam") {
        CHECK(same_bits(m, u, p, maxent::MSE{}, maxent::LeaveOneOutBaseline{}, maxent::Adam(0.05), iterations, batch,
                        second) == expect_rows);
    }
    SECTION("optimal baseline, constant step, Reg-MBE") {
        CHECK(same_bits(m, u, p, maxent::RegMBE(0.05), maxent::OptimalBaseline{}, maxent::ConstantStep(0.3),
                        iterations, batch, second) == expect_rows);
    }
    SECTION("batch mean, lazy Adam") {
        CHECK(same_bits(m, u, p, maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::LazyAdam(0.05), iterations,
                        batch, second) == expect_rows);
    }
}

}  // namespace

TEST_CASE("the fixed-parameter belief policies are row-sparse", "[rowsparse]") {
    STATIC_REQUIRE(maxent::RowSparsePolicy<maxent::BeliefAveragedPolicy>);
    STATIC_REQUIRE(maxent::RowSparsePolicy<maxent::BeliefMixturePolicy>);
    STATIC_REQUIRE(maxent::RowSparsePolicy<maxent::BelievedStatePolicy>);
    STATIC_REQUIRE(maxent::policy_has_fixed_parameters<maxent::BeliefAveragedPolicy>);
    STATIC_REQUIRE(maxent::policy_has_fixed_parameters<maxent::BeliefMixturePolicy>);
    STATIC_REQUIRE(maxent::policy_has_fixed_parameters<maxent::BelievedStatePolicy>);
    STATIC_REQUIRE_FALSE(maxent::policy_has_fixed_parameters<maxent::TabularBeliefPolicy>);
    STATIC_REQUIRE_FALSE(maxent::RowSparsePolicy<maxent::ObservationPolicy>);
}

TEST_CASE("paper 5x5 room: the row path gives the dense path's bits (BA)", "[rowsparse][optim]") {
    // The support does not pay here, so the automatic choice is dense; the row path is forced
    // (no support in the views: every row with b(s) != 0 is touched; b_1 becomes the lead).
    const maxent::GridPomdp m = maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, 10.0);
    {
        maxent::Trainer t(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(25, 4), maxent::MSE{},
                          maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), maxent::TrainerConfig{});
        CHECK_FALSE(t.uses_row_scores());
    }
    every_estimator(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(25, 4), 8, 10, maxent::ScorePath::rows,
                    true);
}

TEST_CASE("paper 5x5 room: the row path gives the dense path's bits (mixture)", "[rowsparse][optim]") {
    const maxent::GridPomdp m = maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, 10.0);
    every_estimator(m, maxent::BayesFilter(m), maxent::BeliefMixturePolicy(25, 4), 6, 10, maxent::ScorePath::rows,
                    true);
}

TEST_CASE("paper 5x5 room: the row path gives the dense path's bits (S~)", "[rowsparse][optim]") {
    const maxent::GridPomdp m = maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, 10.0);
    every_estimator(m, maxent::BayesFilter(m), maxent::BelievedStatePolicy(25, 4), 8, 10, maxent::ScorePath::rows,
                    true);
}

TEST_CASE("20 x 20 room: the row path on the belief's support gives the dense path's bits", "[rowsparse][optim]") {
    const maxent::GridPomdp m = square_room(20, 10.0, 60);
    REQUIRE(maxent::BayesFilter<maxent::GridPomdp>(m).support_tracking_pays());
    SECTION("BA") {
        every_estimator(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(400, 4), 6, 6,
                        maxent::ScorePath::rows, true);
    }
    SECTION("mixture") {
        every_estimator(m, maxent::BayesFilter(m), maxent::BeliefMixturePolicy(400, 4), 4, 6,
                        maxent::ScorePath::rows, true);
    }
    SECTION("S~") {
        every_estimator(m, maxent::BayesFilter(m), maxent::BelievedStatePolicy(400, 4), 6, 6,
                        maxent::ScorePath::rows, true);
    }
}

TEST_CASE("the automatic choice: rows when the support is tracked and θ has >= 8 N K rows", "[rowsparse][optim]") {
    // 40 x 40 room, N = 2, T = 20: 1600 >= 8 * 2 * 19 rows: the row path, with the dense bits.
    const maxent::GridPomdp big = square_room(40, 10.0, 20);
    CHECK(same_bits(big, maxent::BayesFilter(big), maxent::BeliefAveragedPolicy(1600, 4), maxent::MSE{},
                    maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), 5, 2, maxent::ScorePath::automatic));
    CHECK(same_bits(big, maxent::BayesFilter(big), maxent::BelievedStatePolicy(1600, 4), maxent::MBE{},
                    maxent::OptimalBaseline{}, maxent::LazyAdam(0.05), 5, 2, maxent::ScorePath::automatic));
    // 20 x 20 room, N = 6, T = 60: 400 < 8 * 6 * 59: dense.
    const maxent::GridPomdp m = square_room(20, 10.0, 60);
    CHECK_FALSE(same_bits(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(400, 4), maxent::MSE{},
                          maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), 2, 6, maxent::ScorePath::automatic));
}

TEST_CASE("20 x 20 room from the model's prior (a point start: no lead term)", "[rowsparse][optim]") {
    const maxent::GridPomdp m = square_room(20, 10.0, 60);
    const maxent::BayesFilter<maxent::GridPomdp> u(m, maxent::model_prior);
    SECTION("BA") {
        CHECK(same_bits(m, u, maxent::BeliefAveragedPolicy(400, 4), maxent::MSE{}, maxent::BatchMeanBaseline{},
                        maxent::ConstantStep(0.3), 6, 6, maxent::ScorePath::rows));
    }
    SECTION("S~, lazy Adam") {
        CHECK(same_bits(m, u, maxent::BelievedStatePolicy(400, 4), maxent::MSE{}, maxent::OptimalBaseline{},
                        maxent::LazyAdam(0.05), 6, 6, maxent::ScorePath::rows));
    }
}

TEST_CASE("set_updater keeps the row path's bits (the base follows the new prior)", "[rowsparse][optim]") {
    const maxent::GridPomdp m = square_room(20, 10.0, 40);
    const auto config_of = [](maxent::ScorePath p) { return small_config(6, 4, 3, p); };
    maxent::Trainer a(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(400, 4), maxent::MSE{},
                      maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config_of(maxent::ScorePath::dense));
    maxent::Trainer b(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(400, 4), maxent::MSE{},
                      maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config_of(maxent::ScorePath::rows));
    REQUIRE(b.uses_row_scores());
    for (int k = 0; k < 3; ++k) {
        a.iterate();
        b.iterate();
    }
    a.set_updater(maxent::BayesFilter<maxent::GridPomdp>(m, maxent::model_prior));
    b.set_updater(maxent::BayesFilter<maxent::GridPomdp>(m, maxent::model_prior));
    for (int k = 0; k < 3; ++k) {
        REQUIRE(a.iterate().gradient_norm == b.iterate().gradient_norm);
    }
    REQUIRE((a.policy().parameters().array() == b.policy().parameters().array()).all());
}

TEST_CASE("LazyAdam follows its rule on a hand-computed sequence", "[rowsparse][step]") {
    const double alpha = 0.1, b1 = 0.9, b2 = 0.99, eps = 1e-8;
    maxent::LazyAdam lazy(alpha, b1, b2, eps);
    Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(2, 1);
    // Gradients: row 0 gets 1 at step 1, nothing at steps 2 and 3, 0.5 at step 4; row 1 gets
    // -2 at every step.
    const double g0[4] = {1.0, 0.0, 0.0, 0.5};
    double m0 = 0.0, v0 = 0.0, th0 = 0.0, m1 = 0.0, v1 = 0.0, th1 = 0.0;
    long last0 = 0;
    for (long t = 1; t <= 4; ++t) {
        Eigen::MatrixXd g(2, 1);
        g << g0[t - 1], -2.0;
        if (t % 2 == 0) {
            lazy.apply(theta, g);  // dense and rows alternate: the same rule
        } else {
            const std::vector<Eigen::Index> rows{0, 1};
            lazy.apply_rows(theta, rows, g);
        }
        const double c1 = 1.0 - std::pow(b1, static_cast<double>(t));
        const double c2 = 1.0 - std::pow(b2, static_cast<double>(t));
        if (g0[t - 1] != 0.0) {
            const long k = t - 1 - last0;
            if (k > 0) {
                m0 *= std::pow(b1, static_cast<double>(k));
                v0 *= std::pow(b2, static_cast<double>(k));
            }
            m0 = b1 * m0 + (1.0 - b1) * g0[t - 1];
            v0 = b2 * v0 + (1.0 - b2) * (g0[t - 1] * g0[t - 1]);
            th0 += alpha * (m0 / c1) / (std::sqrt(v0 / c2) + eps);
            last0 = t;
        }
        m1 = b1 * m1 + (1.0 - b1) * -2.0;
        v1 = b2 * v1 + (1.0 - b2) * 4.0;
        th1 += alpha * (m1 / c1) / (std::sqrt(v1 / c2) + eps);
        INFO("step " << t);
        REQUIRE(theta(0, 0) == th0);
        REQUIRE(theta(1, 0) == th1);
        REQUIRE(lazy.first_moment()(0, 0) == m0);
        REQUIRE(lazy.second_moment()(0, 0) == v0);
    }
    // At step 4 row 0 caught up two skipped decays: m = 0.9^2 · m_1 before the new gradient.
    CHECK(lazy.steps() == 4);
    CHECK(m0 == b1 * (std::pow(b1, 2.0) * (1.0 - b1)) + (1.0 - b1) * 0.5);
}

TEST_CASE("LazyAdam is Adam, bit for bit, when every row has a gradient at every step", "[rowsparse][step]") {
    maxent::DefaultRng g = maxent::stream(5, 0);
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(7, 3), b = a;
    maxent::Adam adam(0.05);
    maxent::LazyAdam lazy(0.05);
    for (int t = 0; t < 20; ++t) {
        Eigen::MatrixXd grad(7, 3);
        for (Eigen::Index i = 0; i < grad.size(); ++i) grad.data()[i] = maxent::uniform01(g) - 0.5 + 1e-3;
        adam.apply(a, grad);
        lazy.apply(b, grad);
        REQUIRE((a.array() == b.array()).all());
    }
    // A row without gradient: Adam moves it with its momentum, lazy Adam does not.
    Eigen::MatrixXd grad = Eigen::MatrixXd::Constant(7, 3, 0.25);
    grad.row(2).setZero();
    const Eigen::MatrixXd before = b;
    adam.apply(a, grad);
    lazy.apply(b, grad);
    CHECK((b.row(2).array() == before.row(2).array()).all());
    CHECK((a.row(2).array() != before.row(2).array()).any());
    CHECK((a.row(3).array() == b.row(3).array()).all());  // touched rows: still Adam's bits
}

TEST_CASE("LazyAdam grows with the parameters and rejects bad settings", "[rowsparse][step]") {
    maxent::LazyAdam lazy(0.05);
    Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(2, 2);
    lazy.apply(theta, Eigen::MatrixXd::Ones(2, 2));
    theta.conservativeResize(4, Eigen::NoChange);
    theta.bottomRows(2).setZero();
    const std::vector<Eigen::Index> rows{3};
    lazy.apply_rows(theta, rows, Eigen::MatrixXd::Ones(1, 2));
    CHECK(theta(2, 0) == 0.0);
    CHECK(theta(3, 0) > 0.0);
    CHECK(lazy.first_moment().rows() == 4);
    CHECK_THROWS_WITH(maxent::LazyAdam(0.05, 1.0), Catch::Contains("beta1 must be in [0, 1), got 1"));
    CHECK_THROWS_WITH(maxent::LazyAdam(-1.0), Catch::Contains("alpha must be finite and > 0, got -1"));
    const std::vector<Eigen::Index> bad{9};
    CHECK_THROWS_WITH(lazy.apply_rows(theta, bad, Eigen::MatrixXd::Ones(1, 2)),
                      Catch::Contains("gradient row 9 is outside the parameters' 4 rows"));
    CHECK(maxent::LazyAdam::name() == "lazy-adam");
}

TEST_CASE("RowScore: slot map, lead term and add_to agree with a dense score", "[rowsparse]") {
    Eigen::VectorXd base = Eigen::VectorXd::Constant(50, 0.02);
    maxent::RowScore rs(3);
    rs.set_base(&base);
    const double c[3] = {0.5, -0.25, -0.25};
    REQUIRE(rs.can_lead());
    rs.lead(std::span<const double>(c, 3));
    Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(50, 3);
    for (Eigen::Index r = 0; r < 50; ++r)
        for (Eigen::Index j = 0; j < 3; ++j) dense(r, j) += c[j] * base[r];
    // 40 rows touched in a scrambled order, some twice (the map takes over after 16).
    for (int pass = 0; pass < 2; ++pass)
        for (Eigen::Index i = 0; i < 40; ++i) {
            const Eigen::Index r = (i * 17) % 50;
            const std::span<double> row = rs.touch(r);
            for (Eigen::Index j = 0; j < 3; ++j) row[static_cast<std::size_t>(j)] += 0.125 * static_cast<double>(i + j + 1);
            for (Eigen::Index j = 0; j < 3; ++j) dense(r, j) += 0.125 * static_cast<double>(i + j + 1);
        }
    CHECK(rs.size() == 40);
    Eigen::MatrixXd from_rows = Eigen::MatrixXd::Zero(50, 3);
    rs.add_to(from_rows);
    REQUIRE((from_rows.array() == dense.array()).all());
    rs.reset(3);
    CHECK(rs.empty());
    CHECK(rs.base() == &base);  // the base survives reset
    CHECK(rs.touch(7)[0] == 0.0);  // no lead now
    CHECK_THROWS_WITH(rs.lead(std::span<const double>(c, 3)), Catch::Contains("already holds 1 rows"));
    maxent::RowScore none(3);
    CHECK_THROWS_WITH(none.lead(std::span<const double>(c, 3)), Catch::Contains("no base is set"));
}

TEST_CASE("RowSparseBatch: the background row and a base that is not flat", "[rowsparse]") {
    Eigen::VectorXd base = Eigen::VectorXd::Constant(10, 0.1);
    maxent::RowSparseBatch batch(2, 4, 2);
    batch.set_base(&base);
    std::vector<maxent::RowScore> scores(2, maxent::RowScore(2));
    const double c0[2] = {0.6, -0.6}, c1[2] = {-0.3, 0.3};
    scores[0].set_base(&base);
    scores[1].set_base(&base);
    scores[0].lead(std::span<const double>(c0, 2));
    scores[1].lead(std::span<const double>(c1, 2));
    scores[0].touch(4)[0] += 1.0;
    scores[1].touch(2)[1] += 1.0;
    batch.gather(scores);
    REQUIRE(batch.rows().size() == 2);
    CHECK(batch.rows()[0] == 2);
    CHECK(batch.rows()[1] == 4);
    REQUIRE(batch.background());
    CHECK(batch.background_row(0));
    CHECK_FALSE(batch.background_row(4));
    const Eigen::MatrixXd& m0 = batch.compact()[0];
    CHECK(m0(0, 0) == 0.0 + 0.6 * 0.1);          // row 2, untouched by score 0
    CHECK(m0(1, 0) == (0.0 + 0.6 * 0.1) + 1.0);  // row 4, touched
    CHECK(m0(2, 1) == 0.0 + -0.6 * 0.1);         // background
    base[3] = 0.2;
    CHECK_THROWS_WITH(batch.set_base(&base), Catch::Contains("not flat: entry 3 is 0.2"));
}

TEST_CASE("ScorePath errors name the reason", "[rowsparse][errors]") {
    const maxent::GridPomdp m = square_room(20, 10.0, 10);
    maxent::TrainerConfig c = small_config(1, 2, 0, maxent::ScorePath::rows);
    CHECK_THROWS_WITH(maxent::Trainer(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(400, 4), maxent::MSE{},
                                      maxent::PerStepBaseline{}, maxent::ConstantStep(0.3), c),
                      Catch::Contains("ScorePath::rows was asked for, but the estimator uses per-step scores"));
    CHECK_THROWS_WITH(maxent::Trainer(m, maxent::BayesFilter(m), maxent::ObservationPolicy(m.num_observations(), 4),
                                      maxent::MSE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c),
                      Catch::Contains("the policy has no sample_rows"));
    c.scores = maxent::ScorePath::dense;
    CHECK_THROWS_WITH(maxent::Trainer(m, maxent::BayesFilter(m), maxent::TabularBeliefPolicy(400, 4), maxent::MSE{},
                                      maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c),
                      Catch::Contains("ScorePath::dense was asked for, but the policy may grow its parameters"));
    // A per-step estimator with the automatic choice: the dense path, no error.
    c.scores = maxent::ScorePath::automatic;
    maxent::Trainer t(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(400, 4), maxent::MSE{},
                      maxent::PerStepBaseline{}, maxent::ConstantStep(0.3), c);
    CHECK_FALSE(t.uses_row_scores());
    t.run();
}

TEST_CASE("BA's first-step logits, computed once per batch, follow θ changed between iterations",
          "[rowsparse][optim]") {
    // The row path computes θᵀ b_1 once per batch (batch_base); θ changed from outside between
    // two iterations must be seen by the next batch, as on the dense path.
    const maxent::GridPomdp m = square_room(40, 10.0, 20);
    maxent::Trainer a(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(1600, 4), maxent::RegMBE(0.05),
                      maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3),
                      small_config(6, 3, 5, maxent::ScorePath::dense));
    maxent::Trainer b(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(1600, 4), maxent::RegMBE(0.05),
                      maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3),
                      small_config(6, 3, 5, maxent::ScorePath::automatic));
    REQUIRE(b.uses_row_scores());
    STATIC_REQUIRE(maxent::policy_has_batch_base<maxent::BeliefAveragedPolicy>);
    for (int k = 0; k < 6; ++k) {
        const maxent::IterationMetrics x = a.iterate();
        const maxent::IterationMetrics y = b.iterate();
        REQUIRE(x.true_entropy == y.true_entropy);
        REQUIRE(x.feedback == y.feedback);
        REQUIRE(x.belief_entropy_sum == y.belief_entropy_sum);
        REQUIRE(x.gradient_norm == y.gradient_norm);
        REQUIRE((a.policy().parameters().array() == b.policy().parameters().array()).all());
        // The same change to both θ, spread over every row (so every first step sees it).
        for (Eigen::Index i = 0; i < a.policy().parameters().size(); ++i) {
            const double d = 0.25 * std::sin(0.7 * static_cast<double>(i + k));
            a.policy().parameters().data()[i] += d;
            b.policy().parameters().data()[i] += d;
        }
    }
}

}  // namespace test_row_sparse_scores
