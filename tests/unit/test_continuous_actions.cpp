// Tests of continuous (typed) actions: the world-side contract (model/concepts.hpp,
// core/actions.hpp), the rollout and the particle filter carrying the world's action type,
// the squashed Gaussian policy (policy/gaussian.hpp) and the uniform box policy, each
// against an independent value:
//   * the Gaussian score against central finite differences of log π (belief features,
//     observation features and a state-dependent σ together), and sample()'s score against
//     log_gradient at the drawn action;
//   * the squashed density integrates to 1 over its box (midpoint rule, 1-D and 2-D);
//   * a one-step world whose objective is known in closed form (derivation at Reach below):
//     the rollout's Monte Carlo objective agrees with it, training approaches its optimum,
//     and estimator_quality against the closed-form gradient finds REINFORCE and the per-step
//     baseline unbiased (a sign-flipped reference is caught);
//   * the particle filter predicts with the typed action (its belief after a deterministic
//     move is the indicator of the action's bin); bad boxes and out-of-box actions are errors.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/core/actions.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/draws.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimator_quality.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/gaussian.hpp"
#include "maxent/policy/observation_features.hpp"
#include "maxent/policy/uniform_box.hpp"

namespace test_continuous_actions {

// Reach: one step (horizon T = 2, paper counting: s_1, s_2 counted, one action). s_1 = 0 (bin
// 0); the action a ∈ [-1, 1] moves the robot to s_2 = a; bin(s) = 1 if s > 1/2, else 0. The
// observation is the position with N(0, 0.1²) noise. MSE's feedback H(d(τ_S)) of the two
// counted states is log 2 when bin(s_2) = 1 and 0 otherwise, so
//     J(θ) = log 2 · P(a > 1/2).
// Under the state-independent squashed Gaussian (bias only: μ = θ_00, log σ = θ_01),
// a = tanh(u), u ~ N(μ, σ²), and tanh is increasing, so with κ = atanh(1/2) and z = (μ - κ)/σ:
//     J(θ) = log 2 · Φ(z),
//     ∂J/∂μ = log 2 · φ(z) / σ,   ∂J/∂log σ = log 2 · φ(z) · ∂z/∂log σ = -log 2 · φ(z) · z.
// The supremum is log 2, approached by any policy putting all its mass above 1/2 (μ → ∞ or
// σ → 0 with μ > κ): the optimal policy is "always a > 1/2".
struct Reach {
    using state_type = double;
    using action_type = double;
    using observation_type = double;
    [[nodiscard]] maxent::ActionBox action_box() const { return maxent::ActionBox::uniform(1, -1.0, 1.0); }
    [[nodiscard]] std::size_t horizon() const { return 2; }
    template <class G>
    double sample_initial_state(G&) const {
        return 0.0;
    }
    template <class G>
    double sample_initial_observation(double s, G& g) const {
        return s + 0.1 * maxent::standard_normal(g);
    }
    template <class G>
    double sample_next_state(double, const double& a, G&) const {
        return a;
    }
    template <class G>
    double sample_observation(const double&, double s, G& g) const {
        return s + 0.1 * maxent::standard_normal(g);
    }
    [[nodiscard]] double observation_likelihood(const double&, double o, double s) const {
        return std::exp(-0.5 * (o - s) * (o - s) / 0.01);
    }
    [[nodiscard]] std::size_t num_state_bins() const { return 2; }
    [[nodiscard]] std::size_t state_bin(double s) const { return s > 0.5 ? 1 : 0; }
};

static_assert(maxent::GenerativePomdp<Reach> && maxent::ObservationLikelihood<Reach> && maxent::Environment<Reach>);
static_assert(maxent::continuous_actions<Reach> && std::same_as<maxent::world_action_t<Reach>, double>);

// A planar robot steered by a velocity vector (Eigen): only the contract is checked here.
struct Planar {
    using state_type = Eigen::Vector2d;
    using action_type = Eigen::Vector2d;
    [[nodiscard]] maxent::ActionBox action_box() const { return maxent::ActionBox::uniform(2, -1.0, 1.0); }
    [[nodiscard]] std::size_t num_observations() const { return 1; }
    [[nodiscard]] std::size_t horizon() const { return 3; }
    template <class G>
    Eigen::Vector2d sample_initial_state(G&) const {
        return Eigen::Vector2d::Zero();
    }
    template <class G>
    std::size_t sample_initial_observation(const Eigen::Vector2d&, G&) const {
        return 0;
    }
    template <class G>
    Eigen::Vector2d sample_next_state(const Eigen::Vector2d& s, const Eigen::Vector2d& a, G&) const {
        return s + a;
    }
    template <class G>
    std::size_t sample_observation(const Eigen::Vector2d&, const Eigen::Vector2d&, G&) const {
        return 0;
    }
};
static_assert(maxent::GenerativePomdp<Planar> && maxent::continuous_actions<Planar>);
static_assert(std::same_as<maxent::world_action_t<Planar>, Eigen::Vector2d>);

/// An agent without a belief (one latent state) for a world with real observations and actions.
struct Blind {
    using action_type = double;
    using observation_type = double;
    [[nodiscard]] std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <class G>
    void update(Eigen::VectorXd&, const double&, const double&, G&) {}
};

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }
double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi); }

