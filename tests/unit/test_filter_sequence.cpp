// Tests of filter_sequence (belief/filter_sequence.hpp): the beliefs and per-step
// log-likelihoods along a recorded sequence
//   * a 2-state model by hand, from the uniform prior and from μ, with and without o_1 filtered;
//   * the beliefs equal a hand-written BayesFilter loop (==) on random models and sequences;
//   * with o_1 filtered from μ, the sum of the per-step values is score_sequences' total
//     (1e-12 relative), for known models and for IohmmModel (shared and per-action emissions);
//   * bad input: the step and the value named.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/filter_sequence.hpp"
#include "maxent/belief/learned/score.hpp"
#include "maxent/belief/learned/to_pomdp.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "random_pomdp.hpp"

namespace test_filter_sequence {

using maxent::ActionObservationSequence;
using maxent::FirstObservation;
using maxent::SequencePrior;
using IntPomdp = maxent::FinitePomdp<int, int, int>;

// Two states L, R; actions listen (stay) and switch (swap L and R); observations hear-L,
// hear-R with accuracy 0.8 in every state and for o_1; μ = (0.75, 0.25).
IntPomdp two_states() {
    Eigen::MatrixXd stay = Eigen::MatrixXd::Identity(2, 2), swap(2, 2), hear(2, 2);
    swap << 0, 1, 1, 0;
    hear << 0.8, 0.2, 0.2, 0.8;
    Eigen::VectorXd mu(2);
    mu << 0.75, 0.25;
    return IntPomdp({0, 1}, {0, 1}, {0, 1}, {stay, swap}, {hear}, mu, 3);
}

// o_1 = hear-L, listen, o_2 = hear-L, switch, o_3 = hear-R.
ActionObservationSequence two_state_sequence() { return {{0, 1}, {0, 0, 1}, "hand"}; }

// An episode of uniformly random actions drawn from the model.
ActionObservationSequence draw(const IntPomdp& m, std::size_t actions, std::uint64_t seed) {
    maxent::DefaultRng g = maxent::stream(seed);
    ActionObservationSequence s;
    std::size_t state = maxent::sample_categorical(m.initial_distribution(), g);
    s.observations.push_back(maxent::sample_categorical(m.initial_observation(state), g));
    for (std::size_t k = 0; k < actions; ++k) {
        const auto a = static_cast<std::size_t>(maxent::uniform_index(g, m.num_actions()));
        state = maxent::sample_categorical(m.transition(state, a), g);
        s.actions.push_back(a);
        s.observations.push_back(maxent::sample_categorical(m.observation(a, state), g));
    }
    return s;
}

// A random model with a non-uniform μ; `shared`: one observation matrix, also drawing o_1
// (else one per action, and o_1 uniform over the observations: FinitePomdp's default).
IntPomdp random_with_mu(std::uint64_t seed, int S, int A, int O, bool shared = true) {
    const IntPomdp base = maxent_test::random_model(seed, S, A, O);
    std::vector<Eigen::MatrixXd> P, Z;
    for (std::size_t a = 0; a < base.num_actions(); ++a) {
        P.emplace_back(base.transition_matrix(a));
        if (!shared || a == 0) Z.emplace_back(base.observation_matrix(a));
    }
    Eigen::VectorXd mu(S);
    for (int s = 0; s < S; ++s) mu[s] = 1.0 + s;
    mu /= mu.sum();
    std::vector<int> states(static_cast<std::size_t>(S)), actions(static_cast<std::size_t>(A)),
        observations(static_cast<std::size_t>(O));
    for (int i = 0; i < S; ++i) states[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < A; ++i) actions[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < O; ++i) observations[static_cast<std::size_t>(i)] = i;
    return {states, actions, observations, P, Z, mu, static_cast<std::size_t>(S)};
}

bool near(double x, double y, double relative) { return std::abs(x - y) <= relative * std::abs(y); }

TEST_CASE("filter_sequence on a 2-state model by hand", "[filter_sequence]") {
    const IntPomdp m = two_states();
    const ActionObservationSequence s = two_state_sequence();
    SECTION("uniform prior, o_1 not filtered (the paper's b_1)") {
        const auto r = maxent::filter_sequence(m, s);
        CHECK(r.prior_kind == SequencePrior::uniform);
        CHECK(r.first_observation == FirstObservation::not_filtered);
        REQUIRE(r.beliefs.rows() == 3);
        REQUIRE(r.beliefs.cols() == 2);
        // b_1 = (1/2, 1/2); listen, hear-L: (0.4, 0.1)/0.5; switch (0.2, 0.8), hear-R: (0.04, 0.64)/0.68.
        const double expected[3][2] = {{0.5, 0.5}, {0.8, 0.2}, {1.0 / 17, 16.0 / 17}};
        for (int t = 0; t < 3; ++t)
            for (int st = 0; st < 2; ++st) CHECK(r.beliefs(t, st) == Approx(expected[t][st]).margin(1e-15));
        CHECK(r.log_likelihood[0] == Approx(std::log(0.5)).margin(1e-15));
        CHECK(r.log_likelihood[1] == Approx(std::log(0.5)).margin(1e-15));
        CHECK(r.log_likelihood[2] == Approx(std::log(0.68)).margin(1e-15));
        CHECK(r.prior[0] == 0.5);
    }
    SECTION("the model's mu, o_1 filtered (the forward pass)") {
        const auto r = maxent::filter_sequence(m, s, maxent::model_prior, FirstObservation::filtered);
        CHECK(r.prior_kind == SequencePrior::model);
        CHECK(r.prior[0] == 0.75);
        // hear-L: (0.6, 0.05)/0.65 = (12/13, 1/13); listen, hear-L: (48/49, 1/49), P = 9.8/13;
        // switch (1/49, 48/49), hear-R: (0.2, 38.4)/38.6, P = 38.6/49.
        const double expected[3][2] = {{12.0 / 13, 1.0 / 13}, {48.0 / 49, 1.0 / 49}, {1.0 / 193, 192.0 / 193}};
        for (int t = 0; t < 3; ++t)
            for (int st = 0; st < 2; ++st) CHECK(r.beliefs(t, st) == Approx(expected[t][st]).margin(1e-15));
        CHECK(r.log_likelihood[0] == Approx(std::log(0.65)).margin(1e-15));
        CHECK(r.log_likelihood[1] == Approx(std::log(9.8 / 13)).margin(1e-15));
        CHECK(r.log_likelihood[2] == Approx(std::log(38.6 / 49)).margin(1e-15));
        // P(o_1..o_3 | listen, switch) = 0.75 * 0.8^3 + 0.25 * 0.2^3 = 0.386, by enumeration.
        CHECK(r.log_likelihood.sum() == Approx(std::log(0.386)).margin(1e-14));
    }
    SECTION("a given prior") {
        Eigen::VectorXd prior(2);
        prior << 0.0, 1.0;
        const auto r = maxent::filter_sequence(m, s, prior);
        CHECK(r.prior_kind == SequencePrior::given);
        CHECK(r.log_likelihood[0] == Approx(std::log(0.2)).margin(1e-15));
        CHECK(r.beliefs(1, 1) == 1.0);  // listen keeps R
        CHECK(r.beliefs(2, 0) == 1.0);  // switch: L
        CHECK(std::string(maxent::to_string(r.prior_kind)) == "given");
    }
}

TEST_CASE("filter_sequence's beliefs are a hand-written BayesFilter loop's, bit for bit", "[filter_sequence]") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const IntPomdp m = random_with_mu(seed, 7, 3, 4);
        const ActionObservationSequence s = draw(m, 12, seed);
        for (const bool from_mu : {false, true}) {
            const auto r = from_mu ? maxent::filter_sequence(m, s, maxent::model_prior) : maxent::filter_sequence(m, s);
            maxent::BayesFilter<IntPomdp> f = from_mu ? maxent::BayesFilter<IntPomdp>(m, maxent::model_prior)
                                                      : maxent::BayesFilter<IntPomdp>(m);
            Eigen::VectorXd b;
            f.initial(b);
            REQUIRE((r.beliefs.row(0).transpose().array() == b.array()).all());
            for (std::size_t t = 1; t < s.observations.size(); ++t) {
                const double p = f.predicted_observation_probability(b, s.actions[t - 1], s.observations[t]);
                f.update(b, s.actions[t - 1], s.observations[t]);
                CHECK((r.beliefs.row(static_cast<Eigen::Index>(t)).transpose().array() == b.array()).all());
                CHECK(r.log_likelihood[static_cast<Eigen::Index>(t)] == std::log(p));
            }
        }
        // With o_1 filtered, the rows after the first are the same filter's updates of the first.
        const auto r = maxent::filter_sequence(m, s, FirstObservation::filtered);
        maxent::BayesFilter<IntPomdp> f(m);
        Eigen::VectorXd b = r.beliefs.row(0).transpose();
        for (std::size_t t = 1; t < s.observations.size(); ++t) {
            f.update(b, s.actions[t - 1], s.observations[t]);
            CHECK((r.beliefs.row(static_cast<Eigen::Index>(t)).transpose().array() == b.array()).all());
        }
    }
}

