// Tests of belief models learned from action–observation data (belief/learned_model.hpp):
//   * forward–backward (log-likelihood, state and pair posteriors) against brute-force
//     enumeration of every latent path, shared and per-action emissions;
//   * EM's monotonicity: the log-likelihood for α = 0, the penalised log-likelihood for α > 0;
//   * recovery of a known 4-state ring: the exact distribution of 4-step observation sequences
//     under fixed action sequences, learned against true, in total variation;
//   * identical results for 1, 2 and 3 threads;
//   * the learned FinitePomdp as the agent's BayesFilter while the world is the true model;
//   * trajectories to sequences, the CSV reader and writer;
//   * known parts held fixed, Dirichlet priors per block (the sparse MAP row by hand);
//   * cloned HMMs: forward–backward by enumeration, EM against dense EM, an aliased ring's layout;
//   * bad input, with the messages.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../fuzz/sequences_fuzz.hpp"

namespace test_learned_model {

using Catch::Matchers::Contains;
using maxent::ActionObservationSequence;
using maxent::EmissionModel;
using maxent::IohmmModel;
using maxent::IohmmOptions;

namespace learned_test {

using Index = Eigen::Index;
inline Index ix(std::size_t i) { return static_cast<Index>(i); }

/// A tiny model with arbitrary (non-symmetric) positive parameters: L = 3, A = 2, O = 3.
inline IohmmModel tiny_model(EmissionModel emission) {
    IohmmModel m;
    m.emission_model = emission;
    m.initial = Eigen::Vector3d(0.5, 0.3, 0.2);
    Eigen::MatrixXd P0(3, 3), P1(3, 3), E0(3, 3), E1(3, 3), F(3, 3);
    P0 << 0.7, 0.2, 0.1, 0.1, 0.6, 0.3, 0.25, 0.25, 0.5;
    P1 << 0.1, 0.8, 0.1, 0.3, 0.3, 0.4, 0.6, 0.1, 0.3;
    E0 << 0.8, 0.15, 0.05, 0.2, 0.7, 0.1, 0.1, 0.3, 0.6;
    E1 << 0.5, 0.25, 0.25, 0.05, 0.9, 0.05, 0.3, 0.3, 0.4;
    F << 0.6, 0.3, 0.1, 0.2, 0.2, 0.6, 0.45, 0.1, 0.45;
    m.transitions = {P0, P1};
    if (emission == EmissionModel::shared) {
        m.emissions = {E0};
        m.initial_emission = E0;
    } else {
        m.emissions = {E0, E1};
        m.initial_emission = F;
    }
    return m;
}

/// Probability of the observations and the posteriors by enumerating all L^(K+1) paths.
struct Brute {
    double probability = 0.0;
    Eigen::MatrixXd state;                    // L x (K+1)
    std::vector<Eigen::MatrixXd> transition;  // K of L x L
};
inline Brute brute_force(const IohmmModel& m, const ActionObservationSequence& s) {
    const std::size_t L = m.num_latent_states(), steps = s.observations.size();
    Brute out;
    out.state = Eigen::MatrixXd::Zero(ix(L), ix(steps));
    out.transition.assign(steps - 1, Eigen::MatrixXd::Zero(ix(L), ix(L)));
    std::vector<std::size_t> z(steps, 0);
    const Eigen::MatrixXd& first = m.emission_model == EmissionModel::shared ? m.emissions[0] : m.initial_emission;
    for (;;) {
        double p = m.initial[ix(z[0])] * first(ix(z[0]), ix(s.observations[0]));
        for (std::size_t k = 1; k < steps; ++k) {
            const std::size_t a = s.actions[k - 1];
            const Eigen::MatrixXd& E = m.emissions[m.emission_model == EmissionModel::shared ? 0 : a];
            p *= m.transitions[a](ix(z[k - 1]), ix(z[k])) * E(ix(z[k]), ix(s.observations[k]));
        }
        out.probability += p;
        for (std::size_t k = 0; k < steps; ++k) out.state(ix(z[k]), ix(k)) += p;
        for (std::size_t k = 1; k < steps; ++k) out.transition[k - 1](ix(z[k - 1]), ix(z[k])) += p;
        std::size_t d = 0;  // next path (base-L counter)
        while (d < steps && ++z[d] == L) z[d++] = 0;
        if (d == steps) break;
    }
    out.state /= out.probability;
    for (auto& x : out.transition) x /= out.probability;
    return out;
}

/// P(o_1..o_{K+1} | a_1..a_K) alone, summed over all L^(K+1) latent paths.
inline double brute_force_probability(const IohmmModel& m, const ActionObservationSequence& s) {
    const std::size_t L = m.num_latent_states(), steps = s.observations.size();
    const Eigen::MatrixXd& first = m.emission_model == EmissionModel::shared ? m.emissions[0] : m.initial_emission;
    std::vector<std::size_t> z(steps, 0);
    double total = 0.0;
    for (;;) {
        double p = m.initial[ix(z[0])] * first(ix(z[0]), ix(s.observations[0]));
        for (std::size_t k = 1; k < steps; ++k) {
            const std::size_t a = s.actions[k - 1];
            p *= m.transitions[a](ix(z[k - 1]), ix(z[k])) * m.emission(a)(ix(z[k]), ix(s.observations[k]));
        }
        total += p;
        std::size_t d = 0;
        while (d < steps && ++z[d] == L) z[d++] = 0;
        if (d == steps) return total;
    }
}

/// The exact distribution of (o_1, ..., o_{K+1}) given the actions, over all O^(K+1) tuples
/// (by brute force, so it does not depend on how latent states are numbered).
inline std::vector<double> observation_distribution(const IohmmModel& m, const std::vector<std::size_t>& actions) {
    const std::size_t O = m.num_observations(), steps = actions.size() + 1;
    std::vector<double> out;
    ActionObservationSequence s{actions, std::vector<std::size_t>(steps, 0), ""};
    for (;;) {
        out.push_back(brute_force_probability(m, s));
        std::size_t d = 0;
        while (d < steps && ++s.observations[d] == O) s.observations[d++] = 0;
        if (d == steps) break;
    }
    return out;
}

inline double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
    double sum = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) sum += std::abs(p[i] - q[i]);
    return 0.5 * sum;
}

/// The known model: a ring of 4 cells; action 0 moves clockwise, action 1 counter-clockwise,
/// each succeeding with 0.8 (else the agent stays); the sensor reports the cell with 0.7 and
/// each other cell with 0.1 (shared emissions); μ = (0.4, 0.3, 0.2, 0.1).
inline IohmmModel ring_model() {
    const std::size_t n = 4;
    IohmmModel m;
    m.emission_model = EmissionModel::shared;
    m.initial = Eigen::Vector4d(0.4, 0.3, 0.2, 0.1);
    Eigen::MatrixXd cw = Eigen::MatrixXd::Zero(4, 4), ccw = Eigen::MatrixXd::Zero(4, 4);
    for (std::size_t z = 0; z < n; ++z) {
        cw(ix(z), ix(z)) = 0.2;
        cw(ix(z), ix((z + 1) % n)) = 0.8;
        ccw(ix(z), ix(z)) = 0.2;
        ccw(ix(z), ix((z + n - 1) % n)) = 0.8;
    }
    m.transitions = {cw, ccw};
    Eigen::MatrixXd E = Eigen::MatrixXd::Constant(4, 4, 0.1);
    E.diagonal().setConstant(0.7);
    m.emissions = {E};
    m.initial_emission = E;
    return m;
}

template <class G>
std::size_t draw(const Eigen::Ref<const Eigen::RowVectorXd>& row, G& g) {
    const double u = maxent::uniform01(g);
    double cumulative = 0.0;
    for (Index j = 0; j < row.size(); ++j) {
        cumulative += row[j];
        if (u < cumulative) return static_cast<std::size_t>(j);
    }
    return static_cast<std::size_t>(row.size() - 1);
}

