// Tests of optim/estimator_quality.hpp (an estimator against the exact gradient in one call),
// of per-step information for estimators (core/step_scores.hpp, optim/step_recording.hpp,
// PerStepBaseline) and of the trainer's accessors. Checked against estimators whose answer
// is known (∇J, 2∇J, 0, ∇J ± d), a hand-written loop over the same streams, a hand-computed
// PerStepBaseline batch, and the plain estimators through the same trainer.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimator_quality.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "ring_model.hpp"

namespace test_estimator_quality {

using namespace maxent;

namespace {

using Model = FinitePomdp<int, int, int>;

BeliefAveragedPolicy random_policy(std::size_t S, std::size_t A, std::uint64_t seed) {
    BeliefAveragedPolicy policy(S, A);
    DefaultRng g(seed);
    Eigen::MatrixXd& theta = policy.parameters();
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
        for (Eigen::Index r = 0; r < theta.rows(); ++r) theta(r, c) = standard_normal(g);
    return policy;
}

/// Returns c · G + (-1)^r d whatever the batch, r the repetition (per-step information).
struct Known {
    Eigen::MatrixXd G;
    double c = 1.0;
    Eigen::MatrixXd d;  // empty: no alternation
    std::vector<std::size_t>* seen = nullptr;
    void estimate(std::span<const double>, std::span<const Eigen::MatrixXd>, const StepScores& steps,
                  Eigen::MatrixXd& out) {
        if (seen != nullptr) seen->push_back(steps.iteration);
        out = c * G;
        if (d.size() != 0) out += (steps.iteration % 2 == 0 ? 1.0 : -1.0) * d;
    }
};

/// Always 0.
struct Zero {
    void estimate(std::span<const double>, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
        out.setZero(s[0].rows(), s[0].cols());
    }
};

/// Reinforce computed from the per-step scores' totals, checking on the way that the K step
/// scores of each trajectory add up to its score bit for bit and that k counts up.
struct StepCheckingReinforce {
    std::size_t expected_iteration = 0;
    bool ok = true;
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, const StepScores& steps,
                  Eigen::MatrixXd& out) {
        ok = ok && steps.iteration == expected_iteration++ && steps.trajectories() == f.size();
        for (std::size_t n = 0; n < f.size(); ++n) {
            Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(s[n].rows(), s[n].cols());
            for (std::size_t t = 0; t < steps.steps; ++t) sum += steps.step(n, t);
            ok = ok && sum == s[n];
        }
        Reinforce{}.estimate(f, s, out);
    }
};

/// Chooses per-step information at run time (uses_steps()): the per-step baseline when it
/// wants it, the batch-mean baseline otherwise; counts the calls of each form.
struct Chooser {
    bool want = false;
    std::size_t plain_calls = 0, step_calls = 0;
    PerStepBaseline per_step{};
    BatchMeanBaseline batch_mean{};
    static constexpr bool entrywise = true;
    [[nodiscard]] bool uses_steps() const { return want; }
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) {
        ++plain_calls;
        batch_mean.estimate(f, s, out);
    }
    void estimate(std::span<const double> f, std::span<const Eigen::MatrixXd> s, const StepScores& steps,
                  Eigen::MatrixXd& out) {
        ++step_calls;
        per_step.estimate(f, s, steps, out);
    }
    [[nodiscard]] std::string_view name() const { return want ? "chooser/per-step" : "chooser/batch-mean"; }
};
static_assert(estimator_chooses_steps<Chooser> && !estimator_chooses_steps<PerStepBaseline>);

struct Fixture {
    Model model = test_models::ring_model(4);
    BeliefAveragedPolicy policy = random_policy(3, 2, 7);
    Eigen::MatrixXd exact = exact_objective(model, policy, MSE{}).gradient;
};

}  // namespace