TEST_CASE("filter_sequence with o_1 filtered from mu sums to score_sequences' total", "[filter_sequence]") {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const bool shared = seed % 2 == 1;
        const IntPomdp m = random_with_mu(seed, 6, 2, 3, shared);
        const ActionObservationSequence s = draw(m, 20, seed + 100);
        const std::vector<ActionObservationSequence> one{s};
        const double total = maxent::score_sequences(m, one).log_likelihood;
        const auto r = maxent::filter_sequence(m, s, maxent::model_prior, FirstObservation::filtered);
        CHECK(near(r.log_likelihood.sum(), total, 1e-12));
        // Not filtering o_1 predicts o_2.. from μ without it: another number when o_1 is
        // informative (shared observations), the same when it is drawn uniformly.
        const auto agent = maxent::filter_sequence(m, s, maxent::model_prior);
        CHECK(r.log_likelihood[0] == agent.log_likelihood[0]);
        CHECK(near(agent.log_likelihood.sum(), total, 1e-6) == !shared);

        // The same model as a learned IohmmModel: its μ̂ by default.
        const maxent::IohmmModel learned = maxent::to_iohmm(m);
        const auto rl = maxent::filter_sequence(learned, s, FirstObservation::filtered);
        CHECK(rl.prior_kind == SequencePrior::learned);
        CHECK(near(rl.log_likelihood.sum(), maxent::score_sequences(learned, one).log_likelihood, 1e-12));
    }
    // Per-action emissions with their own first-observation matrix.
    maxent::IohmmModel per_action = maxent::to_iohmm(random_with_mu(9, 5, 2, 3));
    per_action.emission_model = maxent::EmissionModel::per_action;
    const Eigen::MatrixXd spread = 0.5 * per_action.emissions[0].array() + 0.5 / 3;  // every o possible
    per_action.emissions = {spread, spread.rowwise().reverse()};
    per_action.initial_emission = Eigen::MatrixXd::Constant(5, 3, 1.0 / 3);
    per_action.initial_emission.row(0) << 0.5, 0.25, 0.25;
    const ActionObservationSequence s{{0, 1, 1, 0, 1}, {0, 2, 1, 0, 1, 2}, {}};
    const std::vector<ActionObservationSequence> one{s};
    const double total = maxent::score_sequences(per_action, one).log_likelihood;
    REQUIRE(std::isfinite(total));
    CHECK(near(maxent::filter_sequence(per_action, s, FirstObservation::filtered).log_likelihood.sum(), total, 1e-12));
}