/// `count` sequences of `actions` uniformly random actions sampled from m (stream (seed, 0, n)).
inline std::vector<ActionObservationSequence> sample_sequences(const IohmmModel& m, std::size_t count,
                                                               std::size_t actions, std::uint64_t seed) {
    std::vector<ActionObservationSequence> out(count);
    const Eigen::MatrixXd& first = m.emission_model == EmissionModel::shared ? m.emissions[0] : m.initial_emission;
    for (std::size_t n = 0; n < count; ++n) {
        maxent::DefaultRng g = maxent::stream(seed, 0, n);
        std::size_t z = draw(m.initial.transpose(), g);
        out[n].observations.push_back(draw(first.row(ix(z)), g));
        for (std::size_t k = 0; k < actions; ++k) {
            const auto a = static_cast<std::size_t>(maxent::uniform_index(g, m.num_actions()));
            z = draw(m.transitions[a].row(ix(z)), g);
            out[n].actions.push_back(a);
            out[n].observations.push_back(draw(m.emission(a).row(ix(z)), g));
        }
    }
    return out;
}

inline bool all_finite(const IohmmModel& m) {
    bool ok = m.initial.allFinite() && m.initial_emission.allFinite();
    for (const auto& x : m.transitions) ok = ok && x.allFinite();
    for (const auto& x : m.emissions) ok = ok && x.allFinite();
    return ok;
}

}  // namespace learned_test

using namespace learned_test;

TEST_CASE("forward-backward equals brute-force enumeration of the latent paths", "[learned]") {
    for (const EmissionModel emission : {EmissionModel::shared, EmissionModel::per_action}) {
        const IohmmModel m = tiny_model(emission);
        // K = 4 actions, 5 observations: 3^5 = 243 paths.
        const std::vector<ActionObservationSequence> sequences = {
            {{0, 1, 1, 0}, {0, 2, 1, 1, 0}, ""},
            {{1, 1, 1, 1}, {2, 2, 0, 1, 2}, ""},
            {{0, 0, 1, 0}, {1, 0, 0, 2, 1}, ""},
            {{}, {2}, ""},  // K = 0: one observation
        };
        for (const auto& s : sequences) {
            const Brute b = brute_force(m, s);
            const maxent::IohmmPosteriors p = maxent::iohmm_posteriors(m, s);
            CHECK(std::abs(p.log_likelihood - std::log(b.probability)) <= 1e-12);
            REQUIRE(p.state.cols() == b.state.cols());
            CHECK((p.state - b.state).cwiseAbs().maxCoeff() <= 1e-12);
            REQUIRE(p.transition.size() == b.transition.size());
            for (std::size_t k = 0; k < b.transition.size(); ++k)
                CHECK((p.transition[k] - b.transition[k]).cwiseAbs().maxCoeff() <= 1e-12);
        }
        // The block sum over sequences is the sum of the brute-force log-probabilities.
        double expected = 0.0;
        for (const auto& s : sequences) expected += std::log(brute_force(m, s).probability);
        CHECK(std::abs(maxent::iohmm_log_likelihood(m, sequences, 2, 3) - expected) <= 1e-12);
    }
}

TEST_CASE("scaled forward-backward: no underflow on long sequences", "[learned]") {
    // T = 200 steps: the probability of one sequence is about 10^-100 or less, far below
    // what an unscaled product could hold together with thousands of sequences; the scaled
    // recursion gives a finite log-likelihood and posteriors that sum to 1.
    const IohmmModel m = ring_model();
    const auto data = sample_sequences(m, 2000, 199, 3);
    const double ll = maxent::iohmm_log_likelihood(m, data, 2);
    CHECK(std::isfinite(ll));
    CHECK(ll < -2000.0 * 200.0 * 0.5);
    const auto p = maxent::iohmm_posteriors(m, data[0]);
    CHECK(std::isfinite(p.log_likelihood));
    for (Index k = 0; k < p.state.cols(); ++k) CHECK(std::abs(p.state.col(k).sum() - 1.0) <= 1e-12);
}

TEST_CASE("EM never decreases the log-likelihood (alpha = 0) nor the penalised one (alpha > 0)", "[learned]") {
    const auto data = sample_sequences(ring_model(), 200, 15, 11);
    for (const EmissionModel emission : {EmissionModel::shared, EmissionModel::per_action}) {
        for (const double alpha : {0.0, 0.5}) {
            IohmmOptions o;
            o.latent_states = 4;
            o.num_actions = 2;
            o.num_observations = 4;
            o.emission = emission;
            o.smoothing = alpha;
            o.restarts = 2;
            o.max_iterations = 60;
            o.tolerance = 0.0;  // run all iterations
            o.seed = 5;
            const maxent::IohmmFit fit = maxent::fit_iohmm(data, o);
            INFO("alpha " << alpha << ", emission " << (emission == EmissionModel::shared ? "shared" : "per action"));
            REQUIRE(fit.iterations == 60);
            REQUIRE(fit.log_likelihood.size() == 61);
            REQUIRE(fit.penalized_log_likelihood.size() == 61);
            CHECK_FALSE(fit.converged);
            // α = 0: the log-likelihood itself; α > 0: EM is MAP-EM for a Dirichlet(α + 1)
            // prior and only ℓ + α Σ log θ is monotone (ℓ alone may dip). Slack: 1e-12
            // relative, for the rounding of sums over 3 200 steps.
            const std::vector<double>& objective = alpha == 0.0 ? fit.log_likelihood : fit.penalized_log_likelihood;
            for (std::size_t i = 1; i < objective.size(); ++i)
                CHECK(objective[i] >= objective[i - 1] - 1e-12 * std::abs(objective[i - 1]));
            if (alpha == 0.0) CHECK(fit.penalized_log_likelihood == fit.log_likelihood);
            CHECK(fit.log_likelihood.back() > fit.log_likelihood.front());
            // The reported final ℓ is the returned model's.
            CHECK(std::abs(maxent::iohmm_log_likelihood(fit.model, data) - fit.final_log_likelihood()) <=
                  1e-9 * std::abs(fit.final_log_likelihood()));
            REQUIRE(fit.restart_log_likelihood.size() == 2);
            CHECK(fit.restart_log_likelihood[fit.restart] == fit.final_log_likelihood());
            for (const double v : fit.restart_log_likelihood) CHECK(v <= fit.final_log_likelihood());
        }
    }
}

TEST_CASE("a known 4-state ring is recovered: 4-step observation distributions within a stated TV", "[learned]") {
    // Data: 2000 sequences of 20 uniformly random actions (42 000 observations), data seed 21.
    // Fit: L = 4, α = 1e-3, one restart, tolerance 1e-6, seed 1 (about 70 iterations).
    // Check: for each of four fixed action sequences (a_1, a_2, a_3), the exact distribution of
    // (o_1, ..., o_4) over its 4^4 = 256 values under the learned model against the true one.
    // Tolerance 0.05 in total variation. Why: EM finds the maximum-likelihood model here (five
    // restarts agreed to 0.01 nats with 1000 and 4000 sequences, and its log-likelihood exceeds
    // the true model's by 8 to 17 nats, checked below), so what is left is estimation error,
    // which shrinks as 1/sqrt(data): measured worst TV over the four plans 0.034-0.043 with 1000
    // sequences, 0.018-0.031 with 2000 (data seeds 21-24; 0.031 at seed 21, with 1 or 3
    // restarts, tolerance 1e-6 or 1e-7), 0.014-0.018 with 4000. 0.05 leaves a margin of 1.6 over
    // the worst measured value and still rejects a sensor right with 0.65 instead of 0.7 (TV >= 0.065) or moves that
    // succeed with 0.7 instead of 0.8 (TV >= 0.073), both checked below.
    const IohmmModel truth = ring_model();
    const auto data = sample_sequences(truth, 2000, 20, 21);
    IohmmOptions o;
    o.latent_states = 4;
    o.num_actions = 2;
    o.num_observations = 4;
    o.smoothing = 1e-3;
    o.restarts = 1;
    o.max_iterations = 1000;
    o.tolerance = 1e-6;
    o.seed = 1;
    o.threads = 2;
    const maxent::IohmmFit fit = maxent::fit_iohmm(data, o);
    INFO("restart " << fit.restart << ", iterations " << fit.iterations << ", final log-likelihood "
                    << fit.final_log_likelihood());
    CHECK(fit.converged);
    CHECK(fit.final_log_likelihood() >= maxent::iohmm_log_likelihood(truth, data));
    const double tolerance = 0.05;
    const std::vector<std::vector<std::size_t>> plans = {{0, 0, 0}, {1, 1, 1}, {0, 1, 0}, {1, 0, 0}};
    IohmmModel sensor = truth;  // sensor right with 0.65
    sensor.emissions[0].setConstant(0.35 / 3.0);
    sensor.emissions[0].diagonal().setConstant(0.65);
    sensor.initial_emission = sensor.emissions[0];
    IohmmModel moves = truth;  // moves succeed with 0.7
    for (auto& P : moves.transitions) {
        P *= 0.875;
        P.diagonal().array() += 0.125;
    }
    for (const auto& plan : plans) {
        const auto p = observation_distribution(truth, plan);
        const double tv = total_variation(p, observation_distribution(fit.model, plan));
        INFO("actions " << plan[0] << plan[1] << plan[2] << ": TV " << tv);
        CHECK(tv <= tolerance);
        CHECK(total_variation(p, observation_distribution(sensor, plan)) > tolerance);
        CHECK(total_variation(p, observation_distribution(moves, plan)) > tolerance);
    }
}