TEST_CASE("estimator quality: estimators with a known answer give hand-computable numbers", "[estimator-quality]") {
    const Fixture fx;
    const Eigen::MatrixXd& G = fx.exact;
    const double norm = G.norm();
    REQUIRE(norm > 0.0);
    const QualityConfig config{.batch = 3, .repetitions = 10, .seed = 5};
    const BayesFilter<Model> filter(fx.model);

    SECTION("returning the exact gradient: bias 0, covariance 0, cosines 1") {
        const EstimatorQuality q = estimator_quality(fx.model, filter, fx.policy, MSE{}, config, Known{G, 1.0, {}, nullptr});
        CHECK(q.bias_norm == 0.0);
        CHECK(q.relative_bias == 0.0);
        CHECK(q.covariance_trace == 0.0);
        CHECK(q.bias_standard_error == 0.0);
        CHECK(q.mean_cosine == Approx(1.0).epsilon(1e-14));
        CHECK(q.cosine_of_mean == Approx(1.0).epsilon(1e-14));
        CHECK(q.zero_fraction == 0.0);
        CHECK(q.gradient_norm == norm);
        CHECK(q.mean_estimate == G);
        CHECK(q.batch == 3);
        CHECK(q.repetitions == 10);
    }
    SECTION("returning 2 ∇J: relative bias 1, covariance 0") {
        const EstimatorQuality q = estimator_quality(fx.model, filter, fx.policy, MSE{}, config, Known{G, 2.0, {}, nullptr});
        CHECK(q.relative_bias == Approx(1.0).epsilon(1e-14));
        CHECK(q.bias_norm == Approx(norm).epsilon(1e-14));
        CHECK(q.covariance_trace == 0.0);
        CHECK(q.cosine_of_mean == Approx(1.0).epsilon(1e-14));
    }
    SECTION("returning -∇J: cosines -1, relative bias 2") {
        const EstimatorQuality q = estimator_quality(fx.model, filter, fx.policy, MSE{}, config, Known{G, -1.0, {}, nullptr});
        CHECK(q.mean_cosine == Approx(-1.0).epsilon(1e-14));
        CHECK(q.relative_bias == Approx(2.0).epsilon(1e-14));
    }
    SECTION("returning 0: zero fraction 1, cosines 0, relative bias 1") {
        const EstimatorQuality q = estimator_quality(fx.model, filter, fx.policy, MSE{}, config, Zero{});
        CHECK(q.zero_fraction == 1.0);
        CHECK(q.mean_cosine == 0.0);
        CHECK(q.cosine_of_mean == 0.0);
        CHECK(q.relative_bias == 1.0);
        CHECK(q.covariance_trace == 0.0);
        CHECK(q.name == "estimator 0");
    }
    SECTION("∇J ± d alternating with the repetition index: unbiased, covariance ‖d‖² R / (R - 1)") {
        Eigen::MatrixXd d = Eigen::MatrixXd::Zero(G.rows(), G.cols());
        d(0, 0) = 0.3;
        d(2, 1) = -0.4;  // ‖d‖² = 0.25
        std::vector<std::size_t> seen;
        const EstimatorQuality q =
            estimator_quality(fx.model, filter, fx.policy, MSE{}, config, Known{G, 1.0, d, &seen});
        CHECK(q.bias_norm < 1e-15);
        CHECK(q.covariance_trace == Approx(0.25 * 10.0 / 9.0).epsilon(1e-12));
        CHECK(q.bias_standard_error == Approx(std::sqrt(0.25 / 9.0)).epsilon(1e-12));
        REQUIRE(seen.size() == 10);
        for (std::size_t r = 0; r < 10; ++r) CHECK(seen[r] == r);
    }
}

