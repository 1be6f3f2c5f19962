// Tests of objective/exact.hpp: the exact objective and gradient by enumeration, checked
// against hand-derived values, central finite differences, Monte Carlo rollouts of the
// Sampler, and the gradient estimators (unbiasedness and variance).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/belief_mixture.hpp"
#include "maxent/policy/believed_state_policy.hpp"
#include "maxent/policy/observation_policy.hpp"

#include "ring_model.hpp"

namespace test_exact {

using namespace maxent;

namespace {

using Model = FinitePomdp<int, int, int>;

/// Two states, action 0 stays and action 1 switches (deterministic), μ = e_0, two
/// observations emitted by `Z` (2 x 2, rows = states).
Model switch_model(const Eigen::MatrixXd& Z, std::size_t horizon) {
    Eigen::MatrixXd stay = Eigen::MatrixXd::Identity(2, 2);
    Eigen::MatrixXd swap(2, 2);
    swap << 0, 1, 1, 0;
    Eigen::VectorXd mu(2);
    mu << 1.0, 0.0;
    return Model({0, 1}, {0, 1}, {0, 1}, std::vector<Eigen::MatrixXd>{stay, swap}, std::vector<Eigen::MatrixXd>{Z}, mu,
                 horizon);
}

using test_models::ring_model;

/// Fills the parameters with standard normals from a fixed seed.
template <class P>
P randomised(P policy, std::uint64_t seed) {
    DefaultRng g(seed);
    Eigen::MatrixXd& theta = policy.parameters();
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
        for (Eigen::Index r = 0; r < theta.rows(); ++r) theta(r, c) = standard_normal(g);
    return policy;
}

double softmax1(double l0, double l1) { return 1.0 / (1.0 + std::exp(l0 - l1)); }  // softmax(l)[1]

/// An updater that never moves the belief away from its prior (declared deterministic).
struct FrozenBelief {
    static constexpr bool deterministic = true;
    Eigen::VectorXd prior;
    [[nodiscard]] std::size_t dimension() const { return static_cast<std::size_t>(prior.size()); }
    void initial(Eigen::VectorXd& b) const { b = prior; }
    template <class G>
    void update(Eigen::VectorXd&, std::size_t, std::size_t, G&) {}
};

/// A user feedback that needs the belief matrix: b_last(s_last), the probability the last
/// belief gives to the last true state.
struct LastBeliefHit {
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        const auto k = static_cast<Eigen::Index>(t.states.size() - 1);
        return t.beliefs(static_cast<Eigen::Index>(t.states.back()), k);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {.beliefs = true}; }
};

struct MonteCarlo {
    double mean = 0.0;
    double standard_error = 0.0;
};

/// Mean feedback over `episodes` Sampler rollouts (episode n uses stream(seed, 0, n)).
template <class P, class F, class U = BayesFilter<Model>>
MonteCarlo monte_carlo(const Model& m, P policy, const F& feedback, StateCounting counting, std::size_t episodes,
                       std::uint64_t seed, U updater) {
    Sampler<Model, U> sampler(m, std::move(updater), RolloutOptions{counting, feedback.needs()});
    const Eigen::MatrixXd& theta = policy.parameters();
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
    double sum = 0.0, sum_sq = 0.0;
    for (std::size_t n = 0; n < episodes; ++n) {
        DefaultRng g = stream(seed, 0, n);
        const Trajectory& t = sampler.run(policy, g, score);
        const double f = feedback(t, g);
        sum += f;
        sum_sq += f * f;
    }
    const auto N = static_cast<double>(episodes);
    MonteCarlo out;
    out.mean = sum / N;
    const double var = (sum_sq - N * out.mean * out.mean) / (N - 1.0);
    out.standard_error = std::sqrt(var / N);
    return out;
}

const char* name_of(StateCounting c) { return c == StateCounting::paper ? "paper" : "authors"; }

}  // namespace