TEST_CASE("EM results are identical for 1, 2 and 3 threads", "[learned]") {
    const auto data = sample_sequences(ring_model(), 150, 12, 8);
    const auto heldout = sample_sequences(ring_model(), 40, 12, 9);
    for (const EmissionModel emission : {EmissionModel::shared, EmissionModel::per_action}) {
        IohmmOptions o;
        o.latent_states = 3;
        o.num_actions = 2;
        o.num_observations = 4;
        o.emission = emission;
        o.restarts = 2;
        o.max_iterations = 25;
        o.block_size = 7;  // 22 blocks
        o.seed = 4;
        std::vector<maxent::IohmmFit> fits;
        for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
            o.threads = threads;
            fits.push_back(maxent::fit_iohmm(data, o, heldout));
        }
        for (std::size_t t = 1; t < fits.size(); ++t) {
            CHECK(fits[t].model == fits[0].model);
            CHECK(fits[t].log_likelihood == fits[0].log_likelihood);
            CHECK(fits[t].penalized_log_likelihood == fits[0].penalized_log_likelihood);
            CHECK(fits[t].heldout_log_likelihood == fits[0].heldout_log_likelihood);
            CHECK(fits[t].restart_log_likelihood == fits[0].restart_log_likelihood);
            CHECK(fits[t].restart == fits[0].restart);
            CHECK(fits[t].iterations == fits[0].iterations);
        }
        CHECK(fits[0].heldout_log_likelihood.size() == fits[0].log_likelihood.size());
        for (const double v : fits[0].heldout_log_likelihood) CHECK(std::isfinite(v));
        // Same seed, same result; another seed, other restarts.
        o.threads = 1;
        CHECK(maxent::fit_iohmm(data, o, heldout).model == fits[0].model);
        o.seed = 5;
        CHECK_FALSE(maxent::fit_iohmm(data, o, heldout).model == fits[0].model);
    }
}