TEST_CASE("filter_sequence names the step and the value of bad input", "[filter_sequence][errors]") {
    const IntPomdp m = two_states();
    auto message = [&](const ActionObservationSequence& s) {
        try {
            (void)maxent::filter_sequence(m, s);
        } catch (const maxent::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THROWS_AS(maxent::filter_sequence(m, ActionObservationSequence{{0, 2}, {0, 0, 1}, {}}), maxent::config_error);
    CHECK(message({{0, 2}, {0, 0, 1}, {}}) == "filter_sequence: step 2: action 2 is outside [0, 2)");
    CHECK(message({{0, 1}, {0, 5, 1}, "ep"}) ==
          "filter_sequence: sequence 'ep', step 2: observation 5 is outside [0, 2)");
    CHECK(message({{0}, {0}, {}}) ==
          "filter_sequence: 1 actions and 1 observations; it needs one more observation than actions");
    CHECK(message({{}, {}, {}}) == "filter_sequence: no observations (it needs o_1)");

    // An observation the model cannot emit: a sensor that never errs, a switch, then the old side.
    Eigen::MatrixXd stay = Eigen::MatrixXd::Identity(2, 2), swap(2, 2);
    swap << 0, 1, 1, 0;
    const IntPomdp exact({0, 1}, {0, 1}, {0, 1}, {stay, swap}, {stay}, Eigen::Vector2d(0.5, 0.5), 3);
    try {
        (void)maxent::filter_sequence(exact, ActionObservationSequence{{0, 1}, {0, 0, 0}, {}});
        FAIL("no error");
    } catch (const maxent::zero_likelihood_error& e) {
        CHECK(e.step() == 3);
        CHECK(e.action() == 1);
        CHECK(e.observation() == 0);
        CHECK(std::string(e.what()).find("at step 3") != std::string::npos);
    }
    // o_1 impossible under the prior: step 1.
    try {
        Eigen::VectorXd prior(2);
        prior << 1.0, 0.0;
        (void)maxent::filter_sequence(exact, ActionObservationSequence{{}, {1}, {}}, prior);
        FAIL("no error");
    } catch (const maxent::zero_likelihood_error& e) {
        CHECK(e.step() == 1);
        CHECK(std::string(e.what()).find("step 1: observation 1") != std::string::npos);
    }
    Eigen::VectorXd bad(2);
    bad << 0.5, 0.6;
    CHECK_THROWS_AS(maxent::filter_sequence(m, two_state_sequence(), bad), maxent::config_error);
}

}  // namespace test_filter_sequence