TEST_CASE("estimator quality agrees with a hand-written loop over stream(seed, r, n)", "[estimator-quality]") {
    const Fixture fx;
    constexpr std::size_t N = 4, R = 300;
    const QualityConfig config{.batch = N, .repetitions = R, .seed = 11};
    const EstimatorQuality q =
        estimator_quality(fx.model, BayesFilter<Model>(fx.model), fx.policy, MSE{}, config, LeaveOneOutBaseline{});
    CHECK(q.name == "leave-one-out");

    Sampler<Model, BayesFilter<Model>> sampler(fx.model, BayesFilter<Model>(fx.model));
    BeliefAveragedPolicy policy = fx.policy;
    std::vector<Eigen::MatrixXd> scores(N, Eigen::MatrixXd::Zero(3, 2));
    std::vector<double> f(N);
    std::vector<Eigen::MatrixXd> estimates;
    Eigen::MatrixXd out;
    LeaveOneOutBaseline e;
    MSE mse;
    for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t n = 0; n < N; ++n) {
            DefaultRng g = stream(11, r, n);
            f[n] = mse(sampler.run(policy, g, scores[n]), g);
        }
        e.estimate(f, scores, out);
        estimates.push_back(out);
    }
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(3, 2);
    for (const auto& x : estimates) mean += x;
    mean /= static_cast<double>(R);
    double trace = 0.0, cosine = 0.0;
    for (const auto& x : estimates) {
        trace += (x - mean).squaredNorm();
        cosine += x.norm() > 0.0 ? x.cwiseProduct(fx.exact).sum() / (x.norm() * fx.exact.norm()) : 0.0;
    }
    trace /= static_cast<double>(R - 1);
    CHECK(q.bias_norm == Approx((mean - fx.exact).norm()).epsilon(1e-10));
    CHECK(q.covariance_trace == Approx(trace).epsilon(1e-10));
    CHECK(q.mean_cosine == Approx(cosine / static_cast<double>(R)).epsilon(1e-10));
    // Unbiased: the bias is within a few of its standard errors.
    CHECK(q.bias_norm < 4.0 * q.bias_standard_error);
}

TEST_CASE("estimator quality: paired batches and thread-count independence", "[estimator-quality]") {
    const Fixture fx;
    const BayesFilter<Model> filter(fx.model);
    const QualityConfig config{.batch = 5, .repetitions = 200, .seed = 3};
    const std::vector<EstimatorQuality> pair =
        compare_estimators(fx.model, filter, fx.policy, RegMBE(0.3), config, Reinforce{}, Reinforce{});
    REQUIRE(pair.size() == 2);
    CHECK(pair[0].mean_estimate == pair[1].mean_estimate);
    CHECK(pair[0].covariance_trace == pair[1].covariance_trace);
    CHECK(pair[0].mean_cosine == pair[1].mean_cosine);
    CHECK(pair[0].bias_norm == pair[1].bias_norm);
    const EstimatorQuality alone = estimator_quality(fx.model, filter, fx.policy, RegMBE(0.3), config, Reinforce{});
    CHECK(alone.mean_estimate == pair[0].mean_estimate);
    CHECK(alone.covariance_trace == pair[0].covariance_trace);

    QualityConfig threaded = config;
    threaded.threads = 3;
    const std::vector<EstimatorQuality> one =
        compare_estimators(fx.model, filter, fx.policy, RegMBE(0.3), config, OptimalBaseline{}, PerStepBaseline{});
    const std::vector<EstimatorQuality> three =
        compare_estimators(fx.model, filter, fx.policy, RegMBE(0.3), threaded, OptimalBaseline{}, PerStepBaseline{});
    for (std::size_t i = 0; i < 2; ++i) {
        INFO(one[i].name);
        CHECK(one[i].mean_estimate == three[i].mean_estimate);
        CHECK(one[i].covariance_trace == three[i].covariance_trace);
        CHECK(one[i].mean_cosine == three[i].mean_cosine);
        CHECK(one[i].zero_fraction == three[i].zero_fraction);
    }
}