TEST_CASE("the learned FinitePomdp is the agent's BayesFilter while the world is the true model", "[learned]") {
    // World: the ring as a FinitePomdp (T = 12). Data: 300 episodes of a uniform policy run by
    // the library's Sampler, turned into sequences by to_sequence. Agent: L = 4 learned.
    using Pomdp = maxent::FinitePomdp<std::size_t, std::size_t, std::size_t>;
    const Pomdp world = maxent::to_finite_pomdp(ring_model(), 12);
    std::vector<ActionObservationSequence> data;
    {
        maxent::Sampler<Pomdp, maxent::BayesFilter<Pomdp>> sampler(world, maxent::BayesFilter(world));
        maxent::BeliefAveragedPolicy uniform(4, 2);  // θ = 0: uniform over the actions
        Eigen::MatrixXd score = Eigen::MatrixXd::Zero(4, 2);
        for (std::size_t n = 0; n < 300; ++n) {
            maxent::DefaultRng g = maxent::stream(17, 0, n);
            const maxent::Trajectory& t = sampler.run(uniform, g, score);
            data.push_back(maxent::to_sequence(t, "episode " + std::to_string(n)));
            REQUIRE(data.back().observations == t.observations);
            REQUIRE(data.back().actions == t.actions);
        }
    }
    IohmmOptions o;
    o.latent_states = 4;
    o.num_actions = 2;
    o.num_observations = 4;
    o.smoothing = 0.01;
    o.seed = 2;
    const maxent::IohmmFit fit = maxent::fit_iohmm(data, o);
    const Pomdp agent = maxent::to_finite_pomdp(fit.model, 12);
    REQUIRE(agent.num_states() == 4);
    REQUIRE(agent.num_actions() == 2);
    REQUIRE(agent.num_observations() == 4);
    CHECK(agent.action_label(1) == 1);
    CHECK(agent.observation_label(3) == 3);
    // The FinitePomdp holds the fitted matrices (renormalised: within a few ulps).
    for (std::size_t a = 0; a < 2; ++a)
        CHECK((Eigen::MatrixXd(agent.transition_matrix(a)) - fit.model.transitions[a]).cwiseAbs().maxCoeff() <=
              1e-15);
    CHECK((Eigen::MatrixXd(agent.observation_matrix(0)) - fit.model.emissions[0]).cwiseAbs().maxCoeff() <= 1e-15);

    // Rollouts on the world, filtered by the learned model (prior μ̂): beliefs over 4 latent
    // states, on the simplex.
    maxent::RolloutOptions ro;
    ro.needs = {.belief_entropy = true, .believed_states = true, .beliefs = true};
    maxent::Sampler<Pomdp, maxent::BayesFilter<Pomdp>> sampler(
        world, maxent::BayesFilter(agent, agent.initial_distribution()), ro);
    maxent::BeliefAveragedPolicy policy(4, 2);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(4, 2);
    for (std::size_t n = 0; n < 50; ++n) {
        maxent::DefaultRng g = maxent::stream(23, 0, n);
        const maxent::Trajectory& t = sampler.run(policy, g, score);
        REQUIRE(t.belief_dimension == 4);
        REQUIRE(t.beliefs.rows() == 4);
        for (Index k = 0; k < t.beliefs.cols(); ++k) CHECK(std::abs(t.beliefs.col(k).sum() - 1.0) <= 1e-12);
    }

    // Training on the world with the learned belief model: finite throughout.
    maxent::TrainerConfig config;
    config.iterations = 30;
    config.batch = 8;
    config.seed = 3;
    const auto r = maxent::train(world, maxent::BayesFilter(agent), maxent::BeliefAveragedPolicy(4, 2),
                                 maxent::RegMBE(0.02), maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    REQUIRE(r.history.size() == 30);
    CHECK(r.parameters.allFinite());
    for (const auto& m : r.history) {
        CHECK(std::isfinite(m.feedback));
        CHECK(std::isfinite(m.belief_entropy_sum));
        CHECK(m.true_entropy >= 0.0);
        CHECK(m.true_entropy <= std::log(4.0) + 1e-12);
    }
}

TEST_CASE("per-action emissions become a FinitePomdp with its own first-observation matrix", "[learned]") {
    const IohmmModel m = tiny_model(EmissionModel::per_action);
    const auto p = maxent::to_finite_pomdp(m, 5);
    CHECK(p.observation_depends_on_action());
    CHECK((Eigen::MatrixXd(p.observation_matrix(1)) - m.emissions[1]).cwiseAbs().maxCoeff() <= 1e-15);
    CHECK((Eigen::MatrixXd(p.initial_observation_matrix()) - m.initial_emission).cwiseAbs().maxCoeff() <= 1e-15);
    CHECK(p.horizon() == 5);
    // Shared: o_1 uses the shared matrix.
    const auto q = maxent::to_finite_pomdp(tiny_model(EmissionModel::shared), 5);
    CHECK_FALSE(q.observation_depends_on_action());
    // Not a distribution: FinitePomdp's validation names it.
    IohmmModel bad = m;
    bad.transitions[1](2, 0) = -0.5;
    CHECK_THROWS_AS(maxent::to_finite_pomdp(bad, 5), maxent::model_error);
    CHECK_THROWS_AS(maxent::to_finite_pomdp(m, 0), maxent::model_error);
}

TEST_CASE("sparse data with alpha = 0: no NaN, an impossible held-out sequence scores -infinity", "[learned]") {
    // Observation 3 never occurs in training: with α = 0 its emission probability becomes 0
    // after one M step, and a held-out sequence containing it has probability 0.
    std::vector<ActionObservationSequence> train = {{{0, 1}, {0, 1, 2}, ""}, {{1}, {2, 0}, ""}, {{0}, {1, 1}, ""}};
    std::vector<ActionObservationSequence> heldout = {{{0}, {0, 3}, "odd"}};
    IohmmOptions o;
    o.latent_states = 3;
    o.num_actions = 2;
    o.num_observations = 4;
    o.smoothing = 0.0;
    o.max_iterations = 30;
    const maxent::IohmmFit fit = maxent::fit_iohmm(train, o, heldout);
    CHECK(all_finite(fit.model));
    for (const double v : fit.log_likelihood) CHECK(std::isfinite(v));
    REQUIRE(fit.heldout_log_likelihood.size() == fit.log_likelihood.size());
    CHECK(std::isfinite(fit.heldout_log_likelihood.front()));  // the random start gives it a positive probability
    CHECK(fit.heldout_log_likelihood.back() == -std::numeric_limits<double>::infinity());
    CHECK(fit.model.emissions[0].col(3).maxCoeff() == 0.0);
    CHECK(maxent::iohmm_posteriors(fit.model, heldout[0]).log_likelihood == -std::numeric_limits<double>::infinity());
    // With α > 0 the same data keeps every probability positive.
    o.smoothing = 0.1;
    const maxent::IohmmFit smooth = maxent::fit_iohmm(train, o, heldout);
    CHECK(std::isfinite(smooth.heldout_log_likelihood.back()));
    CHECK(smooth.model.emissions[0].minCoeff() > 0.0);
}

TEST_CASE("sequences from trajectories and from CSV", "[learned][csv]") {
    maxent::Trajectory t;
    t.actions = {1, 0};
    t.observations = {2, 3, 0};
    const auto s = maxent::to_sequence(t, "x");
    CHECK(s.actions == t.actions);
    CHECK(s.observations == t.observations);
    CHECK(s.id == "x");
    t.observations.pop_back();
    CHECK_THROWS_WITH(maxent::to_sequence(t), Contains("2 actions and 2 observations"));

    // Round trip, with blanks, CRLF and a blank line.
    std::istringstream in(
        "sequence,step,action,observation\r\n"
        "ep1, 1 ,1,2\r\n"
        "ep1,2,0,3\n"
        "\n"
        "ep1,3,,0\n"
        "ep2,1,,4\n");
    const auto seqs = maxent::read_sequences_csv(in, "data.csv");
    REQUIRE(seqs.size() == 2);
    CHECK(seqs[0] == ActionObservationSequence{{1, 0}, {2, 3, 0}, "ep1"});
    CHECK(seqs[1] == ActionObservationSequence{{}, {4}, "ep2"});
    std::ostringstream out;
    maxent::write_sequences_csv(out, seqs);
    std::istringstream back(out.str());
    CHECK(maxent::read_sequences_csv(back) == seqs);

    auto parse = [](const std::string& text) {
        std::istringstream is(text);
        return maxent::read_sequences_csv(is, "d.csv");
    };
    const std::string head = "sequence,step,action,observation\n";
    CHECK_THROWS_AS(parse(head + "a,1,x,2\n"), maxent::parse_error);
    CHECK_THROWS_WITH(parse(head + "a,1,x,2\n"),
                      Contains("d.csv:2:5:") && Contains("field 'action': 'x' is not a non-negative integer"));
    CHECK_THROWS_WITH(parse(head + "a,1,-1,2\n"), Contains("d.csv:2:5:") && Contains("'-1'"));
    CHECK_THROWS_WITH(parse(head + "a,1,0,2.5\n"), Contains("d.csv:2:7:") && Contains("field 'observation': '2.5'"));
    CHECK_THROWS_WITH(parse(head + "a,1,0,99999999999999999999999\n"), Contains("(too large)"));
    CHECK_THROWS_WITH(parse(head + "a,1,0\n"), Contains("d.csv:2:1:") && Contains("expected 4 fields") &&
                                                    Contains("got 3"));
    CHECK_THROWS_WITH(parse("seq,step,action,observation\n"),
                      Contains("d.csv:1:1:") && Contains("field 1 is 'seq', expected 'sequence'"));
    CHECK_THROWS_WITH(parse(head + "a,2,,1\n"), Contains("d.csv:2:3:") && Contains("field 'step': '2'") &&
                                                     Contains("expected 1"));
    CHECK_THROWS_WITH(parse(head + "a,1,0,1\na,3,,1\n"), Contains("d.csv:3:3:") && Contains("expected 2"));
    CHECK_THROWS_WITH(parse(head + "a,1,0,1\nb,1,,1\n"),
                      Contains("d.csv:3:1:") && Contains("sequence 'a' (last row at line 2) ends without a row"));
    CHECK_THROWS_WITH(parse(head + "a,1,0,1\n"), Contains("d.csv:2:1:") && Contains("end of the input"));
    CHECK_THROWS_WITH(parse(head + "a,1,,1\nb,1,,0\na,1,,2\n"),
                      Contains("d.csv:4:1:") && Contains("sequence 'a' appears again; its rows began at line 2"));
    CHECK_THROWS_WITH(parse(head + "a,1,,1\na,2,,2\n"), Contains("d.csv:3:1:") && Contains("appears again"));
    CHECK_THROWS_WITH(parse(head + ",1,,1\n"), Contains("d.csv:2:1:") && Contains("field 'sequence' is empty"));
    CHECK_THROWS_WITH(parse(""), Contains("no header line"));
    CHECK_THROWS_WITH(maxent::read_sequences_csv_file("/nonexistent/dir/x.csv"),
                      Contains("/nonexistent/dir/x.csv") && Contains("cannot read"));
    CHECK(parse(head).empty());
}

TEST_CASE("bad input to fit_iohmm is named", "[learned][errors]") {
    const std::vector<ActionObservationSequence> good = {{{0}, {0, 1}, "a"}, {{1, 0}, {1, 1, 0}, "b"}};
    IohmmOptions o;
    o.latent_states = 2;
    o.num_actions = 2;
    o.num_observations = 2;
    auto fit = [&](const std::vector<ActionObservationSequence>& d, const IohmmOptions& opt) {
        return maxent::fit_iohmm(d, opt);
    };
    CHECK_NOTHROW(fit(good, o));

    auto bad_action = good;
    bad_action[1].actions[1] = 5;
    CHECK_THROWS_AS(fit(bad_action, o), maxent::config_error);
    CHECK_THROWS_WITH(fit(bad_action, o),
                      Contains("training sequence 1 ('b'), step 2: action 5 is outside [0, 2)"));
    auto bad_observation = good;
    bad_observation[0].observations[0] = 7;
    CHECK_THROWS_WITH(fit(bad_observation, o),
                      Contains("training sequence 0 ('a'), step 1: observation 7 is outside [0, 2)"));
    CHECK_THROWS_WITH(maxent::fit_iohmm(good, o, bad_observation),
                      Contains("held-out sequence 0 ('a'), step 1: observation 7"));
    CHECK_THROWS_WITH(fit({}, o), Contains("no training sequences"));
    CHECK_THROWS_WITH(fit({{{}, {}, ""}}, o), Contains("training sequence 0 has no observations"));
    CHECK_THROWS_WITH(fit({{{0, 1}, {0, 1}, "c"}}, o),
                      Contains("training sequence 0 ('c') has 2 actions and 2 observations"));

    auto with = [&](auto change) {
        IohmmOptions x = o;
        change(x);
        return x;
    };
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.latent_states = 0; })),
                      Contains("latent states L must be at least 1, got 0"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.num_actions = 0; })), Contains("actions"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.num_observations = 0; })), Contains("observations"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.smoothing = -0.5; })),
                      Contains("smoothing α must be finite and >= 0, got -0.5"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.smoothing = std::nan(""); })),
                      Contains("smoothing") && Contains("nan"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.smoothing = HUGE_VAL; })),
                      Contains("smoothing") && Contains("inf"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.tolerance = -1.0; })), Contains("tolerance"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.restarts = 0; })), Contains("restarts"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.anchor_weight = 1.5; })),
                      Contains("anchor weight must be in [0, 1), got 1.5"));
    CHECK_THROWS_WITH(fit(good, with([](IohmmOptions& x) { x.block_size = 0; })), Contains("block size"));
    // Every error is a maxent::error.
    CHECK_THROWS_AS(fit(good, with([](IohmmOptions& x) { x.latent_states = 0; })), maxent::error);

    // A model of the wrong shape for the helpers.
    IohmmModel m = tiny_model(EmissionModel::shared);
    m.transitions[1] = Eigen::MatrixXd::Identity(2, 2);
    CHECK_THROWS_WITH(maxent::iohmm_posteriors(m, good[0]), Contains("transition matrix 1 is 2 x 2, expected 3 x 3"));
    CHECK_THROWS_WITH(maxent::iohmm_log_likelihood(tiny_model(EmissionModel::shared),
                                                   std::vector<ActionObservationSequence>{{{2}, {0, 0}, ""}}),
                      Contains("sequence 0, step 1: action 2 is outside [0, 2)"));
}