static_assert(is_deterministic_updater<BayesFilter<Model>>::value);
static_assert(is_deterministic_updater<FrozenBelief>::value);
static_assert(!is_deterministic_updater<NoisyBelief<BayesFilter<Model>>>::value,
              "the noisy oracle draws noise: it must not be accepted by exact_objective");

TEST_CASE("exact objective: hand-derived values on a two-state switch model", "[exact]") {
    Eigen::MatrixXd Z(2, 2);
    Z << 0.8, 0.2, 0.3, 0.7;
    const Model m = switch_model(Z, 2);
    const BeliefAveragedPolicy policy = randomised(BeliefAveragedPolicy(2, 2), 11);
    const Eigen::MatrixXd& th = policy.parameters();
    const double log2 = std::log(2.0);
    // Paper counting, T = 2: one action a_1 from the uniform prior b_1 = (1/2, 1/2).
    const double q = softmax1(0.5 * (th(0, 0) + th(1, 0)), 0.5 * (th(0, 1) + th(1, 1)));  // P(switch)
    const Eigen::Vector2d pi(1.0 - q, q);
    // ∂q/∂θ_{s,a} = q b_s (δ_{a,1} - π_a) with b_s = 1/2.
    Eigen::MatrixXd dq(2, 2);
    for (Eigen::Index s = 0; s < 2; ++s)
        for (Eigen::Index a = 0; a < 2; ++a) dq(s, a) = q * 0.5 * ((a == 1 ? 1.0 : 0.0) - pi[a]);

    SECTION("MSE: J = P(s_1 != s_2) log 2 = q log 2") {
        const ExactResult r = exact_objective(m, policy, MSE{});
        CHECK(r.objective == Approx(q * log2).epsilon(1e-14));
        for (Eigen::Index s = 0; s < 2; ++s)
            for (Eigen::Index a = 0; a < 2; ++a) CHECK(r.gradient(s, a) == Approx(log2 * dq(s, a)).epsilon(1e-12));
        CHECK(r.probability == Approx(1.0).epsilon(1e-14));
        CHECK(r.leaves == 8);  // o_1 ∈ {0,1} x a_1 ∈ {stay, switch} x o_2 ∈ {0,1}: s_2 is determined
        CHECK(r.leaf_bound == 1 * 2 * (2 * 1 * 2));
        CHECK(exact_objective_value(m, policy, MSE{}) == r.objective);
    }
    SECTION("MOE: J = P(o_1 != o_2) log 2 = (0.32 + 0.3 q) log 2") {
        // P(o_2 = 0) = 0.8 (1 - q) + 0.3 q; P(o_1 != o_2) = 0.8 (1 - P0) + 0.2 P0 = 0.32 + 0.3 q.
        const ExactResult r = exact_objective(m, policy, MOE{});
        CHECK(r.objective == Approx((0.32 + 0.3 * q) * log2).epsilon(1e-14));
        for (Eigen::Index s = 0; s < 2; ++s)
            for (Eigen::Index a = 0; a < 2; ++a)
                CHECK(r.gradient(s, a) == Approx(0.3 * log2 * dq(s, a)).epsilon(1e-12));
    }
    SECTION("MBE: b_1 uniform and b_2 = Z[:, o_2] normalised, so P(s~_1 != s~_2) = 1/2 whatever θ") {
        const ExactResult r = exact_objective(m, policy, MBE{});
        CHECK(r.objective == Approx(0.5 * log2).epsilon(1e-14));
        CHECK(r.gradient.cwiseAbs().maxCoeff() < 1e-15);
        CHECK(r.probability == Approx(1.0).epsilon(1e-14));
        CHECK(r.leaves == 8 * 2 * 2);  // two believed states per counted step
    }
    SECTION("Reg-MBE: 0.5 log 2 - ρ (log 2 + E[H(b_2)])") {
        const double rho = 0.3;
        const double p0 = 0.8 * (1.0 - q) + 0.3 * q;  // P(o_2 = 0)
        auto h2 = [](double x, double y) { return -(x * std::log(x) + y * std::log(y)); };
        const double h0 = h2(0.8 / 1.1, 0.3 / 1.1);  // H(b_2 | o_2 = 0)
        const double h1 = h2(0.2 / 0.9, 0.7 / 0.9);  // H(b_2 | o_2 = 1)
        const double expected = 0.5 * log2 - rho * (log2 + p0 * h0 + (1.0 - p0) * h1);
        const ExactResult r = exact_objective(m, policy, RegMBE(rho));
        CHECK(r.objective == Approx(expected).epsilon(1e-14));
        // dp0/dq = -0.5, so dJ/dθ = -ρ (h0 - h1)(-0.5) dq/dθ.
        for (Eigen::Index s = 0; s < 2; ++s)
            for (Eigen::Index a = 0; a < 2; ++a)
                CHECK(r.gradient(s, a) == Approx(0.5 * rho * (h0 - h1) * dq(s, a)).epsilon(1e-12));
    }
    SECTION("a deterministic user updater with its own prior: J_MSE = softmax(θ[1])(switch) log 2") {
        FrozenBelief frozen{Eigen::Vector2d(0.0, 1.0)};
        const double q1 = softmax1(th(1, 0), th(1, 1));
        CHECK(exact_objective(m, frozen, policy, MSE{}).objective == Approx(q1 * log2).epsilon(1e-14));
        CHECK(exact_objective_value(m, frozen, policy, MSE{}) == Approx(q1 * log2).epsilon(1e-14));
    }
    SECTION("BayesFilter prior e_0 = μ: b_t is the true state, so J_MBE = J_MSE = softmax(θ[0])(switch) log 2") {
        BayesFilter<Model> filter(m, Eigen::Vector2d(1.0, 0.0));
        const double q0 = softmax1(th(0, 0), th(0, 1));
        const ExactResult mbe = exact_objective(m, filter, policy, MBE{});
        const ExactResult mse = exact_objective(m, filter, policy, MSE{});
        CHECK(mbe.objective == Approx(q0 * log2).epsilon(1e-14));
        CHECK(mse.objective == Approx(q0 * log2).epsilon(1e-14));
        CHECK((mbe.gradient - mse.gradient).cwiseAbs().maxCoeff() < 1e-15);
    }
}