/// J(θ) and ∇J(θ) of Reach under the bias-only Gaussian (see Reach).
maxent::ExactResult reach_exact(const Eigen::MatrixXd& theta) {
    const double kappa = std::atanh(0.5), sigma = std::exp(theta(0, 1));
    const double z = (theta(0, 0) - kappa) / sigma;
    maxent::ExactResult r;
    r.objective = std::log(2.0) * normal_cdf(z);
    r.gradient = Eigen::MatrixXd(1, 2);
    r.gradient(0, 0) = std::log(2.0) * normal_pdf(z) / sigma;
    r.gradient(0, 1) = -std::log(2.0) * normal_pdf(z) * z;
    return r;
}

maxent::AgentView view_of(const Eigen::VectorXd& belief, std::span<const double> point) {
    return maxent::AgentView{0, 0, belief, {}, false, nullptr, point};
}

/// Each entry of `score` against the central finite difference (h = 1e-5) of log π(a | v) in
/// that parameter.
template <class Policy>
void check_score_by_differences(Policy& policy, const maxent::AgentView& v, std::span<const double> a,
                                const Eigen::MatrixXd& score) {
    Eigen::MatrixXd& theta = policy.parameters();
    const double h = 1e-5;
    for (Eigen::Index i = 0; i < theta.size(); ++i) {
        const double keep = theta(i);
        theta(i) = keep + h;
        const double up = policy.log_density(v, a);
        theta(i) = keep - h;
        const double down = policy.log_density(v, a);
        theta(i) = keep;
        INFO("parameter " << i);
        CHECK(score(i) == Approx((up - down) / (2.0 * h)).margin(1e-6).epsilon(1e-6));
    }
}

TEST_CASE("continuous actions: the Gaussian score is the finite-difference gradient of log pi", "[continuous]") {
    const maxent::ActionBox box({-2.0, 0.0}, {2.0, 1.0});
    maxent::GaussianPolicy<maxent::RawObservationFeatures> policy(
        box, 3, maxent::RawObservationFeatures(2), {.initial_log_std = -0.3, .state_dependent_std = true});
    Eigen::MatrixXd& theta = policy.parameters();
    REQUIRE(theta.rows() == 1 + 3 + 3);
    REQUIRE(theta.cols() == 4);
    maxent::DefaultRng g = maxent::stream(7);
    for (Eigen::Index i = 0; i < theta.size(); ++i) theta(i) += 0.3 * maxent::standard_normal(g);
    Eigen::VectorXd belief(3);
    belief << 0.2, 0.5, 0.3;
    const std::array<double, 2> point{0.4, -1.1};
    const maxent::AgentView v = view_of(belief, point);

    for (int trial = 0; trial < 5; ++trial) {
        std::array<double, 2> a{};
        Eigen::MatrixXd score = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
        policy.sample(v, g, score, std::span<double>(a));
        REQUIRE(box.contains(a));
        Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
        policy.log_gradient(v, a, grad);
        CHECK((grad - score).cwiseAbs().maxCoeff() < 1e-8 * (1.0 + score.cwiseAbs().maxCoeff()));
        INFO("trial " << trial);
        check_score_by_differences(policy, v, std::span<const double>(a), score);
    }
}