TEST_CASE("models that are not distributions are refused, naming the matrix, row, column and value",
          "[learned][errors]") {
    using learned_test::tiny_model;
    const ActionObservationSequence s{{0, 1}, {0, 2, 1}, "s"};
    const std::vector<ActionObservationSequence> data = {s, {{1}, {1, 0}, "t"}};
    auto refit = [&](const IohmmModel& start) {
        IohmmOptions o;
        o.num_actions = 2;
        o.num_observations = 3;
        o.max_iterations = 3;
        return maxent::refit_iohmm(start, data, o);
    };
    IohmmModel m = tiny_model(EmissionModel::shared);
    m.initial = Eigen::Vector3d(-1.0, 2.0, 0.0);  // sums to 1, but not a distribution
    CHECK_THROWS_AS(maxent::iohmm_posteriors(m, s), maxent::model_error);
    CHECK_THROWS_WITH(maxent::iohmm_posteriors(m, s),
                      Contains("iohmm_posteriors") && Contains("initial distribution") && Contains("entry 0") &&
                          Contains("-1"));
    CHECK_THROWS_WITH(maxent::iohmm_log_likelihood(m, data), Contains("initial distribution") && Contains("-1"));

    m = tiny_model(EmissionModel::shared);
    m.transitions[1](2, 1) = -0.1;
    m.transitions[1](2, 0) = 0.7;  // the row still sums to 1
    CHECK_THROWS_AS(refit(m), maxent::model_error);
    CHECK_THROWS_WITH(refit(m), Contains("refit_iohmm") && Contains("transition matrix 1, row 2, column 1") &&
                                    Contains("-0.1"));

    m = tiny_model(EmissionModel::shared);
    m.emissions[0](1, 2) = std::nan("");
    CHECK_THROWS_WITH(refit(m), Contains("emission matrix 0, row 1, column 2") && Contains("nan") &&
                                    !Contains("α = 0"));

    m = tiny_model(EmissionModel::per_action);
    m.initial_emission(0, 0) = 0.7;  // row 0 sums to 1.1
    CHECK_THROWS_WITH(maxent::iohmm_posteriors(m, s),
                      Contains("initial emission matrix, row 0") && Contains("sums to 1.1"));

    m = tiny_model(EmissionModel::shared);
    m.transitions[0](0, 2) = HUGE_VAL;
    CHECK_THROWS_WITH(maxent::iohmm_posteriors(m, s), Contains("transition matrix 0, row 0, column 2") &&
                                                          Contains("inf"));

    // Rounding is tolerated (the rows of a fitted model sum to 1 within a few ulps).
    m = tiny_model(EmissionModel::shared);
    m.transitions[0](0, 0) += 1e-12;
    CHECK_NOTHROW(maxent::iohmm_posteriors(m, s));
    const maxent::IohmmPosteriors p = maxent::iohmm_posteriors(tiny_model(EmissionModel::shared), s);
    CHECK(p.state.minCoeff() >= 0.0);
}

TEST_CASE("learned-model settings that cannot work are refused up front with the setting named",
          "[learned][errors]") {
    const std::vector<ActionObservationSequence> good = {{{0}, {0, 1}, "a"}, {{1, 0}, {1, 1, 0}, "b"},
                                                         {{0, 0}, {2, 1, 0}, "c"}};
    IohmmOptions o;
    o.latent_states = 2;
    o.num_actions = 2;
    o.num_observations = 3;
    // A smoothing whose sums overflow: refused naming the value, not blamed on "α = 0".
    o.smoothing = 1e308;
    CHECK_THROWS_AS(maxent::fit_iohmm(good, o), maxent::config_error);
    CHECK_THROWS_WITH(maxent::fit_iohmm(good, o), Contains("smoothing") && Contains("1e+308") && !Contains("α = 0"));
    // A large but representable smoothing works: every row is (nearly) uniform.
    o.smoothing = 1e50;
    const maxent::IohmmFit big = maxent::fit_iohmm(good, o);
    CHECK(std::isfinite(big.final_log_likelihood()));
    CHECK(big.model.emissions[0](0, 0) == Approx(1.0 / 3.0));
    // anchor weight 1 gives one-hot emission rows: observations that are nobody's anchor
    // (3 observations, 2 latent states) would have probability 0. Refused up front.
    o.smoothing = 0.01;
    o.anchor_weight = 1.0;
    CHECK_THROWS_AS(maxent::fit_iohmm(good, o), maxent::config_error);
    CHECK_THROWS_WITH(maxent::fit_iohmm(good, o), Contains("anchor weight must be in [0, 1), got 1"));
    o.anchor_weight = 0.999;
    CHECK_NOTHROW(maxent::fit_iohmm(good, o));

    // A start that gives a training sequence probability 0 (with α > 0): the message says so
    // and does not blame α = 0.
    IohmmModel start = learned_test::tiny_model(EmissionModel::shared);
    start.emissions[0].col(2).setZero();
    start.emissions[0].col(0) += Eigen::Vector3d(0.05, 0.1, 0.6);
    o.max_iterations = 3;
    CHECK_THROWS_AS(maxent::refit_iohmm(start, good, o), maxent::numeric_error);
    CHECK_THROWS_WITH(maxent::refit_iohmm(start, good, o),
                      Contains("training sequence 2 ('c') has probability 0 under the start model") &&
                          !Contains("α = 0"));
}

TEST_CASE("a stop flag ends EM between iterations, with the result marked stopped", "[learned][stop]") {
    // Random data that EM keeps improving on for a long time (tolerance 0, 10^6 iterations).
    std::vector<ActionObservationSequence> data(200);
    for (std::size_t n = 0; n < data.size(); ++n) {
        maxent::DefaultRng g = maxent::stream(71, n);
        data[n].observations.push_back(static_cast<std::size_t>(maxent::uniform_index(g, 3)));
        for (std::size_t k = 0; k < 20; ++k) {
            data[n].actions.push_back(static_cast<std::size_t>(maxent::uniform_index(g, 2)));
            data[n].observations.push_back(static_cast<std::size_t>(maxent::uniform_index(g, 3)));
        }
    }
    IohmmOptions o;
    o.latent_states = 4;
    o.num_actions = 2;
    o.num_observations = 3;
    o.max_iterations = 5;
    const maxent::IohmmFit plain = maxent::fit_iohmm(data, o);
    std::atomic<bool> stop{false};
    o.stop = &stop;
    const maxent::IohmmFit unset = maxent::fit_iohmm(data, o);  // a flag never set changes nothing
    CHECK(unset.model == plain.model);
    CHECK(unset.log_likelihood == plain.log_likelihood);
    CHECK_FALSE(unset.stopped);

    // Set before the call: one E step (ℓ of the start), no M step, no further restart.
    stop = true;
    const maxent::IohmmFit at_once = maxent::fit_iohmm(data, o);
    CHECK(at_once.stopped);
    CHECK_FALSE(at_once.converged);
    CHECK(at_once.iterations == 0);
    CHECK(at_once.log_likelihood.size() == 1);
    CHECK(at_once.restart_log_likelihood.size() == 1);
    const maxent::IohmmFit refit = maxent::refit_iohmm(plain.model, data, o);
    CHECK(refit.stopped);
    CHECK(refit.iterations == 0);
    CHECK(refit.model == plain.model);

    // Set by another thread while a long fit runs: it returns promptly, with a valid model.
    stop = false;
    o.max_iterations = 1000000;
    o.tolerance = 0.0;
    const auto start = std::chrono::steady_clock::now();
    std::thread setter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        stop = true;
    });
    const maxent::IohmmFit cut = maxent::fit_iohmm(data, o);
    setter.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(cut.stopped);
    CHECK_FALSE(cut.converged);
    CHECK(cut.iterations < o.max_iterations);
    CHECK(seconds < 30.0);  // 10^6 EM iterations would take far longer
    CHECK(learned_test::all_finite(cut.model));
    CHECK_NOTHROW(maxent::iohmm_log_likelihood(cut.model, data));
    for (std::size_t i = 1; i < cut.penalized_log_likelihood.size(); ++i)
        CHECK(cut.penalized_log_likelihood[i] >= cut.penalized_log_likelihood[i - 1] - 1e-9);
}

