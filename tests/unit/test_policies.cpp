// Tests of policy/: the four policy classes of the paper (Section 4, Appendix D) — belief-
// averaged (logit and mixture forms), Markov over observations (O) and over believed states
// (S̃) — against direct formulas written here, central finite differences, hand-derived
// values and fixed-seed sampling statistics with stated bounds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/policy/policies.hpp"

namespace test_policies {

namespace policy_test {

using maxent::AgentView;
using maxent::DefaultRng;

constexpr std::size_t kStates = 5;
constexpr std::size_t kObservations = 4;
constexpr std::size_t kActions = 3;
constexpr std::size_t kObservation = 2;  // the observation of the test views

// Central finite differences: step h, and the accepted error |fd - analytic| <= tol * max(1, |analytic|).
constexpr double kStep = 1e-6;
constexpr double kFdTolerance = 1e-6;

/// Entries ~ N(0, 1) from the library's generator.
Eigen::MatrixXd random_normal(Eigen::Index rows, Eigen::Index cols, DefaultRng& g) {
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = maxent::standard_normal(g);
    return m;
}

/// A random point of the simplex over kStates states with b(1) = b(3) = 0.
Eigen::VectorXd random_belief(DefaultRng& g) {
    Eigen::VectorXd b(static_cast<Eigen::Index>(kStates));
    for (Eigen::Index s = 0; s < b.size(); ++s) b[s] = 0.1 + maxent::uniform01(g);
    b[1] = 0.0;
    b[3] = 0.0;
    b /= b.sum();
    return b;
}

/// exp(x) / Σ exp(x), written naively (fine for the N(0, 1) parameters of these tests).
Eigen::VectorXd softmax_direct(const Eigen::VectorXd& x) {
    Eigen::VectorXd e(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) e[i] = std::exp(x[i]);
    return e / e.sum();
}

/// Σ_s b(s) softmax(θ_s).
Eigen::VectorXd mixture_direct(const Eigen::MatrixXd& theta, const Eigen::VectorXd& b) {
    Eigen::VectorXd out = Eigen::VectorXd::Zero(theta.cols());
    for (Eigen::Index s = 0; s < theta.rows(); ++s) {
        const Eigen::VectorXd row = theta.row(s).transpose();
        out += b[s] * softmax_direct(row);
    }
    return out;
}

// ---- one description per policy class: construction, direct formula, touched rows -------------
struct BeliefAveragedCase {
    using Policy = maxent::BeliefAveragedPolicy;
    static Policy make() { return Policy(kStates, kActions); }
    static Eigen::Index rows() { return static_cast<Eigen::Index>(kStates); }
    static Eigen::VectorXd direct(const Eigen::MatrixXd& theta, const AgentView& v) {
        const Eigen::VectorXd logits = theta.transpose() * v.belief;
        return softmax_direct(logits);
    }
    /// Rows the score may change: the states with b(s) > 0.
    static bool touched(Eigen::Index r, const AgentView& v) { return v.belief[r] > 0.0; }
};

struct BeliefMixtureCase {
    using Policy = maxent::BeliefMixturePolicy;
    static Policy make() { return Policy(kStates, kActions); }
    static Eigen::Index rows() { return static_cast<Eigen::Index>(kStates); }
    static Eigen::VectorXd direct(const Eigen::MatrixXd& theta, const AgentView& v) {
        return mixture_direct(theta, v.belief);
    }
    static bool touched(Eigen::Index r, const AgentView& v) { return v.belief[r] > 0.0; }
};

struct ObservationCase {
    using Policy = maxent::ObservationPolicy;
    static Policy make() { return Policy(kObservations, kActions); }
    static Eigen::Index rows() { return static_cast<Eigen::Index>(kObservations); }
    static Eigen::VectorXd direct(const Eigen::MatrixXd& theta, const AgentView& v) {
        const Eigen::VectorXd row = theta.row(static_cast<Eigen::Index>(v.observation)).transpose();
        return softmax_direct(row);
    }
    static bool touched(Eigen::Index r, const AgentView& v) { return r == static_cast<Eigen::Index>(v.observation); }
};

struct BelievedStateCase {
    using Policy = maxent::BelievedStatePolicy;
    static Policy make() { return Policy(kStates, kActions); }
    static Eigen::Index rows() { return static_cast<Eigen::Index>(kStates); }
    static Eigen::VectorXd direct(const Eigen::MatrixXd& theta, const AgentView& v) {
        return mixture_direct(theta, v.belief);  // the marginal over s̃ ~ b
    }
    static bool touched(Eigen::Index r, const AgentView& v) { return v.belief[r] > 0.0; }
};

template <class P>
Eigen::VectorXd probs(const P& p, const AgentView& v) {
    Eigen::VectorXd out;
    p.probabilities(v, out);
    return out;
}

/// Central finite differences of log π(a | v) (from probabilities()) in every parameter.
template <class P>
Eigen::MatrixXd fd_log_gradient(const P& policy, const AgentView& v, std::size_t a) {
    P p = policy;
    Eigen::MatrixXd& theta = p.parameters();
    Eigen::MatrixXd fd(theta.rows(), theta.cols());
    const auto ai = static_cast<Eigen::Index>(a);
    for (Eigen::Index i = 0; i < theta.rows(); ++i)
        for (Eigen::Index j = 0; j < theta.cols(); ++j) {
            const double saved = theta(i, j);
            theta(i, j) = saved + kStep;
            const double up = std::log(probs(p, v)[ai]);
            theta(i, j) = saved - kStep;
            const double down = std::log(probs(p, v)[ai]);
            theta(i, j) = saved;
            fd(i, j) = (up - down) / (2.0 * kStep);
        }
    return fd;
}

/// max_ij |x_ij - y_ij| / max(1, |y_ij|).
double max_relative_error(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) {
    double worst = 0.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (Eigen::Index j = 0; j < x.cols(); ++j)
            worst = std::max(worst, std::abs(x(i, j) - y(i, j)) / std::max(1.0, std::abs(y(i, j))));
    return worst;
}

/// 5-sigma band for the count of an outcome of probability p in n draws.
bool within_five_sigma(double count, double p, double n) {
    return std::abs(count - n * p) <= 5.0 * std::sqrt(n * p * (1.0 - p)) + 1e-9;
}

}  // namespace policy_test

using namespace policy_test;

#define MAXENT_ALL_POLICY_CASES BeliefAveragedCase, BeliefMixtureCase, ObservationCase, BelievedStateCase

TEST_CASE("every policy class satisfies DifferentiablePolicy", "[policy]") {
    STATIC_REQUIRE(maxent::DifferentiablePolicy<maxent::BeliefAveragedPolicy>);
    STATIC_REQUIRE(maxent::DifferentiablePolicy<maxent::BeliefMixturePolicy>);
    STATIC_REQUIRE(maxent::DifferentiablePolicy<maxent::ObservationPolicy>);
    STATIC_REQUIRE(maxent::DifferentiablePolicy<maxent::BelievedStatePolicy>);
    STATIC_REQUIRE(maxent::require_differentiable_policy<maxent::BeliefMixturePolicy>());
    STATIC_REQUIRE(maxent::require_differentiable_policy<maxent::ObservationPolicy>());
    STATIC_REQUIRE(maxent::require_differentiable_policy<maxent::BelievedStatePolicy>());

    STATIC_REQUIRE(maxent::policy_needs_belief<maxent::BeliefAveragedPolicy>);
    STATIC_REQUIRE(maxent::policy_needs_belief<maxent::BeliefMixturePolicy>);
    STATIC_REQUIRE(maxent::policy_needs_belief<maxent::BelievedStatePolicy>);
    STATIC_REQUIRE_FALSE(maxent::policy_needs_belief<maxent::ObservationPolicy>);
}

TEMPLATE_TEST_CASE("a policy starts uniform and its probabilities match the direct formula", "[policy]",
                   MAXENT_ALL_POLICY_CASES) {
    DefaultRng g(101);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{0, kObservation, b};
    auto p = TestType::make();

    REQUIRE(p.num_actions() == kActions);
    REQUIRE(p.parameters().rows() == TestType::rows());
    REQUIRE(p.parameters().cols() == static_cast<Eigen::Index>(kActions));
    CHECK(p.parameters().isZero(0.0));
    const Eigen::VectorXd uniform = probs(p, v);
    REQUIRE(uniform.size() == static_cast<Eigen::Index>(kActions));
    for (Eigen::Index a = 0; a < uniform.size(); ++a) CHECK(uniform[a] == Approx(1.0 / 3.0).epsilon(1e-15));

    for (int trial = 0; trial < 5; ++trial) {
        p.parameters() = random_normal(TestType::rows(), static_cast<Eigen::Index>(kActions), g);
        const Eigen::VectorXd got = probs(p, v);
        const Eigen::VectorXd want = TestType::direct(p.parameters(), v);
        REQUIRE(got.size() == want.size());
        CHECK(std::abs(got.sum() - 1.0) <= 1e-14);
        CHECK((got - want).cwiseAbs().maxCoeff() <= 1e-14);
        CHECK(got.minCoeff() > 0.0);
    }
}

TEST_CASE("the two belief-averaged forms differ, both as derived by hand", "[policy]") {
    // S = A = 2, b = (1/2, 1/2), θ_0 = (0, log 3), θ_1 = (0, 0):
    //   mixture: π_0 = (1/4, 3/4), π_1 = (1/2, 1/2), π = (3/8, 5/8); for a = 0 the posterior
    //            weights are w = (1/3, 2/3), so ∇ log π(0 | b) = [[1/4, -1/4], [1/3, -1/3]].
    //   logits:  θᵀb = (0, log(3)/2), π = (1, √3) / (1 + √3);
    //            ∇ log π(0 | b) = b (e_0 - π)ᵀ = [[q, -q], [q, -q]] with q = (√3 / (1 + √3)) / 2.
    Eigen::MatrixXd theta(2, 2);
    theta << 0.0, std::log(3.0), 0.0, 0.0;
    Eigen::VectorXd b(2);
    b << 0.5, 0.5;
    const AgentView v{0, 0, b};

    maxent::BeliefMixturePolicy mix(2, 2);
    mix.parameters() = theta;
    const Eigen::VectorXd pm = probs(mix, v);
    CHECK(pm[0] == Approx(3.0 / 8.0).epsilon(1e-14));
    CHECK(pm[1] == Approx(5.0 / 8.0).epsilon(1e-14));
    Eigen::MatrixXd gm = Eigen::MatrixXd::Zero(2, 2);
    mix.log_gradient(v, 0, gm);
    Eigen::MatrixXd want_m(2, 2);
    want_m << 0.25, -0.25, 1.0 / 3.0, -1.0 / 3.0;
    CHECK((gm - want_m).cwiseAbs().maxCoeff() <= 1e-14);

    maxent::BeliefAveragedPolicy ba(2, 2);
    ba.parameters() = theta;
    const Eigen::VectorXd pb = probs(ba, v);
    const double r3 = std::sqrt(3.0);
    CHECK(pb[0] == Approx(1.0 / (1.0 + r3)).epsilon(1e-14));
    CHECK(pb[1] == Approx(r3 / (1.0 + r3)).epsilon(1e-14));
    Eigen::MatrixXd gb = Eigen::MatrixXd::Zero(2, 2);
    ba.log_gradient(v, 0, gb);
    const double q = 0.5 * r3 / (1.0 + r3);
    Eigen::MatrixXd want_b(2, 2);
    want_b << q, -q, q, -q;
    CHECK((gb - want_b).cwiseAbs().maxCoeff() <= 1e-14);

    // The believed-state policy's marginal is the mixture.
    maxent::BelievedStatePolicy bs(2, 2);
    bs.parameters() = theta;
    CHECK((probs(bs, v) - pm).cwiseAbs().maxCoeff() == 0.0);
    Eigen::MatrixXd gs = Eigen::MatrixXd::Zero(2, 2);
    bs.log_gradient(v, 0, gs);
    CHECK((gs - want_m).cwiseAbs().maxCoeff() <= 1e-14);
}

TEMPLATE_TEST_CASE("log_gradient matches central finite differences of log π(a | v)", "[policy]",
                   MAXENT_ALL_POLICY_CASES) {
    // Every parameter, every action; h = 1e-6, |fd - analytic| <= 1e-6 * max(1, |analytic|).
    DefaultRng g(202);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{3, kObservation, b};
    auto p = TestType::make();
    for (int trial = 0; trial < 3; ++trial) {
        p.parameters() = random_normal(TestType::rows(), static_cast<Eigen::Index>(kActions), g);
        for (std::size_t a = 0; a < kActions; ++a) {
            Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(TestType::rows(), static_cast<Eigen::Index>(kActions));
            p.log_gradient(v, a, grad);
            const Eigen::MatrixXd fd = fd_log_gradient(p, v, a);
            INFO("trial " << trial << ", action " << a << "\nanalytic\n" << grad << "\nfinite differences\n" << fd);
            CHECK(max_relative_error(fd, grad) <= kFdTolerance);
            CHECK(grad.cwiseAbs().maxCoeff() > 1e-3);  // not trivially zero
            // Rows the policy does not read have zero gradient (also in the finite differences).
            for (Eigen::Index r = 0; r < grad.rows(); ++r)
                if (!TestType::touched(r, v)) CHECK(grad.row(r).isZero(0.0));
            // log_gradient accumulates.
            Eigen::MatrixXd twice = grad;
            p.log_gradient(v, a, twice);
            CHECK((twice - 2.0 * grad).cwiseAbs().maxCoeff() <= 1e-14);
        }
    }
}

TEMPLATE_TEST_CASE("sample()'s score is the exact log_gradient of the drawn action and accumulates", "[policy]",
                   BeliefAveragedCase, BeliefMixtureCase, ObservationCase) {
    DefaultRng g(303);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{1, kObservation, b};
    auto p = TestType::make();
    p.parameters() = random_normal(TestType::rows(), static_cast<Eigen::Index>(kActions), g);
    const Eigen::MatrixXd start = random_normal(TestType::rows(), static_cast<Eigen::Index>(kActions), g);
    Eigen::MatrixXd score = start;
    Eigen::MatrixXd sum_of_gradients = Eigen::MatrixXd::Zero(start.rows(), start.cols());
    std::set<std::size_t> drawn;
    for (int k = 0; k < 50; ++k) {
        const Eigen::MatrixXd before = score;
        const std::size_t a = p.sample(v, g, score);
        REQUIRE(a < kActions);
        drawn.insert(a);
        Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(start.rows(), start.cols());
        p.log_gradient(v, a, grad);
        sum_of_gradients += grad;
        CHECK(((score - before) - grad).cwiseAbs().maxCoeff() <= 1e-12);
        for (Eigen::Index r = 0; r < score.rows(); ++r) {
            if (TestType::touched(r, v))
                CHECK(score.row(r) != before.row(r));
            else
                CHECK(score.row(r) == before.row(r));  // bit-for-bit untouched
        }
    }
    CHECK(drawn.size() == kActions);
    CHECK(((score - start) - sum_of_gradients).cwiseAbs().maxCoeff() <= 1e-11);
}

TEST_CASE("BelievedStatePolicy: sample() adds the conditional score of the replayed believed state", "[policy]") {
    DefaultRng g(404);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{1, kObservation, b};
    maxent::BelievedStatePolicy p(kStates, kActions);
    p.parameters() = random_normal(5, 3, g);
    const Eigen::MatrixXd& theta = p.parameters();
    const Eigen::MatrixXd start = random_normal(5, 3, g);
    Eigen::MatrixXd score = start;
    std::set<Eigen::Index> believed_seen;
    for (int k = 0; k < 50; ++k) {
        DefaultRng replay = g;  // the same generator state as the call below
        const Eigen::MatrixXd before = score;
        const std::size_t a = p.sample(v, g, score);
        REQUIRE(a < kActions);

        const auto believed = static_cast<Eigen::Index>(maxent::sample_categorical(b, replay));
        REQUIRE(b[believed] > 0.0);
        believed_seen.insert(believed);
        // The action is the next draw, from softmax(θ[s̃]).
        Eigen::VectorXd row_probs;
        maxent::softmax_into(theta.row(believed).transpose(), row_probs);
        CHECK(maxent::sample_categorical(row_probs, replay) == a);
        CHECK(replay == g);  // the policy used exactly these two draws

        // Row s̃ gained ∂/∂θ[s̃, j] log softmax(θ[s̃])(a), by central differences.
        Eigen::VectorXd row = theta.row(believed).transpose();
        for (Eigen::Index j = 0; j < row.size(); ++j) {
            const double saved = row[j];
            row[j] = saved + kStep;
            const double up = std::log(softmax_direct(row)[static_cast<Eigen::Index>(a)]);
            row[j] = saved - kStep;
            const double down = std::log(softmax_direct(row)[static_cast<Eigen::Index>(a)]);
            row[j] = saved;
            const double fd = (up - down) / (2.0 * kStep);
            const double added = score(believed, j) - before(believed, j);
            CHECK(std::abs(added - fd) <= kFdTolerance * std::max(1.0, std::abs(fd)));
        }
        for (Eigen::Index r = 0; r < score.rows(); ++r)
            if (r != believed) CHECK(score.row(r) == before.row(r));  // bit-for-bit untouched
    }
    CHECK(believed_seen.size() == 3);  // the three states with b(s) > 0
}

TEST_CASE("BelievedStatePolicy: the conditional score averages to the marginal one", "[policy]") {
    // E[score · 1{a = a0}] = π(a0 | b) ∇ log π(a0 | b) (the marginal score), since
    // E[e_s̃ (e_a - π_s̃)ᵀ | a] is the mixture's gradient. Bound per entry: 5 empirical standard
    // errors of the mean over n = 10^5 draws (plus 1e-12 for entries that are always 0).
    DefaultRng g(505);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{0, kObservation, b};
    maxent::BelievedStatePolicy p(kStates, kActions);
    p.parameters() = 2.0 * random_normal(5, 3, g);
    const Eigen::VectorXd pi = probs(p, v);
    constexpr int n = 100000;
    std::vector<Eigen::MatrixXd> sums(kActions, Eigen::MatrixXd::Zero(5, 3));
    std::vector<Eigen::MatrixXd> squares(kActions, Eigen::MatrixXd::Zero(5, 3));
    Eigen::MatrixXd score(5, 3);
    for (int k = 0; k < n; ++k) {
        score.setZero();
        const std::size_t a = p.sample(v, g, score);
        sums[a] += score;
        squares[a] += score.cwiseAbs2();
    }
    for (std::size_t a = 0; a < kActions; ++a) {
        Eigen::MatrixXd marginal = Eigen::MatrixXd::Zero(5, 3);
        p.log_gradient(v, a, marginal);
        const Eigen::MatrixXd expected = pi[static_cast<Eigen::Index>(a)] * marginal;
        const Eigen::MatrixXd mean = sums[a] / static_cast<double>(n);
        const Eigen::MatrixXd variance = squares[a] / static_cast<double>(n) - mean.cwiseAbs2();
        const Eigen::MatrixXd standard_error = (variance / static_cast<double>(n)).cwiseMax(0.0).cwiseSqrt();
        INFO("action " << a << "\nmean\n" << mean << "\nexpected\n" << expected << "\nstandard error\n"
                       << standard_error);
        CHECK(((mean - expected).cwiseAbs().array() <= 5.0 * standard_error.array() + 1e-12).all());
        // Not vacuous: some entry of the expectation is more than 20 standard errors from 0.
        CHECK((expected.cwiseAbs().array() > 20.0 * standard_error.array()).any());
    }
}

TEMPLATE_TEST_CASE("sampled action frequencies match probabilities()", "[policy]", MAXENT_ALL_POLICY_CASES) {
    // n = 10^5 draws; every action's count within 5 standard deviations of n π(a | v)
    // (for S̃ this checks the marginal over s̃ ~ b).
    DefaultRng g(606);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{2, kObservation, b};
    auto p = TestType::make();
    p.parameters() = random_normal(TestType::rows(), static_cast<Eigen::Index>(kActions), g);
    const Eigen::VectorXd pi = probs(p, v);
    constexpr int n = 100000;
    std::vector<double> counts(kActions, 0.0);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(TestType::rows(), static_cast<Eigen::Index>(kActions));
    for (int k = 0; k < n; ++k) counts[p.sample(v, g, score)] += 1.0;
    for (std::size_t a = 0; a < kActions; ++a) {
        const double pa = pi[static_cast<Eigen::Index>(a)];
        INFO("action " << a << ": count " << counts[a] << ", expected " << n * pa);
        CHECK(within_five_sigma(counts[a], pa, n));
    }
}

TEMPLATE_TEST_CASE("logits of magnitude 1000 give finite probabilities and gradients", "[policy]",
                   MAXENT_ALL_POLICY_CASES) {
    DefaultRng g(707);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{0, kObservation, b};
    auto p = TestType::make();
    Eigen::MatrixXd& theta = p.parameters();
    for (Eigen::Index r = 0; r < theta.rows(); ++r)
        for (Eigen::Index c = 0; c < theta.cols(); ++c) theta(r, c) = maxent::uniform01(g) < 0.5 ? -1000.0 : 1000.0;
    theta(0, 0) = 1000.0;  // at least one maximal logit per row is 1000, one is -1000
    theta(0, 1) = -1000.0;
    theta(2, 1) = -1000.0;
    theta(2, 2) = 1000.0;

    const Eigen::VectorXd pi = probs(p, v);
    CHECK(pi.allFinite());
    CHECK(pi.minCoeff() >= 0.0);
    CHECK(std::abs(pi.sum() - 1.0) <= 1e-12);
    for (std::size_t a = 0; a < kActions; ++a) {
        Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
        p.log_gradient(v, a, grad);  // also for actions whose probability underflows to 0
        INFO("action " << a << ", probability " << pi[static_cast<Eigen::Index>(a)] << "\n" << grad);
        CHECK(grad.allFinite());
    }
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
    for (int k = 0; k < 100; ++k) {
        const std::size_t a = p.sample(v, g, score);
        CHECK(pi[static_cast<Eigen::Index>(a)] > 0.0);
    }
    CHECK(score.allFinite());
}

TEST_CASE("BeliefMixturePolicy: the gradient of an action of underflowing probability is the posterior's", "[policy]") {
    // θ_0 = (0, -2000), θ_1 = (0, -1000), b = (1/2, 1/2): π(1 | b) underflows to 0, but
    // log π(1 | b) ≈ log(1/2) - 1000 + log(1 + e^{-1000}), whose gradient puts all the weight on
    // state 1: ∇_{θ_1} = e_1 - π_1 = (-1, 1) (to rounding) and ∇_{θ_0} = 0.
    maxent::BeliefMixturePolicy p(2, 2);
    p.parameters() << 0.0, -2000.0, 0.0, -1000.0;
    Eigen::VectorXd b(2);
    b << 0.5, 0.5;
    const AgentView v{0, 0, b};
    CHECK(probs(p, v)[1] == 0.0);
    Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(2, 2);
    p.log_gradient(v, 1, grad);
    Eigen::MatrixXd want(2, 2);
    want << 0.0, 0.0, -1.0, 1.0;
    CHECK((grad - want).cwiseAbs().maxCoeff() <= 1e-12);
}

// ---- errors ------------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("policies reject bad arguments with messages naming the values", "[policy]",
                   MAXENT_ALL_POLICY_CASES) {
    using Catch::Contains;
    using maxent::config_error;
    DefaultRng g(808);
    const Eigen::VectorXd b = random_belief(g);
    const AgentView v{0, kObservation, b};
    auto p = TestType::make();
    p.parameters() = random_normal(TestType::rows(), static_cast<Eigen::Index>(kActions), g);
    const Eigen::Index rows = TestType::rows();
    Eigen::VectorXd out;

    SECTION("an action out of range in log_gradient") {
        Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(rows, 3);
        CHECK_THROWS_AS(p.log_gradient(v, 3, grad), config_error);
        CHECK_THROWS_WITH(p.log_gradient(v, 3, grad), Contains("action 3") && Contains("[0, 3)"));
        CHECK(grad.isZero(0.0));
    }
    SECTION("a score buffer of the wrong shape") {
        Eigen::MatrixXd wrong = Eigen::MatrixXd::Zero(rows - 1, 3);
        const std::string expected = std::to_string(rows) + " x 3";
        const std::string got = std::to_string(rows - 1) + " x 3";
        CHECK_THROWS_AS(p.sample(v, g, wrong), config_error);
        CHECK_THROWS_WITH(p.sample(v, g, wrong), Contains(got) && Contains(expected));
        CHECK_THROWS_WITH(p.log_gradient(v, 0, wrong), Contains(got) && Contains(expected));
        Eigen::MatrixXd wide = Eigen::MatrixXd::Zero(rows, 4);
        CHECK_THROWS_WITH(p.sample(v, g, wide), Contains(std::to_string(rows) + " x 4"));
        CHECK_THROWS_AS(p.log_gradient(v, 0, wide), config_error);
    }
    SECTION("non-finite parameters in a row the policy reads") {
        const Eigen::Index r = rows == 4 ? 2 : 0;  // row o for O, a state with b > 0 otherwise
        Eigen::MatrixXd score = Eigen::MatrixXd::Zero(rows, 3);
        p.parameters()(r, 1) = std::numeric_limits<double>::quiet_NaN();
        CHECK_THROWS_AS(p.probabilities(v, out), config_error);
        CHECK_THROWS_WITH(p.probabilities(v, out), Contains("softmax") && Contains("nan"));
        CHECK_THROWS_AS(p.log_gradient(v, 0, score), config_error);
        p.parameters()(r, 1) = std::numeric_limits<double>::infinity();
        CHECK_THROWS_WITH(p.probabilities(v, out), Contains("inf"));
        if constexpr (std::is_same_v<TestType, BelievedStateCase>) {
            // sample() only reads the row of the drawn s̃: make every row with b > 0 bad.
            p.parameters().row(2).setConstant(std::numeric_limits<double>::infinity());
            p.parameters().row(4).setConstant(std::numeric_limits<double>::infinity());
        }
        CHECK_THROWS_AS(p.sample(v, g, score), config_error);
        CHECK(score.isZero(0.0));
    }
    SECTION("check_dimensions against a mismatching model names both sizes") {
        if constexpr (std::is_same_v<TestType, ObservationCase>) {
            CHECK_NOTHROW(p.check_dimensions({99, 3, 4}));  // states are not its business
            CHECK_THROWS_AS(p.check_dimensions({5, 3, 7}), config_error);
            CHECK_THROWS_WITH(p.check_dimensions({5, 3, 7}), Contains("4 x 3") && Contains("7 observations"));
            CHECK_THROWS_WITH(p.check_dimensions({5, 2, 4}), Contains("4 x 3") && Contains("2 actions"));
        } else {
            CHECK_NOTHROW(p.check_dimensions({5, 3, 99}));  // observations are not its business
            CHECK_THROWS_AS(p.check_dimensions({6, 3, 4}), config_error);
            CHECK_THROWS_WITH(p.check_dimensions({6, 3, 4}), Contains("5 x 3") && Contains("6 states"));
            CHECK_THROWS_WITH(p.check_dimensions({5, 4, 4}), Contains("5 x 3") && Contains("4 actions"));
        }
    }
    SECTION("zero states (or observations) or zero actions") {
        if constexpr (std::is_same_v<TestType, ObservationCase>) {
            CHECK_THROWS_AS(maxent::ObservationPolicy(0, 3), config_error);
            CHECK_THROWS_WITH(maxent::ObservationPolicy(4, 0), Contains("4 x 0"));
        } else {
            using P = typename TestType::Policy;
            CHECK_THROWS_AS(P(0, 3), config_error);
            CHECK_THROWS_WITH(P(0, 3), Contains("0 x 3"));
            CHECK_THROWS_WITH(P(5, 0), Contains("5 x 0"));
        }
    }
}