TEST_CASE("exact objective: hand-derived values under the authors' counting", "[exact]") {
    // Identity observations: b_2 = e_{s_2}, b_3 = e_{s_3}. T = 2, two actions, s_2 and s_3 counted.
    const Model m = switch_model(Eigen::MatrixXd::Identity(2, 2), 2);
    const BeliefAveragedPolicy policy = randomised(BeliefAveragedPolicy(2, 2), 12);
    const Eigen::MatrixXd& th = policy.parameters();
    const double q = softmax1(0.5 * (th(0, 0) + th(1, 0)), 0.5 * (th(0, 1) + th(1, 1)));  // a_1 = switch
    const double q0 = softmax1(th(0, 0), th(0, 1));  // a_2 = switch from b_2 = e_0
    const double q1 = softmax1(th(1, 0), th(1, 1));  // a_2 = switch from b_2 = e_1
    const double expected = std::log(2.0) * ((1.0 - q) * q0 + q * q1);
    const ExactOptions authors{.counting = StateCounting::authors};
    const ExactResult mse = exact_objective(m, policy, MSE{}, authors);
    CHECK(mse.objective == Approx(expected).epsilon(1e-14));
    CHECK(mse.probability == Approx(1.0).epsilon(1e-14));
    // MBE and Reg-MBE count the beliefs at acting time, b_1 = uniform and b_2 = e_{s_2}: the
    // believed states s~_1 ~ U{0, 1} and s~_2 = s_2 differ with probability 1/2 whatever the
    // policy, so J_MBE = log(2) / 2 with a zero gradient, and Reg-MBE subtracts
    // rho (H(b_1) + H(b_2)) = 0.3 (log 2 + 0).
    const ExactResult mbe = exact_objective(m, policy, MBE{}, authors);
    const ExactResult reg = exact_objective(m, policy, RegMBE(0.3), authors);
    CHECK(mbe.objective == Approx(0.5 * std::log(2.0)).epsilon(1e-14));
    CHECK(reg.objective == Approx(0.5 * std::log(2.0) - 0.3 * std::log(2.0)).epsilon(1e-14));
    CHECK(mbe.gradient.cwiseAbs().maxCoeff() < 1e-15);
    CHECK(reg.gradient.cwiseAbs().maxCoeff() < 1e-15);
    // The paper's counting of the same model is a different objective (s_1, s_2 counted, one action).
    CHECK(exact_objective_value(m, policy, MSE{}) == Approx(q * std::log(2.0)).epsilon(1e-14));
}

