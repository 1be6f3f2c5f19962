// Tests of optim/ and objective/feedbacks: rollout, feedbacks, estimators, step rules, the
// trainer (Algorithm 1) and parallel runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace test_optim {

using namespace maxent;
using Catch::Matchers::Contains;

namespace {
/// A deterministic 1-D corridor of `n` cells, actions left/right, identity observations.
FinitePomdp<int, int, int> corridor(int n, std::size_t horizon) {
    std::vector<int> cells(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) cells[static_cast<std::size_t>(i)] = i;
    return FinitePomdp<int, int, int>::from_functions(
        cells, {0, 1}, cells,
        [n](int s, int a) {
            const int next = a == 0 ? std::max(0, s - 1) : std::min(n - 1, s + 1);
            return std::vector<std::pair<int, double>>{{next, 1.0}};
        },
        [](int s) { return std::vector<std::pair<int, double>>{{s, 1.0}}; }, {{0, 1.0}}, horizon);
}
}  // namespace

TEST_CASE("which entries each feedback counts under each convention: a two-action episode", "[optim][counting]") {
    // One episode of two actions a_1, a_2: steps 1..3 hold s = (0, 1, 1), o = (2, 2, 0),
    // s~ = (3, 4, 4), H(b) = (0.5, 0.25, 0.125). Every quantity is chosen so that each
    // alignment gives a different value.
    Trajectory t;
    t.num_states = 5;
    t.num_observations = 3;
    t.belief_dimension = 5;
    t.states = {0, 1, 1};
    t.observations = {2, 2, 0};
    t.actions = {1, 0};
    t.believed = {3, 4, 4};
    t.belief_entropy = {0.5, 0.25, 0.125};
    DefaultRng g(0);
    const double third = -(std::log(1.0 / 3.0) / 3.0 + 2.0 * std::log(2.0 / 3.0) / 3.0);  // H(1/3, 2/3)

    SECTION("paper: T = 3 (two actions), every quantity at steps 1..3") {
        t.counting = StateCounting::paper;
        t.horizon = 3;
        CHECK(t.counted_states().size() == 3);
        CHECK(MSE{}(t, g) == Approx(third));                     // s_1..s_3 = 0, 1, 1
        CHECK(MOE{}(t, g) == Approx(third));                     // o_1..o_3 = 2, 2, 0
        CHECK(MBE{}(t, g) == Approx(third));                     // s~_1..s~_3 = 3, 4, 4
        CHECK(belief_entropy_sum(t) == Approx(0.875));           // H(b_1)..H(b_3)
        CHECK(RegMBE(2.0)(t, g) == Approx(third - 2.0 * 0.875));
    }
    SECTION("authors: T = 2 (two actions), states after each action, the rest at acting time") {
        t.counting = StateCounting::authors;
        t.horizon = 2;
        CHECK(t.counted_begin(Counted::states) == 1);
        CHECK(t.counted_begin(Counted::observations) == 0);
        CHECK(t.counted_begin(Counted::believed_states) == 0);
        CHECK(t.counted_begin(Counted::belief_entropies) == 0);
        CHECK(MSE{}(t, g) == 0.0);                               // s_2, s_3 = 1, 1
        CHECK(MOE{}(t, g) == 0.0);                               // o_1, o_2 = 2, 2 (not o_2, o_3 = 2, 0)
        CHECK(MBE{}(t, g) == Approx(std::log(2.0)));             // s~_1, s~_2 = 3, 4 (not 4, 4)
        CHECK(belief_entropy_sum(t) == Approx(0.75));            // H(b_1) + H(b_2) (not 0.375)
        CHECK(RegMBE(2.0)(t, g) == Approx(std::log(2.0) - 1.5));
    }
    SECTION("a sequence shorter than what is counted is refused, naming both sizes") {
        t.counting = StateCounting::paper;
        t.horizon = 3;
        t.believed = {3, 4};
        CHECK_THROWS_WITH(t.counted_believed(), Contains("2 entries, 3 are counted"));
        CHECK_THROWS_WITH(MBE{}(t, g), Contains("recorded 2 believed states, 3 needed"));
    }
}

