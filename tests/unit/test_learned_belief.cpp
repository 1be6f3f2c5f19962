// Exploration without a simulator (optim/learned_belief.hpp): warm-started refits, the true
// model's IOHMM, and the loop that learns its belief model while it trains.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

#include "ring_model.hpp"

namespace test_learned_belief {

namespace {

using maxent::ActionObservationSequence;

std::string message_of(const auto& f) {
    try {
        f();
    } catch (const maxent::error& e) {
        return e.what();
    }
    return "(no error)";
}

/// Sequences of the ring model under uniform actions, from the library's own collector.
std::vector<ActionObservationSequence> ring_data(std::size_t episodes, std::size_t steps, std::uint64_t seed) {
    const auto ring = test_models::ring_model(steps);
    std::vector<ActionObservationSequence> out(episodes);
    for (std::size_t e = 0; e < episodes; ++e) {
        auto g = maxent::stream(seed, 0, e);
        maxent::detail::uniform_episode(ring, steps, g, out[e]);
    }
    return out;
}

/// P(o_1..o_{K+1} | a_1..a_K) under the ring model by enumerating every state path.
double brute_force_probability(const maxent::FinitePomdp<int, int, int>& m, const ActionObservationSequence& s) {
    const std::size_t S = m.num_states(), K = s.actions.size();
    std::vector<std::size_t> path(K + 1, 0);
    double total = 0.0;
    for (;;) {
        double p = m.initial_distribution()[static_cast<Eigen::Index>(path[0])] *
                   m.initial_observation(path[0])(s.observations[0]);
        for (std::size_t k = 0; k < K; ++k)
            p *= m.transition_probability(path[k], s.actions[k], path[k + 1]) *
                 m.observation_probability(s.actions[k], path[k + 1], s.observations[k + 1]);
        total += p;
        std::size_t i = 0;
        while (i <= K && ++path[i] == S) path[i++] = 0;
        if (i > K) break;
    }
    return total;
}

maxent::GridPomdp small_room() {
    return maxent::make_grid_world({.layout = maxent::GridLayout::single_room(3, 3),
                                    .observation = maxent::observe::gaussian_variance(0.1)});
}

}  // namespace

TEST_CASE("to_iohmm: the true model's likelihood equals enumeration of its state paths", "[learned][loop]") {
    const auto ring = test_models::ring_model(4);
    const maxent::IohmmModel truth = maxent::to_iohmm(ring);
    CHECK(truth.emission_model == maxent::EmissionModel::shared);
    CHECK(truth.num_latent_states() == 3);
    for (const auto& s : ring_data(20, 4, 7)) {
        const double ll = maxent::iohmm_log_likelihood(truth, std::span(&s, 1));
        CHECK(ll == Approx(std::log(brute_force_probability(ring, s))).epsilon(1e-12));
    }
}

TEST_CASE("refit_iohmm continues EM exactly where fit_iohmm stopped", "[learned][loop]") {
    const auto data = ring_data(60, 8, 3);
    maxent::IohmmOptions o{.latent_states = 3, .num_actions = 2, .num_observations = 2, .restarts = 1,
                           .max_iterations = 6, .tolerance = 0.0, .seed = 11};
    const maxent::IohmmFit first = maxent::fit_iohmm(data, o);
    REQUIRE(first.iterations == 6);
    o.max_iterations = 4;
    const maxent::IohmmFit more = maxent::refit_iohmm(first.model, data, o);
    o.max_iterations = 10;
    const maxent::IohmmFit straight = maxent::fit_iohmm(data, o);
    CHECK(more.model == straight.model);
    CHECK(more.log_likelihood.front() == first.log_likelihood.back());
    CHECK(more.log_likelihood.back() == straight.log_likelihood.back());
    CHECK(more.iterations == 4);

    // Sizes that do not match the start model are named.
    o.num_observations = 3;
    CHECK_THAT(message_of([&] { (void)maxent::refit_iohmm(first.model, data, o); }),
               Catch::Contains("the start model has 2 actions and 2 observations; the options say 2 and 3"));
}

TEST_CASE("Sampler and Trainer: set_updater keeps theta and refuses another dimension", "[learned][loop]") {
    const auto ring = test_models::ring_model(5);
    maxent::TrainerConfig c;
    c.iterations = 4;
    c.batch = 3;
    maxent::Trainer trainer(ring, maxent::BayesFilter(ring), maxent::BeliefAveragedPolicy(3, 2), maxent::MSE{},
                            maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c);
    (void)trainer.iterate();
    const Eigen::MatrixXd theta = trainer.policy().parameters();
    trainer.set_updater(maxent::BayesFilter(ring, maxent::model_prior));
    CHECK(trainer.policy().parameters() == theta);
    CHECK(trainer.iterations_done() == 1);
    (void)trainer.iterate();

    // A filter over a model with another number of states has another dimension: refused.
    const Eigen::MatrixXd stay = Eigen::MatrixXd::Identity(2, 2);
    const Eigen::MatrixXd Z = Eigen::MatrixXd::Constant(2, 2, 0.5);
    const maxent::FinitePomdp<int, int, int> two({0, 1}, {0, 1}, {0, 1}, std::vector<Eigen::MatrixXd>{stay, stay},
                                                 std::vector<Eigen::MatrixXd>{Z}, Eigen::Vector2d(0.5, 0.5), 5);
    CHECK_THAT(message_of([&] { trainer.set_updater(maxent::BayesFilter(two)); }),
               Catch::Contains("the new belief updater's dimension() is 2, the old one's 3"));
    CHECK(trainer.policy().parameters().rows() == 3);
}

TEST_CASE("the loop without a model: deterministic, refits on schedule, learns a belief model", "[learned][loop]") {
    const maxent::GridPomdp world = small_room();
    const std::size_t L = world.num_states(), A = world.num_actions();
    maxent::TrainerConfig c;
    c.iterations = 60;
    c.batch = 5;
    c.seed = 4;
    maxent::LearnedBeliefOptions o;
    o.fit.latent_states = L;
    o.fit.restarts = 2;
    o.fit.max_iterations = 60;
    o.warmup_episodes = 150;
    o.heldout_episodes = 50;
    o.refit_every = 25;
    o.refit_iterations = 3;
    o.window = 40;
    auto make = [&](std::size_t threads) {
        maxent::LearnedBeliefOptions oo = o;
        oo.fit.threads = threads;
        return maxent::LearnedBeliefTrainer(world, maxent::BeliefAveragedPolicy(L, A), maxent::MBE{},
                                            maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c, oo);
    };
    auto a = make(1);
    const maxent::TrainResult ra = a.run();
    auto b = make(2);
    const maxent::TrainResult rb = b.run();
    REQUIRE(ra.history.size() == 60);
    CHECK(ra.parameters == rb.parameters);
    for (std::size_t k = 0; k < 60; ++k) {
        CHECK(ra.history[k].true_entropy == rb.history[k].true_entropy);
        CHECK(ra.history[k].feedback == rb.history[k].feedback);
    }
    CHECK(a.learned_model() == b.learned_model());

    // Fits: the first, then after iterations 25 and 50 (not after the last), on the warm-up
    // episodes plus a full window.
    REQUIRE(a.fits().size() == 3);
    CHECK(a.fits()[0].iteration == 0);
    CHECK(a.fits()[0].episodes == 150);
    CHECK(a.fits()[1].iteration == 25);
    CHECK(a.fits()[2].iteration == 50);
    CHECK(a.fits()[1].episodes == 190);
    CHECK(a.fits()[1].em_iterations <= 3);

    // The learned model explains held-out data almost as well as the truth (per observation).
    const double truth = maxent::iohmm_log_likelihood(maxent::to_iohmm(world), a.heldout_episodes()) /
                         static_cast<double>(50 * (world.horizon() + 1));
    for (const maxent::FitRecord& f : a.fits()) {
        INFO("held-out log-likelihood per observation: learned " << f.heldout_log_likelihood << ", truth " << truth);
        CHECK(std::isfinite(f.heldout_log_likelihood));
        CHECK(f.heldout_log_likelihood <= truth + 0.05);
        CHECK(f.heldout_log_likelihood >= truth - 0.15);
    }
}

TEST_CASE("the loop without a model: bad options are named", "[learned][loop][errors]") {
    const maxent::GridPomdp world = small_room();
    maxent::TrainerConfig c;
    c.iterations = 2;
    maxent::LearnedBeliefOptions o;
    auto build = [&] {
        (void)maxent::LearnedBeliefTrainer(world, maxent::BeliefAveragedPolicy(9, 4), maxent::MBE{},
                                           maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c, o);
    };
    CHECK_THAT(message_of(build), Catch::Contains("fit.latent_states (L) must be at least 1, got 0"));
    o.fit.latent_states = 9;
    o.window = 0;
    CHECK_THAT(message_of(build), Catch::Contains("window must be at least 1, got 0"));
    o.window = 10;
    o.fit.num_actions = 3;
    CHECK_THAT(message_of(build), Catch::Contains("fit.num_actions = 3"));
    o.fit.num_actions = 0;
    o.fit.latent_states = 5;  // the policy has 9 rows: the trainer names the mismatch
    o.warmup_episodes = 10;
    CHECK_THAT(message_of(build), Catch::Contains("9"));
}

TEST_CASE("the loop without a model: settings that would fail mid-run are refused up front", "[learned][loop][errors]") {
    const maxent::GridPomdp world = small_room();
    maxent::TrainerConfig c;
    c.iterations = 2;
    maxent::LearnedBeliefOptions o;
    o.fit.latent_states = 9;
    o.warmup_episodes = 5;
    o.heldout_episodes = 0;
    auto build = [&] {
        (void)maxent::LearnedBeliefTrainer(world, maxent::BeliefAveragedPolicy(9, 4), maxent::MBE{},
                                           maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c, o);
    };
    // α = 0 lets the learned model give an observation probability 0, which the agent's
    // filter then meets during training: refused before any episode is drawn.
    o.fit.smoothing = 0.0;
    CHECK_THAT(message_of(build), Catch::Contains("fit.smoothing") && Catch::Contains("got 0"));
    o.fit.smoothing = 1e308;
    CHECK_THAT(message_of(build), Catch::Contains("fit.smoothing") && Catch::Contains("1e+308"));
    o.fit.smoothing = 1e-3;
    o.fit.anchor_weight = 1.0;
    CHECK_THAT(message_of(build), Catch::Contains("fit.anchor_weight") && Catch::Contains("got 1"));
    o.fit.anchor_weight = 0.5;
    o.fit.restarts = 0;
    CHECK_THAT(message_of(build), Catch::Contains("fit.restarts"));
    o.fit.restarts = 1;
    o.fit.tolerance = -1.0;
    CHECK_THAT(message_of(build), Catch::Contains("fit.tolerance") && Catch::Contains("-1"));
}

TEST_CASE("the loop without a model: a stop flag cuts its fits short, marked in the fit records", "[learned][loop][stop]") {
    const maxent::GridPomdp world = small_room();
    maxent::TrainerConfig c;
    c.iterations = 2;
    c.batch = 2;
    maxent::LearnedBeliefOptions o;
    o.fit.latent_states = 9;
    o.fit.restarts = 2;
    o.warmup_episodes = 5;
    o.heldout_episodes = 0;
    o.refit_every = 1;
    std::atomic<bool> stop{true};
    o.fit.stop = &stop;
    maxent::LearnedBeliefTrainer t(world, maxent::BeliefAveragedPolicy(9, 4), maxent::MBE{},
                                   maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c, o);
    REQUIRE(t.fits().size() == 1);
    CHECK(t.fits()[0].stopped);
    CHECK(t.fits()[0].em_iterations == 0);
    (void)t.iterate();  // the refit after iteration 1 stops at once too
    REQUIRE(t.fits().size() == 2);
    CHECK(t.fits()[1].stopped);
    CHECK(t.fits()[1].em_iterations == 0);
    stop = false;
    maxent::LearnedBeliefTrainer u(world, maxent::BeliefAveragedPolicy(9, 4), maxent::MBE{},
                                   maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c, o);
    CHECK_FALSE(u.fits()[0].stopped);
    CHECK(u.fits()[0].em_iterations > 0);
}

}  // namespace test_learned_belief