TEST_CASE("estimator quality: every unbiased estimator is, the per-step baseline reduces variance",
          "[estimator-quality]") {
    const Fixture fx;
    const QualityConfig config{.batch = 10, .repetitions = 2000, .seed = 21, .threads = 2};
    const auto rows = compare_estimators(fx.model, BayesFilter<Model>(fx.model), fx.policy, MSE{}, config, Reinforce{},
                                         BatchMeanBaseline{}, LeaveOneOutBaseline{}, OptimalBaseline{},
                                         PerStepBaseline{});
    for (const EstimatorQuality& q : rows) {
        INFO(q.name << ": bias " << q.bias_norm << " +- " << q.bias_standard_error << ", trace "
                    << q.covariance_trace << ", cosine " << q.mean_cosine);
        if (q.name == "batch-mean")  // E = (N - 1)/N ∇J
            CHECK((q.mean_estimate - 0.9 * fx.exact).norm() < 4.0 * q.bias_standard_error);
        else
            CHECK(q.bias_norm < 4.0 * q.bias_standard_error);
    }
    CHECK(rows[4].name == "per-step");
    CHECK(rows[4].covariance_trace < 0.5 * rows[0].covariance_trace);  // measured: about 1/6
}

TEST_CASE("estimator quality refuses bad input with a message naming it", "[estimator-quality]") {
    const Fixture fx;
    const BayesFilter<Model> filter(fx.model);
    CHECK_THROWS_WITH(estimator_quality(fx.model, filter, fx.policy, MSE{}, {.batch = 0}, Reinforce{}),
                      Catch::Contains("batch (N) must be >= 1"));
    CHECK_THROWS_WITH(estimator_quality(fx.model, filter, fx.policy, MSE{}, {.repetitions = 1}, Reinforce{}),
                      Catch::Contains("repetitions (R) must be >= 2") && Catch::Contains("got 1"));
    // A zero feedback: ∇J = 0, so relative bias and cosines are undefined.
    CHECK_THROWS_WITH(estimator_quality(fx.model, filter, fx.policy, PartitionEntropy({0, 0, 0}),
                                        {.repetitions = 2}, Reinforce{}),
                      Catch::Contains("exact gradient is 0"));
    struct WrongShape {
        void estimate(std::span<const double>, std::span<const Eigen::MatrixXd>, Eigen::MatrixXd& out) const {
            out.setZero(2, 2);
        }
    };
    CHECK_THROWS_WITH(estimator_quality(fx.model, filter, fx.policy, MSE{}, {.repetitions = 2}, WrongShape{}),
                      Catch::Contains("2 x 2 estimate, the parameters are 3 x 2"));
    struct NotFinite {
        void estimate(std::span<const double>, std::span<const Eigen::MatrixXd> s, Eigen::MatrixXd& out) const {
            out.setConstant(s[0].rows(), s[0].cols(), std::nan(""));
        }
    };
    CHECK_THROWS_AS(estimator_quality(fx.model, filter, fx.policy, MSE{}, {.repetitions = 2}, NotFinite{}),
                    numeric_error);
    CHECK_THROWS_AS(estimator_quality(fx.model, filter, fx.policy, MBE{},
                                      {.repetitions = 2, .max_leaves = 10}, Reinforce{}),
                    budget_error);
}