TEMPLATE_TEST_CASE("belief policies reject a belief of the wrong size", "[policy]", BeliefAveragedCase,
                   BeliefMixtureCase, BelievedStateCase) {
    using Catch::Contains;
    auto p = TestType::make();
    const Eigen::VectorXd b = Eigen::VectorXd::Constant(6, 1.0 / 6.0);
    const AgentView v{0, 0, b};
    Eigen::VectorXd out;
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(5, 3);
    DefaultRng g(1);
    CHECK_THROWS_AS(p.probabilities(v, out), maxent::config_error);
    CHECK_THROWS_WITH(p.probabilities(v, out), Contains("belief has 6 entries") && Contains("5 rows"));
    CHECK_THROWS_WITH(p.sample(v, g, score), Contains("belief has 6 entries") && Contains("5 rows"));
    CHECK_THROWS_WITH(p.log_gradient(v, 0, score), Contains("belief has 6 entries") && Contains("5 rows"));
    CHECK(score.isZero(0.0));
}

TEMPLATE_TEST_CASE("mixture policies reject beliefs off the simplex's support", "[policy]", BeliefMixtureCase,
                   BelievedStateCase) {
    using Catch::Contains;
    auto p = TestType::make();
    Eigen::VectorXd out;
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(5, 3);
    DefaultRng g(2);
    Eigen::VectorXd b(5);
    b << 0.5, -0.25, 0.75, 0.0, 0.0;
    const AgentView v{0, 0, b};
    CHECK_THROWS_AS(p.probabilities(v, out), maxent::config_error);
    CHECK_THROWS_WITH(p.sample(v, g, score), Contains("belief entry 1") && Contains("-0.25"));
    b[1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(p.log_gradient(v, 0, score), Contains("belief entry 1") && Contains("nan"));
    b.setZero();
    CHECK_THROWS_WITH(p.probabilities(v, out), Contains("no positive entry"));
    CHECK_THROWS_AS(p.sample(v, g, score), maxent::config_error);
    CHECK(score.isZero(0.0));
}

TEST_CASE("ObservationPolicy reads only the observation", "[policy]") {
    using Catch::Contains;
    DefaultRng g(909);
    maxent::ObservationPolicy p(kObservations, kActions);
    p.parameters() = random_normal(4, 3, g);
    const Eigen::VectorXd any_belief = Eigen::VectorXd::Zero(1);  // ignored: not even its size is checked
    const AgentView v{0, 2, any_belief};
    Eigen::VectorXd out;
    CHECK_NOTHROW(p.probabilities(v, out));
    const Eigen::VectorXd row = p.parameters().row(2).transpose();
    CHECK((out - softmax_direct(row)).cwiseAbs().maxCoeff() <= 1e-14);

    const AgentView bad{0, 4, any_belief};
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(4, 3);
    CHECK_THROWS_AS(p.probabilities(bad, out), maxent::config_error);
    CHECK_THROWS_WITH(p.probabilities(bad, out), Contains("observation 4") && Contains("[0, 4)"));
    CHECK_THROWS_WITH(p.sample(bad, g, score), Contains("observation 4"));
    CHECK_THROWS_WITH(p.log_gradient(bad, 0, score), Contains("observation 4"));
    CHECK(score.isZero(0.0));
}

}  // namespace test_policies
#undef MAXENT_ALL_POLICY_CASES
