// Exploration without a simulator (optim/learned_belief.hpp): warm-started refits, the true
// model's IOHMM, and the loop that learns its belief model while it trains.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned/defaults.hpp"
#include "maxent/belief/learned/score.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/evaluate.hpp"
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

TEST_CASE("score_sequences: the log-likelihood per observation equals enumeration of the state paths", "[learned][score]") {
    const auto ring = test_models::ring_model(4);
    const auto data = ring_data(12, 4, 21);
    double total = 0.0;
    std::size_t observations = 0;
    for (const auto& s : data) {
        total += std::log(brute_force_probability(ring, s));
        observations += s.observations.size();
    }
    REQUIRE(observations == 12 * 5);
    const maxent::SequenceScore finite = maxent::score_sequences(ring, data);
    const maxent::SequenceScore iohmm = maxent::score_sequences(maxent::to_iohmm(ring), data, 2, 5);
    CHECK(finite.sequences == 12);
    CHECK(finite.observations == observations);
    CHECK(finite.per_observation == Approx(total / static_cast<double>(observations)).epsilon(1e-12));
    CHECK(finite.log_likelihood == Approx(total).epsilon(1e-12));
    CHECK(iohmm.per_observation == Approx(finite.per_observation).epsilon(1e-12));

    // Impossible data is -inf, never NaN; bad input is named.
    ActionObservationSequence never = data[0];
    never.observations[0] = 0;
    never.actions.assign(never.actions.size(), 0);
    maxent::IohmmModel m = maxent::to_iohmm(ring);
    m.emissions[0] << 0.0, 1.0, 0.0, 1.0, 0.0, 1.0;  // observation 0 is never emitted
    m.initial_emission = m.emissions[0];
    CHECK(maxent::score_sequences(m, std::span(&never, 1)).per_observation == -std::numeric_limits<double>::infinity());
    CHECK_THAT(message_of([&] { (void)maxent::score_sequences(ring, std::span<const ActionObservationSequence>{}); }),
               Catch::Contains("score_sequences: no sequences"));
    ActionObservationSequence bad = data[0];
    bad.observations[1] = 2;
    CHECK_THAT(message_of([&] { (void)maxent::score_sequences(ring, std::span(&bad, 1)); }),
               Catch::Contains("observation 2 is outside [0, 2)"));
}

TEST_CASE("the loop without a model hands back its final model and filter: scored and evaluated", "[learned][loop][score]") {
    const maxent::GridPomdp world = small_room();
    const std::size_t L = world.num_states(), A = world.num_actions();
    maxent::TrainerConfig c;
    c.iterations = 24;
    c.batch = 3;
    c.seed = 8;
    maxent::LearnedBeliefOptions o;
    o.fit.latent_states = L;
    o.fit.restarts = 1;
    o.fit.max_iterations = 15;
    o.warmup_episodes = 60;
    o.heldout_episodes = 20;
    o.refit_every = 10;
    o.refit_iterations = 2;
    o.window = 15;
    auto make = [&](bool learned_prior) {
        maxent::LearnedBeliefOptions oo = o;
        oo.learned_prior = learned_prior;
        return maxent::LearnedBeliefTrainer(world, maxent::BeliefAveragedPolicy(L, A), maxent::MBE{},
                                            maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), c, oo);
    };
    auto t = make(true);
    (void)t.run();
    REQUIRE(t.fits().size() == 3);  // the first fit, then refits after iterations 10 and 20

    // The scoring call is the trainer's held-out forward pass: the last fit's value, for the
    // learned model and for the agent's FinitePomdp made from it.
    const double reported = t.fits().back().heldout_log_likelihood;
    CHECK(std::abs(maxent::score_sequences(t.learned_model(), t.heldout_episodes()).per_observation - reported) <= 1e-12);
    CHECK(std::abs(maxent::score_sequences(t.belief_model(), t.heldout_episodes()).per_observation - reported) <= 1e-12);
    CHECK(maxent::score_sequences(world, t.heldout_episodes()).per_observation >= reported - 0.5);

    // The filter handed back starts at the learned μ̂ by default and is the final model's.
    Eigen::VectorXd b1;
    t.updater().initial(b1);
    const Eigen::VectorXd mu = t.belief_model().initial_distribution();
    CHECK((b1 - mu).cwiseAbs().maxCoeff() <= 1e-15);
    CHECK(&t.updater().model() == &t.belief_model());

    // evaluate runs on it (fresh episodes of the real world), and equals the evaluation with a
    // filter rebuilt from the returned learned model, bit for bit.
    const maxent::Evaluation e = maxent::evaluate(world, t.updater(), t.policy(), 12, 5);
    const auto rebuilt = maxent::to_finite_pomdp(t.learned_model(), world.horizon());
    const maxent::Evaluation f =
        maxent::evaluate(world, maxent::BayesFilter(rebuilt, maxent::model_prior), t.policy(), 12, 5);
    CHECK(std::isfinite(e.true_entropy.mean));
    CHECK(e.true_entropy.mean == f.true_entropy.mean);
    CHECK(e.belief_entropy_sum.mean == f.belief_entropy_sum.mean);

    // The paper's uniform b_1 is one option away, and the options say which was used.
    auto u = make(false);
    CHECK_FALSE(u.options().learned_prior);
    CHECK(t.options().learned_prior);
    u.updater().initial(b1);
    CHECK((b1.array() == 1.0 / static_cast<double>(L)).all());
}

TEST_CASE("learned-belief defaults: one object read by every option struct", "[learned][defaults]") {
    const maxent::LearnedBeliefDefaults& d = maxent::learned_belief_defaults;
    const maxent::IohmmOptions fit{};
    CHECK(fit.smoothing == d.smoothing);
    CHECK(fit.restarts == d.restarts);
    CHECK(fit.max_iterations == d.em_iterations);
    const maxent::LearnedBeliefOptions o{};
    CHECK(o.fit.smoothing == d.smoothing);
    CHECK(o.warmup_episodes == d.warmup);
    CHECK(o.heldout_episodes == d.heldout);
    CHECK(o.refit_every == d.refit_every);
    CHECK(o.refit_iterations == d.refit_iterations);
    CHECK(o.window == d.window);
    CHECK(o.learned_prior == d.learned_prior);
    CHECK(d.learned_prior);  // the learned μ̂ is the filter's default start
    CHECK(d.smoothing > 0.0);  // LearnedBeliefOptions::validate accepts the defaults
}

}  // namespace test_learned_belief