namespace {
/// Exact gradient vs central finite differences of the exact objective, h = 1e-5,
/// tolerance 1e-9 absolute per component (truncation O(h²) and rounding ~ 1e-16 / h give
/// ~1e-11 here).
template <class P, class F>
void check_against_finite_differences(const Model& m, P policy, const F& feedback, StateCounting counting,
                                      const std::string& what) {
    INFO(what << ", counting " << name_of(counting));
    const ExactOptions options{.counting = counting};
    const ExactResult r = exact_objective(m, policy, feedback, options);
    REQUIRE(r.probability == Approx(1.0).epsilon(1e-12));
    REQUIRE(r.leaves > 0);
    REQUIRE(r.leaves <= r.leaf_bound);
    REQUIRE(r.gradient.rows() == policy.parameters().rows());
    REQUIRE(r.gradient.cols() == policy.parameters().cols());
    REQUIRE(r.gradient.norm() > 1e-4);  // a non-trivial gradient (1000 x the tolerance): the comparison can fail
    CHECK(exact_objective_value(m, policy, feedback, options) == r.objective);
    const double h = 1e-5;
    double worst = 0.0;
    Eigen::MatrixXd& theta = policy.parameters();
    for (Eigen::Index c = 0; c < theta.cols(); ++c)
        for (Eigen::Index row = 0; row < theta.rows(); ++row) {
            const double x = theta(row, c);
            theta(row, c) = x + h;
            const double plus = exact_objective_value(m, policy, feedback, options);
            theta(row, c) = x - h;
            const double minus = exact_objective_value(m, policy, feedback, options);
            theta(row, c) = x;
            const double fd = (plus - minus) / (2.0 * h);
            worst = std::max(worst, std::abs(fd - r.gradient(row, c)));
        }
    INFO("largest |finite difference - exact gradient| = " << worst);
    CHECK(worst < 1e-9);
}

template <class F>
void check_all_policies(const F& feedback, const std::string& name, std::uint64_t seed) {
    for (const StateCounting c : {StateCounting::paper, StateCounting::authors}) {
        // T = 3 under both countings (K = 2 actions paper, K = 3 authors). With T = 2 the
        // authors' MBE would count s~_1 ~ b_1 = uniform and s~_2: P(s~_1 != s~_2) = 2/3 whatever
        // the policy, a constant objective with a zero gradient.
        const Model m = ring_model(3);
        check_against_finite_differences(m, randomised(BeliefAveragedPolicy(3, 2), seed), feedback, c,
                                         name + " / BeliefAveraged");
        check_against_finite_differences(m, randomised(BeliefMixturePolicy(3, 2), seed + 1), feedback, c,
                                         name + " / BeliefMixture");
        check_against_finite_differences(m, randomised(ObservationPolicy(2, 2), seed + 2), feedback, c,
                                         name + " / Observation");
        check_against_finite_differences(m, randomised(BelievedStatePolicy(3, 2), seed + 3), feedback, c,
                                         name + " / BelievedState");
    }
}
}  // namespace