// Odd numbers of score columns (d = 1 or 3 with a state-independent sigma) and feature blocks
// of at least 4 rows take the policy's unpaired column path; a lost update there (the score of
// the mean's weights left at 0) shows as a mismatch with the finite differences.
TEST_CASE("continuous actions: the Gaussian score with an odd number of columns", "[continuous]") {
    maxent::DefaultRng g = maxent::stream(11);
    Eigen::VectorXd belief(9);
    belief << 0.05, 0.1, 0.2, 0.05, 0.15, 0.1, 0.05, 0.2, 0.1;
    const std::array<double, 5> point{0.4, -1.1, 0.3, 2.0, -0.5};
    const maxent::AgentView v = view_of(belief, point);
    for (const std::size_t d : {std::size_t{1}, std::size_t{3}}) {
        const maxent::ActionBox box(std::vector<double>(d, -2.0), std::vector<double>(d, 2.0));
        maxent::GaussianPolicy<maxent::RawObservationFeatures> policy(box, 9, maxent::RawObservationFeatures(5),
                                                                      {.initial_log_std = -0.2});
        Eigen::MatrixXd& theta = policy.parameters();
        REQUIRE(theta.cols() == static_cast<Eigen::Index>(2 * d));
        for (Eigen::Index i = 0; i < theta.size(); ++i) theta(i) += 0.2 * maxent::standard_normal(g);
        std::vector<double> a(d);
        Eigen::MatrixXd score = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
        policy.sample(v, g, score, std::span<double>(a));
        INFO("d = " << d);
        check_score_by_differences(policy, v, std::span<const double>(a), score);
    }
}

// With a state-independent σ, sample() computes μ and adds the score in one pass over x (the
// normals drawn first); with a linear σ, one pass for μ and log σ and one for the score. A
// linear σ whose feature weights are zero has log σ = S_0j + 0 = S_0j exactly, so both policies
// draw the same normals and must give the same actions and the same score in the mean's
// columns and in row 0 of log σ's, to the last bit (d = 2: paired columns; d = 3: an unpaired
// one; feature blocks of 64 + 2 and of 7 + 5 rows, with tails).
TEST_CASE("continuous actions: the one-pass Gaussian step equals the two-pass one bit for bit", "[continuous]") {
    for (const std::size_t d : {std::size_t{2}, std::size_t{3}}) {
        const std::size_t fb = d == 2 ? 64 : 7;
        const std::size_t fo = d == 2 ? 2 : 5;
        std::vector<double> lo(d), hi(d);
        for (std::size_t j = 0; j < d; ++j) {
            lo[j] = -1.0 - static_cast<double>(j);
            hi[j] = 1.0 + 0.5 * static_cast<double>(j);
        }
        const maxent::ActionBox box(lo, hi);
        using Policy = maxent::GaussianPolicy<maxent::RawObservationFeatures>;
        Policy fixed(box, fb, maxent::RawObservationFeatures(fo), {.initial_log_std = -0.4});
        Policy linear(box, fb, maxent::RawObservationFeatures(fo), {.initial_log_std = -0.4, .state_dependent_std = true});
        maxent::DefaultRng g0 = maxent::stream(31);
        const auto D = static_cast<Eigen::Index>(d);
        for (Eigen::Index i = 0; i < fixed.parameters().size(); ++i) {
            const double w = 0.1 * maxent::standard_normal(g0);
            const Eigen::Index col = i / fixed.parameters().rows(), row = i % fixed.parameters().rows();
            fixed.parameters()(i) = w;
            linear.parameters()(i) = col < D || row == 0 ? w : 0.0;
        }
        Eigen::VectorXd phi(static_cast<Eigen::Index>(fb));
        std::vector<double> point(fo);
        Eigen::MatrixXd score_fixed = Eigen::MatrixXd::Zero(fixed.parameters().rows(), fixed.parameters().cols());
        Eigen::MatrixXd score_linear = score_fixed;
        std::vector<double> a_fixed(d), a_linear(d);
        maxent::DefaultRng g_fixed = maxent::stream(32), g_linear = g_fixed;
        for (int step = 0; step < 20; ++step) {
            for (Eigen::Index i = 0; i < phi.size(); ++i) phi[i] = maxent::uniform01(g0) - 0.25;
            for (double& p : point) p = maxent::standard_normal(g0);
            const maxent::AgentView v = view_of(phi, point);
            fixed.sample(v, g_fixed, score_fixed, std::span<double>(a_fixed));
            linear.sample(v, g_linear, score_linear, std::span<double>(a_linear));
            INFO("d = " << d << ", step " << step);
            REQUIRE(a_fixed == a_linear);
        }
        CHECK(g_fixed == g_linear);
        CHECK(score_fixed.leftCols(D) == score_linear.leftCols(D));
        CHECK(score_fixed.row(0) == score_linear.row(0));
        CHECK(score_fixed.rightCols(D).bottomRows(score_fixed.rows() - 1).isZero(0.0));
    }
}