TEST_CASE("feedbacks compute the entropies of hand-built trajectories", "[optim][feedback]") {
    Trajectory t;
    t.counting = StateCounting::paper;
    t.horizon = 4;
    t.num_states = 5;
    t.belief_dimension = 5;
    t.num_observations = 3;
    t.states = {0, 1, 1, 2};             // d = (1/4, 1/2, 1/4): H = 1.5 log 2
    t.observations = {0, 0, 0, 0};       // H = 0
    t.actions = {1, 1, 1};
    t.believed = {4, 3, 2, 1};           // all distinct: log 4
    t.belief_entropy = {1.0, 0.5, 0.25, 0.25};
    DefaultRng g(0);
    CHECK(MSE{}(t, g) == Approx(1.5 * std::log(2.0)));
    CHECK(MOE{}(t, g) == 0.0);
    CHECK(MBE{}(t, g) == Approx(std::log(4.0)));
    CHECK(RegMBE(0.5)(t, g) == Approx(std::log(4.0) - 0.5 * 2.0));
    CHECK(RegMBE(0.0)(t, g) == Approx(std::log(4.0)));
    CHECK(belief_entropy_sum(t) == Approx(2.0));
    // Partition {0,1} -> 0, {2,3,4} -> 1: blocks (0,0,0,1) -> H(3/4, 1/4).
    PartitionEntropy rooms({0, 0, 1, 1, 1});
    CHECK(rooms(t, g) == Approx(-(0.75 * std::log(0.75) + 0.25 * std::log(0.25))));

    // The authors' convention counts s_2..s_{T+1} but o_1..o_T, s~_1..s~_T and H(b_1)..H(b_T).
    t.counting = StateCounting::authors;
    t.states = {0, 1, 2, 3, 4};
    t.observations = {0, 1, 2, 0, 0};
    t.believed = {0, 0, 0, 0, 0};
    t.belief_entropy = {9.0, 1.0, 1.0, 1.0, 1.0};
    CHECK(MSE{}(t, g) == Approx(std::log(4.0)));
    // observations counted: 0, 1, 2, 0 -> (1/2, 1/4, 1/4)
    CHECK(MOE{}(t, g) == Approx(1.5 * std::log(2.0)));
    CHECK(MBE{}(t, g) == 0.0);
    CHECK(belief_entropy_sum(t) == Approx(12.0));  // H(b_1) .. H(b_4) = 9 + 1 + 1 + 1

    REQUIRE_THROWS_WITH(RegMBE(-0.1), Catch::Contains("rho") && Catch::Contains("-0.1"));
    REQUIRE_THROWS_AS(RegMBE(std::nan("")), config_error);
    t.believed.clear();
    REQUIRE_THROWS_AS(MBE{}(t, g), config_error);
    STATIC_REQUIRE(Feedback<MSE>);
    STATIC_REQUIRE(Feedback<RegMBE>);
    STATIC_REQUIRE(Feedback<PartitionEntropy>);
}

TEST_CASE("estimators give the closed-form values on a tiny batch", "[optim][estimator]") {
    // N = 3 scalar scores g = (1, 2, -1), feedbacks F = (1, 2, 3); F̄ = 2.
    std::vector<Eigen::MatrixXd> s(3, Eigen::MatrixXd(1, 1));
    s[0](0, 0) = 1;
    s[1](0, 0) = 2;
    s[2](0, 0) = -1;
    const std::vector<double> f{1, 2, 3};
    Eigen::MatrixXd out;
    Reinforce{}.estimate(f, s, out);
    CHECK(out(0, 0) == Approx((1 * 1 + 2 * 2 + 3 * -1) / 3.0));  // 2/3
    BatchMeanBaseline{}.estimate(f, s, out);
    CHECK(out(0, 0) == Approx((-1 * 1 + 0 * 2 + 1 * -1) / 3.0));  // -2/3
    LeaveOneOutBaseline{}.estimate(f, s, out);
    // baselines (2+3)/2 = 2.5, (1+3)/2 = 2, (1+2)/2 = 1.5
    CHECK(out(0, 0) == Approx(((1 - 2.5) * 1 + (2 - 2) * 2 + (3 - 1.5) * -1) / 3.0));  // -1
    CHECK(out(0, 0) == Approx(3.0 / 2.0 * (-2.0 / 3.0)));  // N/(N-1) x batch mean
    OptimalBaseline opt;
    opt.estimate(f, s, out);
    // b_{-0} = (2*4 + 3*1)/(4+1) = 11/5; b_{-1} = (1*1 + 3*1)/2 = 2; b_{-2} = (1*1 + 2*4)/5 = 9/5
    CHECK(out(0, 0) == Approx(((1 - 2.2) * 1 + (2 - 2.0) * 2 + (3 - 1.8) * -1) / 3.0));

    // N = 1: leave-one-out and optimal have no other trajectory (baseline 0), batch mean gives 0.
    const std::vector<double> f1{2.0};
    const std::vector<Eigen::MatrixXd> s1{s[1]};
    LeaveOneOutBaseline{}.estimate(f1, s1, out);
    CHECK(out(0, 0) == Approx(4.0));
    opt.estimate(f1, s1, out);
    CHECK(out(0, 0) == Approx(4.0));
    BatchMeanBaseline{}.estimate(f1, s1, out);
    CHECK(out(0, 0) == 0.0);

    const std::vector<double> empty;
    const std::vector<Eigen::MatrixXd> none;
    REQUIRE_THROWS_WITH(Reinforce{}.estimate(empty, none, out), Catch::Contains("N = 0"));
    const std::vector<double> bad{1.0, std::nan(""), 3.0};
    REQUIRE_THROWS_WITH(Reinforce{}.estimate(bad, s, out), Catch::Contains("feedback 1"));
    STATIC_REQUIRE(GradientEstimator<OptimalBaseline>);
}