// ---------------------------------------------------------------------------------------
// Known or constrained parts (IohmmOptions::fixed, start, prior) and cloned HMMs
// ---------------------------------------------------------------------------------------

namespace structured_test {

using learned_test::ix;

/// A tiny cloned HMM: O = 3 observations with 2, 1, 2 clones (L = 5), A = 2, arbitrary
/// positive transitions and initial distribution.
inline IohmmModel tiny_cloned() {
    const std::vector<std::size_t> clones{2, 1, 2};
    IohmmModel m;
    m.emission_model = EmissionModel::shared;
    m.initial.resize(5);
    m.initial << 0.3, 0.1, 0.25, 0.15, 0.2;
    Eigen::MatrixXd P0(5, 5), P1(5, 5);
    P0 << 0.1, 0.3, 0.2, 0.25, 0.15,  //
        0.4, 0.1, 0.1, 0.2, 0.2,      //
        0.05, 0.15, 0.5, 0.1, 0.2,    //
        0.2, 0.2, 0.2, 0.1, 0.3,      //
        0.35, 0.05, 0.3, 0.2, 0.1;
    P1 << 0.25, 0.25, 0.1, 0.1, 0.3,  //
        0.1, 0.6, 0.1, 0.1, 0.1,      //
        0.3, 0.2, 0.1, 0.35, 0.05,    //
        0.15, 0.15, 0.4, 0.2, 0.1,    //
        0.2, 0.1, 0.1, 0.3, 0.3;
    m.transitions = {P0, P1};
    m.emissions = {maxent::clone_emissions(clones)};
    m.initial_emission = m.emissions[0];
    return m;
}

/// A ring of 6 cells seen through 3 aliased observations, [0, 1, 0, 2, 1, 2] (no rotation maps
/// the pattern onto itself, so the layout is identifiable); action 0 moves one cell clockwise,
/// action 1 one counter-clockwise, deterministically; uniform start.
inline IohmmModel aliased_ring() {
    const std::size_t n = 6;
    const std::size_t pattern[n] = {0, 1, 0, 2, 1, 2};
    IohmmModel m;
    m.emission_model = EmissionModel::shared;
    m.initial = Eigen::VectorXd::Constant(6, 1.0 / 6.0);
    Eigen::MatrixXd cw = Eigen::MatrixXd::Zero(6, 6), ccw = Eigen::MatrixXd::Zero(6, 6), E = Eigen::MatrixXd::Zero(6, 3);
    for (std::size_t z = 0; z < n; ++z) {
        cw(ix(z), ix((z + 1) % n)) = 1.0;
        ccw(ix(z), ix((z + n - 1) % n)) = 1.0;
        E(ix(z), ix(pattern[z])) = 1.0;
    }
    m.transitions = {cw, ccw};
    m.emissions = {E};
    m.initial_emission = E;
    return m;
}

inline IohmmOptions options_for(std::size_t L, std::size_t A, std::size_t O) {
    IohmmOptions o;
    o.latent_states = L;
    o.num_actions = A;
    o.num_observations = O;
    return o;
}

}  // namespace structured_test

TEST_CASE("fixed blocks stay bit-identical through EM, and the MAP objective never decreases", "[learned][prior]") {
    using namespace structured_test;
    const IohmmModel truth = learned_test::tiny_model(EmissionModel::shared);
    const auto data = learned_test::sample_sequences(truth, 150, 12, 3);
    IohmmOptions o = options_for(3, 2, 3);
    o.restarts = 2;
    o.max_iterations = 40;
    o.tolerance = 0.0;
    o.seed = 9;
    SECTION("known motion: transitions fixed, sparse prior on the emissions") {
        o.fixed = maxent::known_motion(truth);
        o.prior.emissions = 0.5;
        o.prior.initial = 3.0;
        const maxent::IohmmFit fit = maxent::fit_iohmm(data, o);
        for (std::size_t a = 0; a < 2; ++a) CHECK((fit.model.transitions[a].array() == truth.transitions[a].array()).all());
        CHECK_FALSE((fit.model.emissions[0].array() == truth.emissions[0].array()).all());  // learned
        CHECK(fit.model.emissions[0].minCoeff() >= o.prior.floor);
        for (std::size_t i = 1; i < fit.penalized_log_likelihood.size(); ++i)
            CHECK(fit.penalized_log_likelihood[i] >=
                  fit.penalized_log_likelihood[i - 1] - 1e-12 * std::abs(fit.penalized_log_likelihood[i - 1]));
        // The refit keeps them too, and the result is still a distribution.
        const maxent::IohmmFit again = maxent::refit_iohmm(fit.model, data, o);
        for (std::size_t a = 0; a < 2; ++a) CHECK((again.model.transitions[a].array() == truth.transitions[a].array()).all());
        CHECK_NOTHROW(maxent::iohmm_log_likelihood(again.model, data));
    }
    SECTION("known sensor and start: emissions and mu fixed, sparse prior on the transitions") {
        o.fixed = maxent::known_sensor(truth);
        o.fixed.initial = truth.initial;
        o.prior.transitions = 0.3;
        const maxent::IohmmFit fit = maxent::fit_iohmm(data, o);
        CHECK((fit.model.emissions[0].array() == truth.emissions[0].array()).all());
        CHECK((fit.model.initial.array() == truth.initial.array()).all());
        for (std::size_t i = 1; i < fit.penalized_log_likelihood.size(); ++i)
            CHECK(fit.penalized_log_likelihood[i] >=
                  fit.penalized_log_likelihood[i - 1] - 1e-12 * std::abs(fit.penalized_log_likelihood[i - 1]));
        CHECK(fit.penalized_log_likelihood.back() > fit.penalized_log_likelihood.front());
    }
    SECTION("a start block is learned from, not held; with nothing given the fit is unchanged") {
        const maxent::IohmmFit plain = maxent::fit_iohmm(data, o);
        IohmmOptions empty = o;
        empty.fixed.transitions.assign(2, std::nullopt);  // given as "none": the same as not given
        CHECK(maxent::fit_iohmm(data, empty).model == plain.model);
        o.start = maxent::known_motion(truth);
        const maxent::IohmmFit started = maxent::fit_iohmm(data, o);
        CHECK_FALSE((started.model.transitions[0].array() == truth.transitions[0].array()).all());
        CHECK(started.log_likelihood.front() != plain.log_likelihood.front());
    }
}

TEST_CASE("the sparse MAP row (concentration below 1) on hand-derived cases", "[learned][prior]") {
    const double floor = 1e-3;
    Eigen::VectorXd row(4);
    // counts (3, 1.2, 0, 0.4), c = 0.5: w = (2.5, 0.7, -0.5, -0.1); the two negative at the
    // floor, the others ∝ w on 1 - 2 floor: 2.5/3.2 and 0.7/3.2 of 0.998.
    maxent::detail::sparse_row(row, Eigen::Vector4d(3.0, 1.2, 0.0, 0.4), -0.5, floor);
    CHECK(row[0] == Approx(2.5 / 3.2 * 0.998).epsilon(1e-14));
    CHECK(row[1] == Approx(0.7 / 3.2 * 0.998).epsilon(1e-14));
    CHECK(row[2] == floor);
    CHECK(row[3] == floor);
    // A positive weight too small for its share is clamped as well: w = (10, 0.001, -1, -1).
    maxent::detail::sparse_row(row, Eigen::Vector4d(11.0, 1.001, 0.0, 0.0), -1.0 + 1e-12, floor);
    CHECK(row[1] == floor);
    CHECK(row[0] == Approx(1.0 - 3.0 * floor).epsilon(1e-14));
    // No positive weight: the largest takes the rest.
    maxent::detail::sparse_row(row, Eigen::Vector4d(0.0, 0.1, 0.05, 0.0), -0.5, floor);
    CHECK(row[1] == Approx(1.0 - 3.0 * floor).epsilon(1e-14));
    CHECK(row[0] == floor);
    CHECK(row.sum() == Approx(1.0).epsilon(1e-14));
}