TEST_CASE("continuous actions: the squashed density integrates to 1 over its box", "[continuous]") {
    const Eigen::VectorXd none(0);
    SECTION("1-D") {
        maxent::GaussianPolicy policy(maxent::ActionBox({-2.0}, {3.0}), 0, {.initial_log_std = -0.2});
        policy.parameters()(0, 0) = 0.3;
        const maxent::AgentView v = view_of(none, {});
        const int cells = 20000;
        const double width = 5.0 / cells;
        double integral = 0.0;
        for (int i = 0; i < cells; ++i) {
            const std::array<double, 1> a{-2.0 + (i + 0.5) * width};
            integral += std::exp(policy.log_density(v, a)) * width;
        }
        CHECK(integral == Approx(1.0).margin(1e-6));
    }
    SECTION("2-D") {
        maxent::GaussianPolicy policy(maxent::ActionBox({-1.0, 0.0}, {1.0, 2.0}), 0);
        policy.parameters() << 0.2, -0.3, std::log(0.7), std::log(0.9);
        const maxent::AgentView v = view_of(none, {});
        const auto midpoint = [&](int cells) {  // over [-1, 1] x [0, 2]
            const double w = 2.0 / cells;
            double sum = 0.0;
            for (int i = 0; i < cells; ++i)
                for (int j = 0; j < cells; ++j) {
                    const std::array<double, 2> a{-1.0 + (i + 0.5) * w, (j + 0.5) * w};
                    sum += std::exp(policy.log_density(v, a)) * w * w;
                }
            return sum;
        };
        // Richardson: the midpoint rule's error is c h² + O(h⁴).
        const double coarse = midpoint(300), fine = midpoint(600);
        CHECK((4.0 * fine - coarse) / 3.0 == Approx(1.0).margin(1e-6));
    }
    SECTION("the uniform box policy: density 1 / volume, draws inside") {
        const maxent::UniformBoxPolicy uniform(maxent::ActionBox({-1.0, 0.0}, {1.0, 4.0}));
        const maxent::AgentView v = view_of(none, {});
        const std::array<double, 2> inside{0.3, 3.9}, outside{0.3, 4.1};
        CHECK(uniform.log_density(v, inside) == Approx(-std::log(8.0)));
        CHECK(uniform.log_density(v, outside) == -std::numeric_limits<double>::infinity());
    }
}