TEST_CASE("step rules move along the gradient and reject bad settings", "[optim][step]") {
    Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(2, 2);
    Eigen::MatrixXd g(2, 2);
    g << 1, -2, 0.5, 0;
    ConstantStep(0.3).apply(theta, g);
    CHECK(theta(0, 1) == Approx(-0.6));
    CHECK(theta(1, 0) == Approx(0.15));
    Adam adam(0.1);
    theta.setZero();
    adam.apply(theta, g);  // first Adam step is alpha * g / (|g| + eps') = ±alpha
    CHECK(theta(0, 0) == Approx(0.1).epsilon(1e-6));
    CHECK(theta(0, 1) == Approx(-0.1).epsilon(1e-6));
    CHECK(theta(1, 1) == 0.0);
    REQUIRE_THROWS_WITH(ConstantStep(0.0), Catch::Contains("alpha") && Catch::Contains("0"));
    REQUIRE_THROWS_AS(ConstantStep(-1.0), config_error);
    REQUIRE_THROWS_AS(ConstantStep(std::numeric_limits<double>::infinity()), config_error);
    REQUIRE_THROWS_AS(Adam(0.1, 1.0), config_error);
    Eigen::MatrixXd wrong(3, 1);
    REQUIRE_THROWS_AS(ConstantStep(0.1).apply(theta, wrong), config_error);
}

TEST_CASE("a rollout follows the model and the counting convention", "[optim][rollout]") {
    const auto m = corridor(4, 4);
    BeliefAveragedPolicy policy(4, 2);
    policy.parameters().col(1).setConstant(50.0);  // always move right
    Eigen::MatrixXd score(4, 2);
    DefaultRng g(3);

    Sampler paper(m, BayesFilter(m), RolloutOptions{StateCounting::paper, {true, true, true}});
    const Trajectory& t = paper.run(policy, g, score);
    REQUIRE(t.states == std::vector<std::size_t>{0, 1, 2, 3});
    REQUIRE(t.actions.size() == 3);
    REQUIRE(t.observations == t.states);  // identity observations
    REQUIRE(t.believed.size() == 4);
    REQUIRE(t.belief_entropy.size() == 4);
    CHECK(t.belief_entropy[0] == Approx(std::log(4.0)));  // uniform prior b_1
    CHECK(t.belief_entropy[1] == Approx(0.0).margin(1e-12));  // identity observation localises
    CHECK(t.beliefs.col(3)(3) == Approx(1.0));
    DefaultRng g2(0);
    CHECK(MSE{}(t, g2) == Approx(std::log(4.0)));

    Sampler authors(m, BayesFilter(m), RolloutOptions{StateCounting::authors, {}});
    const Trajectory& u = authors.run(policy, g, score);
    REQUIRE(u.states == std::vector<std::size_t>{0, 1, 2, 3, 3});
    REQUIRE(u.actions.size() == 4);
    CHECK(MSE{}(u, g2) == Approx(-(0.5 * std::log(0.25) + 0.5 * std::log(0.5))));  // (1,2,3,3)
}