TEST_CASE("exact gradient matches finite differences of the exact objective", "[exact]") {
    SECTION("MSE") { check_all_policies(MSE{}, "MSE", 100); }
    SECTION("MOE") { check_all_policies(MOE{}, "MOE", 200); }
    SECTION("MBE") { check_all_policies(MBE{}, "MBE", 300); }
    SECTION("Reg-MBE, rho = 0.3") { check_all_policies(RegMBE(0.3), "Reg-MBE", 400); }
}

TEST_CASE("exact objective agrees with Monte Carlo rollouts of the Sampler", "[exact]") {
    // Each check: |MC mean - exact J| < 4 standard errors (fixed seeds).
    SECTION("MSE, horizon 4, 100000 episodes") {
        const Model m = ring_model(4);
        const BeliefAveragedPolicy policy = randomised(BeliefAveragedPolicy(3, 2), 7);
        const double exact = exact_objective(m, policy, MSE{}).objective;
        const MonteCarlo mc = monte_carlo(m, policy, MSE{}, StateCounting::paper, 100000, 1, BayesFilter<Model>(m));
        INFO("exact " << exact << ", MC " << mc.mean << " +- " << mc.standard_error);
        CHECK(std::abs(mc.mean - exact) < 4.0 * mc.standard_error);
    }
    SECTION("feedbacks, policy classes and countings, horizon 3, 20000 episodes each") {
        const Model m = ring_model(3);
        auto check = [&](const auto& policy, const auto& feedback, StateCounting c, const char* what,
                         std::uint64_t seed) {
            INFO(what << ", counting " << name_of(c));
            const double exact = exact_objective(m, policy, feedback, {.counting = c}).objective;
            const MonteCarlo mc = monte_carlo(m, policy, feedback, c, 20000, seed, BayesFilter<Model>(m));
            INFO("exact " << exact << ", MC " << mc.mean << " +- " << mc.standard_error);
            CHECK(std::abs(mc.mean - exact) < 4.0 * mc.standard_error);
        };
        const BeliefAveragedPolicy ba = randomised(BeliefAveragedPolicy(3, 2), 21);
        // Believed states and belief entropies, under both countings (authors: placeholder s~_{T+1}).
        check(ba, RegMBE(0.3), StateCounting::paper, "Reg-MBE / BA", 4);
        check(ba, RegMBE(0.3), StateCounting::authors, "Reg-MBE / BA", 5);
        // User feedbacks: one on the states, one reading the belief matrix.
        check(ba, PartitionEntropy({0, 0, 1}), StateCounting::paper, "partition entropy (user feedback) / BA", 6);
        check(ba, LastBeliefHit{}, StateCounting::authors, "b_last(s_last) (user feedback using beliefs) / BA", 7);
        // No belief tracking at all (the policy ignores beliefs, MSE does not need them).
        check(randomised(ObservationPolicy(2, 2), 22), MSE{}, StateCounting::authors, "MSE / Observation", 8);
        check(randomised(BeliefMixturePolicy(3, 2), 23), MOE{}, StateCounting::authors, "MOE / BeliefMixture", 9);
        // The policy's own believed-state draw is marginalised by the enumeration.
        check(randomised(BelievedStatePolicy(3, 2), 24), MBE{}, StateCounting::paper, "MBE / BelievedState", 10);
    }
    SECTION("a user feedback equal to MSE gives the same exact value") {
        const Model m = ring_model(3);
        const BeliefAveragedPolicy ba = randomised(BeliefAveragedPolicy(3, 2), 25);
        const ExactResult mse = exact_objective(m, ba, MSE{});
        const ExactResult identity = exact_objective(m, ba, PartitionEntropy({0, 1, 2}));
        CHECK(identity.objective == Approx(mse.objective).epsilon(1e-15));
        CHECK((identity.gradient - mse.gradient).cwiseAbs().maxCoeff() < 1e-15);
    }
}