TEST_CASE("continuous actions: a one-step world against its closed-form objective", "[continuous]") {
    const Reach world;
    const maxent::ActionBox box = world.action_box();
    maxent::GaussianPolicy policy(box, 0);  // θ = (μ, log σ) = (0, 0)

    SECTION("the rollout's Monte Carlo objective is J(θ) = log 2 Φ((μ - κ) / σ)") {
        policy.parameters() << 0.1, -0.2;
        const double exact = reach_exact(policy.parameters()).objective;
        const maxent::Evaluation e =
            maxent::evaluate(world, Blind{}, policy, {.episodes = 4000, .seed = 11, .knn = {.k = 0}});
        INFO("closed form " << exact << ", Monte Carlo " << e.true_entropy.mean << " ± " << e.true_entropy.half_width());
        // Within 4 standard errors (the 95% half-width is 1.96 of them).
        CHECK(std::abs(e.true_entropy.mean - exact) < 4.0 * e.true_entropy.half_width() / 1.96);
        // The uniform box policy: P(a > 1/2) = 1/4.
        const maxent::Evaluation u =
            maxent::evaluate_uniform(world, Blind{}, {.episodes = 4000, .seed = 12, .knn = {.k = 0}});
        CHECK(std::abs(u.true_entropy.mean - std::log(2.0) / 4.0) < 4.0 * u.true_entropy.half_width() / 1.96);
    }
    SECTION("training approaches the optimum log 2") {
        const double start = reach_exact(policy.parameters()).objective;
        const maxent::TrainResult r =
            maxent::train(world, Blind{}, policy, maxent::StateEntropy{}, maxent::BatchMeanBaseline{},
                          maxent::Adam(0.05), maxent::TrainerConfig{.iterations = 300, .batch = 16, .seed = 3});
        const double end = reach_exact(r.parameters).objective;
        INFO("J from " << start << " to " << end << " (sup log 2 = " << std::log(2.0) << ")");
        CHECK(start < 0.3 * std::log(2.0));
        CHECK(end > 0.95 * std::log(2.0));
        CHECK(std::tanh(r.parameters(0, 0)) > 0.5);  // the median action is in the rewarded bin
    }
    SECTION("estimator_quality against the closed-form gradient: REINFORCE is unbiased") {
        policy.parameters() << 0.2, -0.4;
        const maxent::ExactResult exact = reach_exact(policy.parameters());
        const maxent::EstimatorQuality q =
            maxent::estimator_quality(world, Blind{}, policy, maxent::StateEntropy{}, exact,
                                      maxent::QualityConfig{.batch = 10, .repetitions = 400, .seed = 5},
                                      maxent::Reinforce{});
        INFO("bias " << q.bias_norm << ", standard error " << q.bias_standard_error << ", |grad J| "
                     << q.gradient_norm);
        CHECK(q.objective == exact.objective);
        CHECK(q.bias_norm < 4.0 * q.bias_standard_error);
        CHECK(q.cosine_of_mean > 0.9);
        // The per-step baseline (per-step scores recorded through StepRecordingView) on the same
        // batches: unbiased too.
        const std::vector<maxent::EstimatorQuality> both = maxent::compare_estimators(
            world, Blind{}, policy, maxent::StateEntropy{}, exact,
            maxent::QualityConfig{.batch = 10, .repetitions = 400, .seed = 5}, maxent::Reinforce{},
            maxent::PerStepBaseline{});
        CHECK(both[0].bias_norm == q.bias_norm);  // the same batches as above
        INFO("per-step bias " << both[1].bias_norm << ", standard error " << both[1].bias_standard_error);
        CHECK(both[1].bias_norm < 4.0 * both[1].bias_standard_error);
        // A wrong reference (the gradient's sign flipped) is detected: the same batches, bias
        // far beyond the noise.
        maxent::ExactResult wrong = exact;
        wrong.gradient = -exact.gradient;
        const maxent::EstimatorQuality w =
            maxent::estimator_quality(world, Blind{}, policy, maxent::StateEntropy{}, wrong,
                                      maxent::QualityConfig{.batch = 10, .repetitions = 400, .seed = 5},
                                      maxent::Reinforce{});
        CHECK(w.bias_norm > 10.0 * w.bias_standard_error);
    }
}