TEST_CASE("the rollout's score is the sum of the policy's log-gradients", "[optim][rollout]") {
    auto m = single_room(3, 3, 0.1, observe::gaussian(1.0));
    BeliefAveragedPolicy policy(9, 4);
    DefaultRng init(11);
    for (Eigen::Index i = 0; i < policy.parameters().size(); ++i) policy.parameters()(i) = standard_normal(init);
    Sampler sampler(m, BayesFilter(m), RolloutOptions{StateCounting::paper, {false, false, true}});
    Eigen::MatrixXd score(9, 4);
    DefaultRng g(5);
    const Trajectory& t = sampler.run(policy, g, score);
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(9, 4);
    for (std::size_t k = 0; k < t.actions.size(); ++k) {
        const Eigen::VectorXd b = t.beliefs.col(static_cast<Eigen::Index>(k));
        policy.log_gradient(AgentView{k, t.observations[k], b}, t.actions[k], expected);
    }
    CHECK((score - expected).cwiseAbs().maxCoeff() < 1e-12);
}

// Allocation after the first iteration is audited in tests/alloc/test_no_allocation.cpp.

TEST_CASE("training MSE with the BA policy learns to cover a 3x3 room", "[optim][learning]") {
    // Deterministic 3 x 3 single room, Gaussian observations k = 10, T = S = 9,
    // alpha = 0.3, N = 10, batch-mean baseline (the paper's settings), K = 2000.
    const auto m = single_room(3, 3, 0.0, observe::gaussian(10.0));
    const double target = 0.9 * std::log(9.0);  // 1.9775
    for (std::uint64_t seed : {0u, 1u, 2u}) {
        TrainerConfig cfg;
        cfg.iterations = 2000;
        cfg.seed = seed;
        const auto result = train(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MSE{}, BatchMeanBaseline{},
                                  ConstantStep(0.3), cfg);
        REQUIRE(result.history.size() == 2000);
        double last = 0.0;
        for (std::size_t i = 1950; i < 2000; ++i) last += result.history[i].true_entropy;
        last /= 50.0;
        INFO("seed " << seed << ": mean batch entropy over the last 50 iterations " << last);
        CHECK(result.history.front().true_entropy < 1.6);  // the uniform policy is far from it
        CHECK(last >= target);
    }
}

TEST_CASE("the trainer validates its configuration before any work", "[optim][trainer]") {
    const auto m = single_room(3, 3);
    TrainerConfig cfg;
    cfg.iterations = 0;
    REQUIRE_THROWS_WITH(Trainer(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MSE{}, Reinforce{}, ConstantStep(0.3),
                                cfg),
                        Catch::Contains("iterations"));
    cfg.iterations = 5;
    cfg.batch = 0;
    REQUIRE_THROWS_WITH(Trainer(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MSE{}, Reinforce{}, ConstantStep(0.3),
                                cfg),
                        Catch::Contains("batch"));
    cfg.batch = 2;
    REQUIRE_THROWS_WITH(Trainer(m, BayesFilter(m), BeliefAveragedPolicy(16, 4), MSE{}, Reinforce{}, ConstantStep(0.3),
                                cfg),
                        Catch::Contains("16") && Catch::Contains("9 states"));
}

TEST_CASE("runs are pure functions of the seed, callbacks see every iteration and can stop", "[optim][trainer]") {
    const auto m = single_room(3, 3, 0.1, observe::gaussian(1.0));
    TrainerConfig cfg;
    cfg.iterations = 40;
    cfg.seed = 7;
    auto run = [&](std::uint64_t seed) {
        TrainerConfig c = cfg;
        c.seed = seed;
        return train(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), RegMBE(0.02), BatchMeanBaseline{},
                     ConstantStep(0.3), c);
    };
    const auto a = run(7), b = run(7), c = run(8);
    REQUIRE(a.parameters == b.parameters);
    REQUIRE(a.history.size() == 40);
    for (std::size_t i = 0; i < 40; ++i) {
        REQUIRE(a.history[i].true_entropy == b.history[i].true_entropy);
        REQUIRE(a.history[i].feedback == b.history[i].feedback);
        REQUIRE(a.history[i].iteration == i);
        REQUIRE(a.history[i].belief_entropy_sum > 0.0);
    }
    REQUIRE(a.parameters != c.parameters);

    std::vector<std::size_t> seen;
    const auto stopped = train(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MSE{}, Reinforce{}, ConstantStep(0.3),
                               cfg, [&](const IterationMetrics& x) {
                                   seen.push_back(x.iteration);
                                   return x.iteration < 9;  // stop after the 10th
                               });
    REQUIRE(stopped.stopped_early);
    REQUIRE(stopped.history.size() == 10);
    REQUIRE(seen.size() == 10);
    REQUIRE(seen.back() == 9);
}