TEST_CASE("the cloned HMM's forward-backward equals brute-force enumeration", "[learned][cloned]") {
    using namespace structured_test;
    const IohmmModel m = tiny_cloned();
    const std::vector<ActionObservationSequence> seqs = {
        {{0, 1, 1, 0}, {0, 2, 1, 0, 2}, ""}, {{1, 1, 0, 0, 1}, {2, 2, 0, 1, 1, 0}, ""}, {{}, {1}, ""}};
    for (const auto& s : seqs) {
        const learned_test::Brute b = learned_test::brute_force(m, s);
        const maxent::IohmmPosteriors p = maxent::cloned_hmm_posteriors(m, s);
        CHECK(std::abs(p.log_likelihood - std::log(b.probability)) <= 1e-12);
        CHECK((p.state - b.state).cwiseAbs().maxCoeff() <= 1e-12);
        REQUIRE(p.transition.size() == b.transition.size());
        for (std::size_t k = 0; k < p.transition.size(); ++k)
            CHECK((p.transition[k] - b.transition[k]).cwiseAbs().maxCoeff() <= 1e-12);
    }
    // An impossible observation sequence: o_1 = 1 then o_2 = 1 after action 1 is possible; make it impossible.
    IohmmModel zero = m;
    zero.transitions[0].col(2).setZero();
    zero.transitions[0].col(0) += m.transitions[0].col(2);
    CHECK(maxent::cloned_hmm_posteriors(zero, {{0}, {1, 1}, ""}).log_likelihood ==
          -std::numeric_limits<double>::infinity());
}

TEST_CASE("cloned-HMM EM equals dense EM with the clone emissions fixed", "[learned][cloned]") {
    using namespace structured_test;
    const IohmmModel m = tiny_cloned();
    const auto data = learned_test::sample_sequences(m, 80, 10, 4);
    IohmmOptions o = options_for(5, 2, 3);
    o.max_iterations = 15;
    o.tolerance = 0.0;
    o.smoothing = 0.1;
    IohmmModel start = m;
    start.transitions[0] = Eigen::MatrixXd::Constant(5, 5, 0.2);
    const maxent::IohmmFit cloned = maxent::refit_cloned_hmm(start, data, o, data);
    IohmmOptions dense = o;
    dense.fixed = maxent::known_sensor(m);
    const maxent::IohmmFit reference = maxent::refit_iohmm(start, data, dense, data);
    REQUIRE(cloned.log_likelihood.size() == reference.log_likelihood.size());
    for (std::size_t i = 0; i < cloned.log_likelihood.size(); ++i) {
        CHECK(std::abs(cloned.log_likelihood[i] - reference.log_likelihood[i]) <= 1e-9);
        CHECK(std::abs(cloned.penalized_log_likelihood[i] - reference.penalized_log_likelihood[i]) <= 1e-9);
        CHECK(std::abs(cloned.heldout_log_likelihood[i] - reference.heldout_log_likelihood[i]) <= 1e-9);
    }
    for (std::size_t a = 0; a < 2; ++a)
        CHECK((cloned.model.transitions[a] - reference.model.transitions[a]).cwiseAbs().maxCoeff() <= 1e-10);
    CHECK((cloned.model.initial - reference.model.initial).cwiseAbs().maxCoeff() <= 1e-10);
    CHECK((cloned.model.emissions[0].array() == m.emissions[0].array()).all());
}

TEST_CASE("a cloned HMM recovers an aliased ring's layout", "[learned][cloned]") {
    // Data: 100 sequences of 15 uniformly random actions (1 600 observations), data seed 7,
    // from a 6-cell ring seen as [0, 1, 0, 2, 1, 2]. Fit: 2 clones per observation, sparse
    // transition prior c = 0.5, 4 restarts (seed 1), 100 EM steps. Check: some relabelling of
    // the clones within each observation maps every learned move (its most likely next clone,
    // probability > 0.95) onto the true move of the ring.
    using namespace structured_test;
    const IohmmModel truth = aliased_ring();
    const auto data = learned_test::sample_sequences(truth, 100, 15, 7);
    IohmmOptions o = options_for(6, 2, 3);
    o.restarts = 4;
    o.max_iterations = 100;
    o.seed = 1;
    o.prior.transitions = 0.5;
    const maxent::IohmmFit fit = maxent::fit_cloned_hmm(data, o);
    const IohmmModel& m = fit.model;
    // Clone z of observation o is cell cells[o][perm]; observation o's cells in ring order.
    const std::vector<std::vector<std::size_t>> cells = {{0, 2}, {1, 4}, {3, 5}};
    bool found = false;
    for (std::size_t mask = 0; mask < 8 && !found; ++mask) {
        std::vector<std::size_t> cell_of(6);  // clone -> cell
        for (std::size_t obs = 0; obs < 3; ++obs)
            for (std::size_t j = 0; j < 2; ++j) cell_of[2 * obs + j] = cells[obs][((mask >> obs) & 1) ^ j];
        bool all = true;
        for (std::size_t a = 0; a < 2; ++a)
            for (Eigen::Index z = 0; z < 6; ++z) {
                Eigen::Index next = 0;
                const double p = m.transitions[a].row(z).maxCoeff(&next);
                const std::size_t want = a == 0 ? (cell_of[static_cast<std::size_t>(z)] + 1) % 6
                                                : (cell_of[static_cast<std::size_t>(z)] + 5) % 6;
                all = all && p > 0.95 && cell_of[static_cast<std::size_t>(next)] == want;
            }
        found = all;
    }
    INFO("final log-likelihood " << fit.final_log_likelihood() << ", iterations " << fit.iterations);
    CHECK(found);
    // Aliasing is what it resolves: one clone per observation cannot (a worse likelihood).
    IohmmOptions one = o;
    one.latent_states = 3;
    CHECK(maxent::fit_cloned_hmm(data, one).final_log_likelihood() < fit.final_log_likelihood() - 100.0);
    // Usable as the agent's model: the FinitePomdp and its filter accept it.
    const auto agent = maxent::to_finite_pomdp(m, 16);
    CHECK(agent.num_states() == 6);
}

TEST_CASE("bad structured-EM and cloned-HMM input is named", "[learned][errors]") {
    using namespace structured_test;
    const IohmmModel truth = learned_test::tiny_model(EmissionModel::shared);
    const auto data = learned_test::sample_sequences(truth, 5, 4, 3);
    IohmmOptions o = options_for(3, 2, 3);
    auto fails = [&](const IohmmOptions& x, const std::string& text) {
        CHECK_THROWS_WITH(maxent::fit_iohmm(data, x), Contains(text));
    };
    IohmmOptions x = o;
    x.fixed.transitions = {Eigen::MatrixXd::Identity(3, 3), Eigen::MatrixXd::Identity(2, 2)};
    fails(x, "fixed transition matrix 1 is 2 x 2, expected 3 x 3");
    x = o;
    x.fixed.transitions = {Eigen::MatrixXd::Identity(3, 3)};
    fails(x, "1 fixed transition entries for 2 actions");
    x = o;
    Eigen::MatrixXd E = truth.emissions[0];
    E(1, 2) += 0.1;
    x.fixed.emissions = {E};
    CHECK_THROWS_AS(maxent::fit_iohmm(data, x), maxent::model_error);
    fails(x, "fixed emission matrix 0, row 1 sums to 1.09");
    x = o;
    x.start.initial = Eigen::Vector3d(0.5, 0.6, -0.1);
    fails(x, "start initial distribution, row 0, column 2 is -0.1");
    x = o;
    x.fixed.initial_emission = truth.emissions[0];
    fails(x, "emissions are shared");
    x = o;
    x.prior.transitions = 0.0;
    fails(x, "prior concentration of the transitions must be finite and > 0, got 0");
    x.prior.transitions = -1.0;
    fails(x, "got -1");
    x.prior.transitions = std::numeric_limits<double>::quiet_NaN();
    fails(x, "got nan");
    x.prior.transitions = 0.5;
    x.prior.floor = 0.5;
    fails(x, "the prior floor must be in (0, 1/3)");
    // Cloned HMMs.
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, o, std::vector<std::size_t>{1, 0, 2}),
                      Contains("observation 1 has 0 clones"));
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, o, std::vector<std::size_t>{1, 2}),
                      Contains("2 clone counts for 3 observations"));
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, o, std::vector<std::size_t>{2, 2, 2}),
                      Contains("add up to 6 latent states, but L = 3"));
    x = o;
    x.latent_states = 2;
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, x), Contains("L = 2 latent states cannot give each of the 3"));
    x = o;
    x.emission = EmissionModel::per_action;
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, x), Contains("options.emission must be shared"));
    x = o;
    x.fixed.emissions = {truth.emissions[0]};
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, x), Contains("fixed emission blocks cannot be given"));
    CHECK_THROWS_WITH(maxent::refit_cloned_hmm(truth, data, o), Contains("emission row 0 is not one-hot"));
}