TEST_CASE("continuous actions: the particle filter predicts with the typed action", "[continuous]") {
    const Reach world;
    const auto binning = [](double s) { return static_cast<std::size_t>(s > 0.5 ? 1 : 0); };
    maxent::DefaultRng g0 = maxent::stream(1);
    maxent::ParticleFilter filter(world, 2, binning, maxent::ParticleFilterOptions{.particles = 64}, g0);
    static_assert(std::same_as<maxent::updater_action_t<decltype(filter)>, double>);
    maxent::Sampler sampler(world, filter, maxent::RolloutOptions{.needs = {.beliefs = true}});
    maxent::GaussianPolicy policy(world.action_box(), 2);  // reads the particle histogram
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(3, 2);
    for (std::uint64_t e = 0; e < 20; ++e) {
        maxent::DefaultRng g = maxent::stream(2, 0, e);
        const maxent::Trajectory& t = sampler.run(policy, g, score);
        REQUIRE(t.action_dimension == 1);
        REQUIRE(t.action_points.size() == 1);
        REQUIRE(t.actions.empty());
        const double a = t.action_points[0];
        CHECK(std::abs(a) <= 1.0);
        // s_2 = a for every particle: the belief b_2 is the indicator of bin(a).
        CHECK(t.beliefs(static_cast<Eigen::Index>(binning(a)), 1) == Approx(1.0).margin(1e-12));
        CHECK(t.states[1] == binning(a));
    }
}

// NoisyBelief reads what its inner updater reads: over a particle filter of Reach, the typed
// action (double) and observation (double). At σ = 0 it is the filter bit for bit; at σ > 0 the
// beliefs are perturbed (and still distributions) while the world's draws stay the same.
TEST_CASE("continuous actions: the noisy belief over a particle filter reads the typed action", "[continuous]") {
    const Reach world;
    const auto binning = [](double s) { return static_cast<std::size_t>(s > 0.5 ? 1 : 0); };
    maxent::DefaultRng g0 = maxent::stream(4);
    const maxent::ParticleFilter filter(world, 2, binning, maxent::ParticleFilterOptions{.particles = 64}, g0);
    using Noisy = maxent::NoisyBelief<std::remove_const_t<decltype(filter)>>;
    static_assert(std::same_as<maxent::updater_action_t<Noisy>, double>);
    static_assert(std::same_as<maxent::updater_observation_t<Noisy>, double>);
    const maxent::RolloutOptions options{.needs = {.beliefs = true}};
    maxent::Sampler bare(world, filter, options);
    maxent::Sampler exact(world, Noisy(filter, 0.0), options);
    maxent::Sampler noisy(world, Noisy(filter, 0.3), options);
    maxent::GaussianPolicy policy(world.action_box(), 2);  // reads the (noisy) histogram
    policy.parameters() << 0.2, -0.5, 0.1, 0.0, 0.0, 0.0;
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(3, 2);
    std::size_t differ = 0;
    for (std::uint64_t e = 0; e < 10; ++e) {
        maxent::DefaultRng g1 = maxent::stream(5, 0, e), g2 = g1, g3 = g1;
        const maxent::Trajectory t_bare = bare.run(policy, g1, score);
        const maxent::Trajectory& t_exact = exact.run(policy, g2, score);
        CHECK(t_exact.beliefs == t_bare.beliefs);
        CHECK(t_exact.action_points == t_bare.action_points);
        const maxent::Trajectory& t_noisy = noisy.run(policy, g3, score);
        REQUIRE(t_noisy.beliefs.cols() == 2);
        CHECK(t_noisy.beliefs.col(0) == t_bare.beliefs.col(0));  // b_1: the prior, no update yet
        const Eigen::VectorXd b2 = t_noisy.beliefs.col(1);
        CHECK(b2.minCoeff() >= 0.0);
        CHECK(b2.sum() == Approx(1.0).margin(1e-12));
        if (b2 != t_bare.beliefs.col(1)) ++differ;
    }
    CHECK(differ == 10);  // the noise of sd 0.3 moves every posterior
    CHECK(noisy.updater().stats().updates == 10);
}

/// A continuous policy that writes 2, outside Reach's box [-1, 1].
struct Wild {
    [[nodiscard]] std::size_t action_dimension() const { return 1; }
    template <class G>
    void sample(const maxent::AgentView&, G&, Eigen::MatrixXd&, std::span<double> a) const {
        a[0] = 2.0;
    }
    void check_dimensions(const maxent::AgentDimensions&) const {}
};