TEST_CASE("per-step baseline: a hand-computed batch, and N = 1 is REINFORCE", "[estimator-quality]") {
    // One parameter, N = 2 trajectories of K = 2 steps: F = (1, 3), step scores (1, 2) and
    // (-1, 1), totals G = (3, 0). Per step t: num_t = Σ F g_t² = (4, 7), den_t = Σ g_t² = (2, 5).
    // n = 0: b_0 = (4 - 1) / (2 - 1) = 3, b_1 = (7 - 4) / (5 - 4) = 3 -> (1 - 3)·1 + (1 - 3)·2 = -6.
    // n = 1: b_0 = (4 - 3) / (2 - 1) = 1, b_1 = (7 - 3) / (5 - 1) = 1 -> (3 - 1)·(-1) + (3 - 1)·1 = 0.
    // ĝ = (-6 + 0) / 2 = -3: with one other trajectory, its feedback is the baseline.
    const std::vector<double> f{1.0, 3.0};
    std::vector<Eigen::MatrixXd> s{Eigen::MatrixXd::Constant(1, 1, 3.0), Eigen::MatrixXd::Constant(1, 1, 0.0)};
    std::vector<Eigen::MatrixXd> steps{Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Constant(1, 1, 2.0),
                                       Eigen::MatrixXd::Constant(1, 1, -1.0), Eigen::MatrixXd::Constant(1, 1, 1.0)};
    PerStepBaseline e;
    Eigen::MatrixXd out;
    e.estimate(f, s, StepScores{0, 2, steps}, out);
    REQUIRE(out.size() == 1);
    CHECK(out(0, 0) == Approx(-3.0).epsilon(1e-15));

    // N = 1: no other trajectory, baseline 0: Σ_t F g_t = F G.
    e.estimate(std::span<const double>(f).first(1), std::span<const Eigen::MatrixXd>(s).first(1),
               StepScores{0, 2, std::span<const Eigen::MatrixXd>(steps).first(2)}, out);
    CHECK(out(0, 0) == Approx(3.0).epsilon(1e-15));

    CHECK_THROWS_WITH(e.estimate(f, s, StepScores{0, 3, steps}, out),
                      Catch::Contains("4 step scores for N = 2 trajectories of K = 3 steps"));
    static_assert(estimator_uses_steps<PerStepBaseline>);
    static_assert(!estimator_uses_steps<Reinforce>);
    static_assert(GradientEstimator<PerStepBaseline>);
}

TEST_CASE("trainer: per-step information reaches opted-in estimators without changing the scores",
          "[estimator-quality]") {
    const Model model = test_models::ring_model(5);
    TrainerConfig config;
    config.iterations = 30;
    config.batch = 4;
    config.seed = 9;
    Trainer plain(model, BayesFilter<Model>(model), BeliefAveragedPolicy(3, 2), MSE{}, Reinforce{},
                  ConstantStep(0.5), config);
    Trainer stepped(model, BayesFilter<Model>(model), BeliefAveragedPolicy(3, 2), MSE{}, StepCheckingReinforce{},
                    ConstantStep(0.5), config);
    const TrainResult a = plain.run();
    const TrainResult b = stepped.run();
    CHECK(stepped.estimator().ok);
    CHECK(stepped.estimator().expected_iteration == 30);
    // The belief-averaged policy adds each step's score with one addition per entry, so the
    // totals built from the step scores are the same bits, and so is the run.
    CHECK(a.parameters == b.parameters);
    for (std::size_t k = 0; k < 30; ++k) CHECK(a.history[k].gradient_norm == b.history[k].gradient_norm);

    Trainer per_step(model, BayesFilter<Model>(model), BeliefAveragedPolicy(3, 2), MSE{}, PerStepBaseline{},
                     ConstantStep(0.5), config);
    const TrainResult c = per_step.run();
    CHECK(c.parameters.allFinite());
    CHECK(c.history.size() == 30);
}