namespace {
struct EstimatorStats {
    Eigen::MatrixXd sum, sum_sq;
    void add(const Eigen::MatrixXd& g) {
        if (sum.size() == 0) {
            sum = Eigen::MatrixXd::Zero(g.rows(), g.cols());
            sum_sq = Eigen::MatrixXd::Zero(g.rows(), g.cols());
        }
        sum += g;
        sum_sq += g.cwiseProduct(g);
    }
    [[nodiscard]] Eigen::MatrixXd mean(double M) const { return sum / M; }
    [[nodiscard]] Eigen::MatrixXd variance(double M) const {
        const Eigen::MatrixXd mu = mean(M);
        return (sum_sq - M * mu.cwiseProduct(mu)) / (M - 1.0);
    }
};

template <class F>
void check_estimators(const Model& m, const BeliefAveragedPolicy& start, const F& feedback, StateCounting counting,
                      std::uint64_t seed) {
    constexpr std::size_t N = 10;    // batch
    constexpr std::size_t M = 4000;  // batches
    const Eigen::MatrixXd exact = exact_objective(m, start, feedback, {.counting = counting}).gradient;
    BeliefAveragedPolicy policy = start;
    Sampler<Model, BayesFilter<Model>> sampler(m, BayesFilter<Model>(m), RolloutOptions{counting, feedback.needs()});
    std::vector<Eigen::MatrixXd> scores(N, Eigen::MatrixXd::Zero(exact.rows(), exact.cols()));
    std::vector<double> feedbacks(N, 0.0);
    Reinforce reinforce;
    BatchMeanBaseline batch_mean;
    LeaveOneOutBaseline leave_one_out;
    OptimalBaseline optimal;
    EstimatorStats stats[4];
    Eigen::MatrixXd out;
    for (std::size_t b = 0; b < M; ++b) {
        for (std::size_t n = 0; n < N; ++n) {
            DefaultRng g = stream(seed, b, n);
            const Trajectory& t = sampler.run(policy, g, scores[n]);
            feedbacks[n] = feedback(t, g);
        }
        const std::span<const double> f(feedbacks);
        const std::span<const Eigen::MatrixXd> s(scores);
        reinforce.estimate(f, s, out);
        stats[0].add(out);
        batch_mean.estimate(f, s, out);
        stats[1].add(out);
        leave_one_out.estimate(f, s, out);
        stats[2].add(out);
        optimal.estimate(f, s, out);
        stats[3].add(out);
    }
    const char* names[4] = {"Reinforce", "BatchMeanBaseline", "LeaveOneOutBaseline", "OptimalBaseline"};
    const double Md = static_cast<double>(M);
    double trace[4];
    for (int e = 0; e < 4; ++e) {
        // BatchMean shares its baseline with the trajectory it multiplies: E = (N-1)/N ∇J.
        const Eigen::MatrixXd target = e == 1 ? exact * (static_cast<double>(N - 1) / static_cast<double>(N)) : exact;
        const Eigen::MatrixXd mean = stats[e].mean(Md);
        const Eigen::MatrixXd se = (stats[e].variance(Md) / Md).cwiseSqrt();
        trace[e] = stats[e].variance(Md).sum();
        const Eigen::MatrixXd z = ((mean - target).array() / se.array()).matrix();
        INFO(names[e] << ": exact\n" << target << "\nmean of " << M << " batches\n" << mean << "\nz-scores\n" << z);
        CHECK(z.cwiseAbs().maxCoeff() < 5.0);  // every component within 5 standard errors
    }
    INFO("trace of the covariance: Reinforce " << trace[0] << ", batch mean " << trace[1] << ", leave-one-out "
                                               << trace[2] << ", optimal " << trace[3]);
    CHECK(trace[1] < trace[0]);
    CHECK(trace[2] < trace[0]);
    CHECK(trace[3] < trace[0]);
}
}  // namespace