TEST_CASE("continuous actions: bad boxes and actions outside the box are errors naming them", "[continuous]") {
    CHECK_THROWS_WITH(maxent::ActionBox({0.0, 1.0}, {1.0, 1.0}).check("test"),
                      Catch::Contains("coordinate 1 is [1, 1]"));
    CHECK_THROWS_AS(maxent::GaussianPolicy(maxent::ActionBox({}, {}), 0), maxent::config_error);
    const Reach world;
    maxent::Sampler sampler(world, Blind{});
    Wild wild;
    maxent::DefaultRng g = maxent::stream(0);
    Eigen::MatrixXd score;
    CHECK_THROWS_WITH(sampler.run(wild, g, score), Catch::Contains("coordinate 0 = 2, outside the world's action box"));
    // A policy called directly with room for fewer (or more) coordinates than its actions have.
    const Eigen::VectorXd none(0);
    const maxent::AgentView v = view_of(none, {});
    maxent::GaussianPolicy gaussian(maxent::ActionBox({-1.0, 0.0}, {1.0, 2.0}), 0);
    Eigen::MatrixXd gaussian_score = Eigen::MatrixXd::Zero(gaussian.parameters().rows(), gaussian.parameters().cols());
    std::array<double, 1> one{};
    std::array<double, 3> three{};
    CHECK_THROWS_WITH(gaussian.sample(v, g, gaussian_score, one),
                      "GaussianPolicy: sample was given room for an action of 1 coordinates; the policy's have 2");
    CHECK_THROWS_AS(gaussian.sample(v, g, gaussian_score, three), maxent::config_error);
    const maxent::UniformBoxPolicy uniform(maxent::ActionBox({-1.0, 0.0}, {1.0, 2.0}));
    CHECK_THROWS_WITH(uniform.sample(v, g, score, one),
                      "UniformBoxPolicy: sample was given room for an action of 1 coordinates; the box's have 2");
    CHECK(gaussian_score.isZero());  // nothing drawn, nothing added
}

// A Gaussian or uniform policy built for another box of the same dimension (Reach's is [-1, 1]) is refused
// by train and evaluate before any episode, naming both boxes; its draws inside [-1, 1] would
// otherwise pass the rollout's inside-the-box check with a density and a score for the wrong box.
TEST_CASE("continuous actions: a policy built for another box is refused at the start", "[continuous]") {
    const Reach world;
    const maxent::GaussianPolicy narrow(maxent::ActionBox({-0.5}, {0.5}), 0);
    const std::string names_both =
        "GaussianPolicy: built for the action box [-0.5, 0.5] but the world's action box is [-1, 1]";
    CHECK_THROWS_WITH(maxent::train(world, Blind{}, narrow, maxent::StateEntropy{}, maxent::BatchMeanBaseline{},
                                    maxent::Adam(0.05), maxent::TrainerConfig{.iterations = 1, .batch = 2}),
                      Catch::Contains(names_both));
    CHECK_THROWS_AS(maxent::evaluate(world, Blind{}, narrow, {.episodes = 2, .threads = 1, .knn = {.k = 0}}),
                    maxent::config_error);
    CHECK_THROWS_WITH(maxent::evaluate(world, Blind{}, narrow, {.episodes = 2, .threads = 1, .knn = {.k = 0}}),
                      Catch::Contains(names_both));
    // The same box (equal bounds) passes.
    const maxent::GaussianPolicy same(maxent::ActionBox({-1.0}, {1.0}), 0);
    CHECK_NOTHROW(maxent::evaluate(world, Blind{}, same, {.episodes = 2, .threads = 1, .knn = {.k = 0}}));
    // The uniform baseline too: uniform on [-0.5, 0.5] is not the world's uniform policy.
    CHECK_THROWS_WITH(
        maxent::evaluate(world, Blind{}, maxent::UniformBoxPolicy(maxent::ActionBox({-0.5}, {0.5})),
                         {.episodes = 2, .threads = 1, .knn = {.k = 0}}),
        Catch::Contains("UniformBoxPolicy: built for the action box [-0.5, 0.5] but the world's action box is [-1, 1]"));
    CHECK_NOTHROW(maxent::evaluate(world, Blind{}, maxent::UniformBoxPolicy(world.action_box()),
                                   {.episodes = 2, .threads = 1, .knn = {.k = 0}}));
}

}  // namespace test_continuous_actions