// --- reliability: files, sizes, floors, interruption --------------------------------------

TEST_CASE("read_sequences_csv_file refuses a FIFO at once and /dev/zero without reading it", "[learned][csv]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("maxent-csv-fifo-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path fifo = dir / "pipe.csv";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // A plain stream would block in open() until a writer comes: this thread plays the writer
    // (it opens and closes the FIFO as soon as a reader waits), so a reader that blocks sees an
    // empty input instead of hanging the test; a reader that refuses the FIFO never waits.
    std::atomic<bool> done{false};
    std::thread writer([&] {
        while (!done.load()) {
            const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) {
                ::close(fd);
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    std::string message;
    try {
        (void)maxent::read_sequences_csv_file(fifo.string());
    } catch (const maxent::parse_error& e) {
        message = e.what();
    }
    done.store(true);
    writer.join();
    fs::remove_all(dir);
    CHECK_THAT(message, Contains("pipe.csv:0:0:") && Contains("a FIFO (named pipe), not a regular file"));
    // /dev/zero: a stream would read zeros until memory runs out; it is refused by its type.
    CHECK_THROWS_WITH(maxent::read_sequences_csv_file("/dev/zero"),
                      Contains("/dev/zero:0:0:") && Contains("a character device, not a regular file"));
    CHECK_THROWS_WITH(maxent::read_sequences_csv_file("/"), Contains("a directory"));
}

TEST_CASE("read_sequences_csv_file reads a regular file up to its size bound", "[learned][csv]") {
    namespace fs = std::filesystem;
    const fs::path path = fs::temp_directory_path() / ("maxent-csv-" + std::to_string(::getpid()) + ".csv");
    const std::string text = "sequence,step,action,observation\na,1,1,0\na,2,,2\n";
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    const auto read = maxent::read_sequences_csv_file(path.string());
    REQUIRE(read.size() == 1);
    CHECK(read[0] == ActionObservationSequence{{1}, {0, 2}, "a"});
    CHECK(maxent::read_sequences_csv_file(path.string(), text.size()).size() == 1);
    CHECK_THROWS_WITH(maxent::read_sequences_csv_file(path.string(), text.size() - 1),
                      Contains("larger than " + std::to_string(text.size() - 1) + " bytes"));
    fs::remove(path);
}

TEST_CASE("sequence CSV fuzzer regressions read and write back, or throw parse_error", "[learned][csv]") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path{MAXENT_TEST_DATA_DIR} / "sequences" / "regressions";
    REQUIRE(fs::is_directory(dir));
    std::size_t count = 0, parsed = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
        INFO(entry.path().filename().string());
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        parsed += maxent::fuzz::sequences_csv_round_trip(bytes) ? 1 : 0;  // traps on a failed round trip
        ++count;
    }
    CHECK(count >= 4);
    CHECK(parsed >= 2);
}

TEST_CASE("clone counts whose sum overflows and settings too large for memory are refused, named",
          "[learned][cloned][errors]") {
    const std::vector<ActionObservationSequence> data = {{{0, 1}, {0, 1, 0}, "a"}, {{1}, {1, 1}, "b"}};
    IohmmOptions o;
    o.num_actions = 2;
    o.num_observations = 2;
    o.restarts = 1;
    o.max_iterations = 2;
    const std::size_t huge = std::numeric_limits<std::size_t>::max();
    const std::vector<std::size_t> overflow = {huge, 2};
    CHECK_THROWS_AS(maxent::fit_cloned_hmm(data, o, overflow), maxent::config_error);
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, o, overflow),
                      Contains("fit_cloned_hmm: the clone counts add up to more than") &&
                          Contains("observation 0 has " + std::to_string(huge) + " clones"));
    const std::vector<std::size_t> half = {huge / 2, huge / 2 + 5};
    CHECK_THROWS_WITH(maxent::clone_emissions(half),
                      Contains("clone_emissions: the clone counts add up to more than") &&
                          Contains("observation 1 has " + std::to_string(huge / 2 + 5) + " clones"));
    // Counts that fit an index but not the memory: a budget_error naming L, before allocating.
    const std::vector<std::size_t> big = {std::size_t{1} << 30, 1};
    CHECK_THROWS_AS(maxent::fit_cloned_hmm(data, o, big), maxent::budget_error);
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, o, big),
                      Contains("fit_cloned_hmm: EM with L = " + std::to_string((std::size_t{1} << 30) + 1) +
                               " latent states") && Contains("max_buffer_bytes"));
    CHECK_THROWS_AS(maxent::clone_emissions(big), maxent::budget_error);
    IohmmOptions wide = o;
    wide.latent_states = std::size_t{1} << 40;
    CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, wide),
                      Contains("L = " + std::to_string(std::size_t{1} << 40) + " latent states"));
    CHECK_THROWS_AS(maxent::fit_iohmm(data, wide), maxent::budget_error);
    CHECK_THROWS_WITH(maxent::fit_iohmm(data, wide),
                      Contains("fit_iohmm: EM with L = " + std::to_string(std::size_t{1} << 40) + " latent states"));
    wide.latent_states = huge;
    CHECK_THROWS_WITH(maxent::fit_iohmm(data, wide), Contains("more bytes than a std::size_t can count"));
}

TEST_CASE("a prior floor whose square underflows is refused, naming the floor", "[learned][prior][errors]") {
    const std::vector<ActionObservationSequence> data = {{{0, 1, 0}, {0, 1, 0, 1}, "a"}, {{1}, {1, 1}, "b"}};
    IohmmOptions o;
    o.latent_states = 2;
    o.num_actions = 2;
    o.num_observations = 2;
    o.restarts = 1;
    o.max_iterations = 5;
    o.prior.transitions = 0.5;
    for (const double floor : {1e-310, std::numeric_limits<double>::denorm_min(), 1e-200}) {
        o.prior.floor = floor;
        CHECK_THROWS_AS(maxent::fit_iohmm(data, o), maxent::config_error);
        CHECK_THROWS_WITH(maxent::fit_iohmm(data, o),
                          Contains("the prior floor (IohmmPrior::floor) must be at least 2^-511") &&
                              Contains(maxent::detail::message("got ", floor)));
        CHECK_THROWS_WITH(maxent::fit_cloned_hmm(data, o, std::vector<std::size_t>{1, 1}),
                          Contains("fit_cloned_hmm: the prior floor (IohmmPrior::floor)"));
    }
    o.prior.floor = maxent::min_iohmm_prior_floor;  // the least accepted
    CHECK(maxent::fit_iohmm(data, o).log_likelihood.size() >= 2);
}

TEST_CASE("score_sequences reads a stop flag before every sequence, and unset it leaves the bits unchanged", "[learned][stop]") {
    const IohmmModel m = learned_test::tiny_model(EmissionModel::shared);
    std::vector<ActionObservationSequence> data(70);
    maxent::DefaultRng g(3);
    for (auto& s : data)
        for (std::size_t k = 0; k < 6; ++k) {
            if (k < 5) s.actions.push_back(maxent::uniform_index(g, 2));
            s.observations.push_back(maxent::uniform_index(g, 3));
        }
    std::atomic<bool> stop{false};
    const maxent::SequenceScore plain = maxent::score_sequences(m, data, 1, 8);
    const maxent::SequenceScore polled = maxent::score_sequences(m, data, 2, 8, &stop);
    CHECK_FALSE(polled.stopped);
    CHECK(polled.log_likelihood == plain.log_likelihood);
    CHECK(polled.log_likelihood == maxent::iohmm_log_likelihood(m, data, 1, 8));
    CHECK(polled.observations == 70 * 6);
    stop.store(true);
    const maxent::SequenceScore cut = maxent::score_sequences(m, data, 1, 8, &stop);
    CHECK(cut.stopped);
    CHECK(cut.log_likelihood == 0.0);
    CHECK(cut.sequences == 0);
}

}  // namespace test_learned_model