TEST_CASE("gradient estimators are unbiased for the exact gradient, and baselines reduce variance", "[exact]") {
    const Model m = ring_model(3);
    const BeliefAveragedPolicy policy = randomised(BeliefAveragedPolicy(3, 2), 31);
    SECTION("MSE, authors' counting") { check_estimators(m, policy, MSE{}, StateCounting::authors, 41); }
    SECTION("Reg-MBE (rho = 0.3), paper counting") { check_estimators(m, policy, RegMBE(0.3), StateCounting::paper, 42); }
    SECTION("Reg-MBE (rho = 0.3), authors' counting (believed states and entropies at acting time)") {
        check_estimators(m, policy, RegMBE(0.3), StateCounting::authors, 43);
    }
    SECTION("MOE, authors' counting (observations before each action)") {
        check_estimators(m, policy, MOE{}, StateCounting::authors, 44);
    }
}

TEST_CASE("exact objective refuses enumerations above the leaf budget", "[exact]") {
    // ring_model: |supp μ| = 2, 2 first observations, per action 2 actions x 2 successors x 2 observations.
    const Model m = ring_model(5);
    const BeliefAveragedPolicy policy(3, 2);
    const std::size_t mbe_bound = 2 * 2 * 8 * 8 * 8 * 8 * (3 * 3 * 3 * 3 * 3);  // K = 4 actions, S^T believed
    CHECK(exact_leaf_bound(m, MBE{}.needs(), StateCounting::paper) == mbe_bound);
    CHECK(exact_leaf_bound(m, MSE{}.needs(), StateCounting::authors) == 2 * 2 * 8 * 8 * 8 * 8 * 8);
    const ExactOptions small{.counting = StateCounting::paper, .max_leaves = 1000};
    REQUIRE_THROWS_AS(exact_objective(m, policy, MBE{}, small), budget_error);
    REQUIRE_THROWS_WITH(exact_objective(m, policy, MBE{}, small),
                        Catch::Contains(std::to_string(mbe_bound)) && Catch::Contains("max_leaves = 1000"));
    REQUIRE_THROWS_AS(exact_objective_value(m, policy, MBE{}, small), budget_error);
    // The bound (not the actual count) is compared with the limit: a limit equal to the
    // bound passes, one below fails.
    const Model tiny = ring_model(2);
    const std::size_t bound = exact_leaf_bound(tiny, MSE{}.needs(), StateCounting::paper);
    REQUIRE(bound == 2 * 2 * 8);
    CHECK_NOTHROW(exact_objective(tiny, policy, MSE{}, {.counting = StateCounting::paper, .max_leaves = bound}));
    CHECK_THROWS_AS(exact_objective(tiny, policy, MSE{}, {.counting = StateCounting::paper, .max_leaves = bound - 1}),
                    budget_error);
    // A huge horizon saturates instead of overflowing.
    const Model long_ring = ring_model(100);
    CHECK(exact_leaf_bound(long_ring, MBE{}.needs(), StateCounting::paper) == std::numeric_limits<std::size_t>::max());
    CHECK_THROWS_AS(exact_objective(long_ring, policy, MBE{}), budget_error);
}

TEST_CASE("exact objective rejects a policy or updater that does not fit the model", "[exact]") {
    const Model m = ring_model(2);
    CHECK_THROWS_AS(exact_objective(m, BeliefAveragedPolicy(2, 2), MSE{}), config_error);
    CHECK_THROWS_AS(exact_objective(m, ObservationPolicy(3, 2), MSE{}), config_error);
    FrozenBelief wrong{Eigen::VectorXd::Constant(2, 0.5)};
    CHECK_THROWS_AS(exact_objective(m, wrong, BeliefAveragedPolicy(3, 2), MSE{}), config_error);
}

}  // namespace test_exact