TEST_CASE("trainer: an estimator choosing per-step information at run time gets it only when it asks",
          "[estimator-quality]") {
    const Model model = test_models::ring_model(5);
    TrainerConfig config;
    config.iterations = 20;
    config.batch = 4;
    config.seed = 3;
    auto run = [&](auto estimator) {
        Trainer t(model, BayesFilter<Model>(model), BeliefAveragedPolicy(3, 2), MSE{}, estimator, ConstantStep(0.5),
                  config);
        TrainResult r = t.run();
        return std::make_pair(std::move(r), t.estimator());
    };
    // Declining: the plain form only, the batch-mean baseline's bits.
    const auto [declined, c1] = run(Chooser{false});
    const auto [batch_mean, b] = run(BatchMeanBaseline{});
    CHECK(c1.step_calls == 0);
    CHECK(c1.plain_calls == 20);
    CHECK(declined.parameters == batch_mean.parameters);
    // Asking: the per-step form only, the per-step baseline's bits.
    const auto [asked, c2] = run(Chooser{true});
    const auto [per_step, p] = run(PerStepBaseline{});
    CHECK(c2.plain_calls == 0);
    CHECK(c2.step_calls == 20);
    CHECK(asked.parameters == per_step.parameters);
    for (std::size_t k = 0; k < 20; ++k) CHECK(asked.history[k].gradient_norm == per_step.history[k].gradient_norm);
    CHECK(asked.parameters != declined.parameters);

    // A policy that needs the row path (class B) records no per-step scores: refused when asked.
    CHECK_THROWS_AS(Trainer(model, BayesFilter<Model>(model), TabularBeliefPolicy(3, 2), MSE{}, Chooser{true},
                            ConstantStep(0.5), config),
                    config_error);
    CHECK_THROWS_WITH(Trainer(model, BayesFilter<Model>(model), TabularBeliefPolicy(3, 2), MSE{}, Chooser{true},
                              ConstantStep(0.5), config),
                      Catch::Contains("asks for per-step scores"));
    Trainer b_declined(model, BayesFilter<Model>(model), TabularBeliefPolicy(3, 2), MSE{}, Chooser{false},
                       ConstantStep(0.5), config);
    CHECK(b_declined.uses_row_scores());
    // A fixed-parameter row-sparse policy forced onto the rows while asking: refused, naming why.
    config.scores = ScorePath::rows;
    CHECK_THROWS_WITH(Trainer(model, BayesFilter<Model>(model), BeliefAveragedPolicy(3, 2), MSE{}, Chooser{true},
                              ConstantStep(0.5), config),
                      Catch::Contains("the estimator uses per-step scores (uses_steps())"));
    Trainer rows(model, BayesFilter<Model>(model), BeliefAveragedPolicy(3, 2), MSE{}, Chooser{false},
                 ConstantStep(0.5), config);
    CHECK(rows.uses_row_scores());
}

TEST_CASE("estimator quality: an estimator choosing per-step information at run time", "[estimator-quality]") {
    const Fixture fx;
    const QualityConfig config{.batch = 6, .repetitions = 40, .seed = 5, .threads = 2};
    const auto rows = compare_estimators(fx.model, BayesFilter<Model>(fx.model), fx.policy, MSE{}, config,
                                         Chooser{true}, PerStepBaseline{}, Chooser{false}, BatchMeanBaseline{});
    CHECK(rows[0].name == "chooser/per-step");
    CHECK(rows[0].mean_estimate == rows[1].mean_estimate);
    CHECK(rows[0].covariance_trace == rows[1].covariance_trace);
    CHECK(rows[2].name == "chooser/batch-mean");
    CHECK(rows[2].mean_estimate == rows[3].mean_estimate);
    // Without any estimator asking, no per-step scores are recorded: the same batches still.
    const auto plain = compare_estimators(fx.model, BayesFilter<Model>(fx.model), fx.policy, MSE{}, config,
                                          Chooser{false});
    CHECK(plain[0].mean_estimate == rows[3].mean_estimate);
}

TEST_CASE("trainer exposes its updater and estimator", "[estimator-quality]") {
    const Model model = test_models::ring_model(5);
    TrainerConfig config;
    config.iterations = 5;
    config.batch = 3;
    Trainer trainer(model, NoisyBelief<BayesFilter<Model>>(BayesFilter<Model>(model), 0.3), BeliefAveragedPolicy(3, 2),
                    MSE{}, OptimalBaseline{}, ConstantStep(0.1), config);
    CHECK(trainer.updater().stats().clipped_entries == 0);
    trainer.run();
    const auto& constant = trainer;
    CHECK(constant.updater().stats().clipped_entries > 0);  // σ = 0.3 clips some entries of 3-state beliefs
    CHECK(constant.updater().sigma() == 0.3);
    CHECK(std::string(constant.estimator().name()) == "optimal");
}

}  // namespace test_estimator_quality