TEST_CASE("a run hands back the trained policy, a copy ready to use", "[optim][trainer]") {
    const auto m = single_room(3, 3, 0.1, observe::gaussian(1.0));
    TrainerConfig cfg;
    cfg.iterations = 20;
    cfg.seed = 3;
    Trainer trainer(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MSE{}, BatchMeanBaseline{}, ConstantStep(0.3), cfg);
    const auto first = trainer.run([](const IterationMetrics& x) { return x.iteration < 9; });  // stops after 10
    REQUIRE(first.stopped_early);
    // The policy is the trainer's after the last iteration run: θ = parameters, not the initial 0.
    REQUIRE(first.policy.parameters() == first.parameters);
    REQUIRE(first.parameters == trainer.policy().parameters());
    REQUIRE(first.parameters != Eigen::MatrixXd::Zero(9, 4));
    // It is a copy: the remaining iterations move the trainer's policy, not the returned one.
    const auto rest = trainer.run();
    REQUIRE(rest.history.size() == 10);
    REQUIRE(rest.policy.parameters() == trainer.policy().parameters());
    REQUIRE(first.policy.parameters() == first.parameters);
    REQUIRE(rest.parameters != first.parameters);
    // It acts as a policy rebuilt by hand from θ: the same episode on the same stream.
    BeliefAveragedPolicy by_hand(9, 4);
    by_hand.parameters() = rest.parameters;
    Sampler a(m, BayesFilter(m)), b(m, BayesFilter(m));
    Eigen::MatrixXd sa = Eigen::MatrixXd::Zero(9, 4), sb = sa;
    DefaultRng ga = stream(11), gb = stream(11);
    BeliefAveragedPolicy trained = rest.policy;
    const std::vector<std::size_t> actions = a.run(trained, ga, sa).actions;
    REQUIRE(b.run(by_hand, gb, sb).actions == actions);
    REQUIRE(sa == sb);
    // train() returns the same, and a plain TrainResult is still what it converts to.
    const TrainResult plain = train(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MSE{}, BatchMeanBaseline{},
                                    ConstantStep(0.3), cfg);
    REQUIRE(plain.parameters == rest.parameters);
}

TEST_CASE("parallel runs give bit-identical results for any thread count", "[optim][parallel]") {
    const auto m = single_room(3, 3, 0.1, observe::gaussian(10.0));
    auto job = [&](std::size_t i) {
        TrainerConfig cfg;
        cfg.iterations = 30;
        cfg.seed = i;
        return train(m, BayesFilter(m), BeliefAveragedPolicy(9, 4), MBE{}, BatchMeanBaseline{}, ConstantStep(0.3), cfg);
    };
    const auto one = run_parallel(6, 1, job);
    const auto two = run_parallel(6, 2, job);
    const auto many = run_parallel(6, 5, job);
    REQUIRE(one.size() == 6);
    for (std::size_t i = 0; i < 6; ++i) {
        REQUIRE(one[i].parameters == two[i].parameters);
        REQUIRE(one[i].parameters == many[i].parameters);
        for (std::size_t k = 0; k < 30; ++k) REQUIRE(one[i].history[k].true_entropy == many[i].history[k].true_entropy);
    }
    REQUIRE(one[0].parameters != one[1].parameters);
    // The first failing job's exception (by index) is rethrown.
    REQUIRE_THROWS_WITH(run_parallel(4, 2,
                                     [](std::size_t i) -> int {
                                         if (i >= 2) throw config_error(detail::message("job ", i));
                                         return 0;
                                     }),
                        Catch::Contains("job 2") || Catch::Contains("job 3"));
}

}  // namespace test_optim
