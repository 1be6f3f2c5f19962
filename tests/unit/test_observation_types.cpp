// tests/unit/test_observation_types.cpp — observations of the simulator's own type: a range
// reading in metres (double), a pair of beams (std::array), Eigen vectors and a struct; the
// particle filter weighing them by a density or a log-density; the observation-feature
// policy; MSE and MOE counted by k nearest neighbours; evaluate's estimators for such worlds;
// the named errors of bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/objective/knn_feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/observation_features.hpp"
#include "maxent/policy/uniform.hpp"

namespace test_observation_types {

constexpr double kLength = 10.0;

double gaussian_density(double x, double sigma) {
    return std::exp(-0.5 * x * x / (sigma * sigma)) / (sigma * std::sqrt(2.0 * std::numbers::pi));
}

/// A robot on a track [0, 10] m: actions 0 (back) and 1 (forward) move it 1 m (clamped); its
/// sensor reads the range to the far wall, 10 - x, in metres with Gaussian noise σ. The prior
/// is uniform on the track. True states are counted in 10 bins of 1 m and as points (x).
/// Mode picks the density members: 0 the density, 1 its log, 2 a density that is NaN,
/// 3 negative, 4 infinite, 5 a log-density that is +inf.
template <int Mode>
struct Track {
    using state_type = double;
    using observation_type = double;
    double sigma = 0.5;
    std::size_t steps = 12;

    std::size_t num_actions() const { return 2; }
    std::size_t horizon() const { return steps; }
    template <class G>
    double sample_initial_state(G& g) const {
        return kLength * maxent::uniform01(g);
    }
    template <class G>
    double sample_initial_observation(double x, G& g) const {
        return sample_observation(0, x, g);
    }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const {
        return std::clamp(x + (a == 1 ? 1.0 : -1.0), 0.0, kLength);
    }
    template <class G>
    double sample_observation(std::size_t, double x, G& g) const {
        return kLength - x + sigma * maxent::standard_normal(g);
    }
    double observation_likelihood(std::size_t, double o, double x) const
        requires(Mode != 1 && Mode != 5)
    {
        if constexpr (Mode == 2) return std::numeric_limits<double>::quiet_NaN();
        if constexpr (Mode == 3) return -1.0;
        if constexpr (Mode == 4) return std::numeric_limits<double>::infinity();
        return gaussian_density(o - (kLength - x), sigma);
    }
    double observation_log_likelihood(std::size_t, double o, double x) const
        requires(Mode == 1 || Mode == 5)
    {
        if constexpr (Mode == 5) return std::numeric_limits<double>::infinity();
        const double r = (o - (kLength - x)) / sigma;
        return -0.5 * r * r - std::log(sigma * std::sqrt(2.0 * std::numbers::pi));
    }
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return std::min<std::size_t>(static_cast<std::size_t>(x), 9); }
    std::size_t state_point_dimension() const { return 1; }
    void state_point(double x, std::span<double> out) const { out[0] = x; }
};

struct Meters {
    std::size_t operator()(double x) const { return std::min<std::size_t>(static_cast<std::size_t>(x), 9); }
};

/// The same robot with two beams (to either wall), observations std::array<double, 2>, binned
/// by the first beam in 1 m bins (num_observations and observation_bin: binned MOE).
struct TwoBeams {
    using state_type = double;
    using observation_type = std::array<double, 2>;
    double sigma = 0.3;
    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 12; }
    std::size_t horizon() const { return 15; }
    template <class G>
    double sample_initial_state(G& g) const {
        return kLength * maxent::uniform01(g);
    }
    template <class G>
    observation_type sample_initial_observation(double x, G& g) const {
        return sample_observation(0, x, g);
    }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const {
        return std::clamp(x + (a == 1 ? 1.0 : -1.0), 0.0, kLength);
    }
    template <class G>
    observation_type sample_observation(std::size_t, double x, G& g) const {
        const double left = x + sigma * maxent::standard_normal(g);
        return {left, kLength - x + sigma * maxent::standard_normal(g)};
    }
    double observation_log_likelihood(std::size_t, const observation_type& o, double x) const {
        const double r0 = (o[0] - x) / sigma, r1 = (o[1] - (kLength - x)) / sigma;
        return -0.5 * (r0 * r0 + r1 * r1);
    }
    std::size_t observation_bin(const observation_type& o) const {
        return o[0] < 0.0 ? 0 : std::min<std::size_t>(static_cast<std::size_t>(o[0]) + 1, 11);
    }
    std::size_t num_state_bins() const { return 10; }
    std::size_t state_bin(double x) const { return Meters{}(x); }
};

/// A sensor whose readings are Eigen vectors of a length that changes with the state (a
/// defect: mixed dimensions), or has a NaN coordinate.
template <bool Mixed>
struct VectorSensor {
    using state_type = double;
    using observation_type = Eigen::VectorXd;
    std::size_t num_actions() const { return 2; }
    std::size_t horizon() const { return 6; }
    template <class G>
    double sample_initial_state(G&) const {
        return 0.0;
    }
    template <class G>
    Eigen::VectorXd sample_initial_observation(double x, G& g) const {
        return sample_observation(0, x, g);
    }
    template <class G>
    double sample_next_state(double x, std::size_t, G&) const {
        return x + 1.0;
    }
    template <class G>
    Eigen::VectorXd sample_observation(std::size_t, double x, G&) const {
        if constexpr (Mixed) return Eigen::VectorXd::Constant(x < 2.0 ? 2 : 3, x);
        Eigen::VectorXd v(2);
        v << x, x < 3.0 ? x : std::numeric_limits<double>::quiet_NaN();
        return v;
    }
    std::size_t num_state_bins() const { return 1; }
    std::size_t state_bin(double) const { return 0; }
};

/// A sensor whose readings have no coordinates at all (a broken simulator).
struct EmptySensor : VectorSensor<false> {
    template <class G>
    Eigen::VectorXd sample_initial_observation(double, G&) const {
        return {};
    }
    template <class G>
    Eigen::VectorXd sample_observation(std::size_t, double, G&) const {
        return {};
    }
};

/// A struct observation read as a point through the model's members.
struct Reading {
    double range;
    int beam;
};
struct StructSensor {
    using state_type = double;
    using observation_type = Reading;
    std::size_t num_actions() const { return 2; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const {
        return maxent::uniform01(g);
    }
    template <class G>
    Reading sample_initial_observation(double x, G& g) const {
        return sample_observation(0, x, g);
    }
    template <class G>
    double sample_next_state(double x, std::size_t a, G&) const {
        return x + static_cast<double>(a);
    }
    template <class G>
    Reading sample_observation(std::size_t a, double x, G&) const {
        return {x, static_cast<int>(a)};
    }
    std::size_t observation_point_dimension() const { return 2; }
    void observation_point(const Reading& r, std::span<double> out) const {
        out[0] = r.range;
        out[1] = r.beam;
    }
    std::size_t num_state_bins() const { return 1; }
    std::size_t state_bin(double) const { return 0; }
};

/// An agent that keeps no belief (one latent state) and reads observations of type O.
template <class O>
struct BlindUpdater {
    using observation_type = O;
    std::size_t dimension() const { return 1; }
    void initial(Eigen::VectorXd& b) const { b = Eigen::VectorXd::Ones(1); }
    template <class G>
    void update(Eigen::VectorXd&, std::size_t, const O&, G&) {}
};

/// The existing index-returning simulator shape: no observation_type, std::size_t readings.
struct IndexSensor {
    using state_type = double;
    std::size_t num_actions() const { return 2; }
    std::size_t num_observations() const { return 2; }
    std::size_t horizon() const { return 5; }
    template <class G>
    double sample_initial_state(G& g) const {
        return maxent::uniform01(g);
    }
    template <class G>
    std::size_t sample_initial_observation(double s, G&) const {
        return s < 0.5 ? 0 : 1;
    }
    template <class G>
    double sample_next_state(double s, std::size_t, G&) const {
        return s;
    }
    template <class G>
    std::size_t sample_observation(std::size_t, double s, G&) const {
        return s < 0.5 ? 0 : 1;
    }
    double observation_likelihood(std::size_t, std::size_t o, double s) const { return o == (s < 0.5 ? 0U : 1U); }
    std::size_t num_state_bins() const { return 1; }
    std::size_t state_bin(double) const { return 0; }
};

// --- the concept ladder reads the declared type ------------------------------------------------
static_assert(maxent::GenerativePomdp<Track<0>> && maxent::ObservationLikelihood<Track<0>>);
static_assert(maxent::ObservationLikelihood<Track<1>>);  // a log-density alone suffices
static_assert(std::same_as<maxent::world_observation_t<Track<0>>, double>);
static_assert(std::same_as<maxent::world_observation_t<TwoBeams>, std::array<double, 2>>);
static_assert(std::same_as<maxent::world_observation_t<IndexSensor>, std::size_t>);
static_assert(maxent::indexed_observations<IndexSensor> && !maxent::indexed_observations<Track<0>>);
static_assert(maxent::has_observation_points<Track<0>> && maxent::has_observation_points<TwoBeams> &&
              maxent::has_observation_points<StructSensor> && !maxent::has_observation_points<IndexSensor>);
static_assert(maxent::has_state_points<Track<0>> && !maxent::has_state_points<TwoBeams>);
static_assert(std::same_as<maxent::updater_observation_t<maxent::ParticleFilter<Track<1>, Meters>>, double>);
static_assert(std::same_as<maxent::updater_observation_t<maxent::ParticleFilter<IndexSensor, Meters>>, std::size_t>);
static_assert(maxent::BeliefUpdater<maxent::ParticleFilter<TwoBeams, Meters>>);
static_assert(maxent::DifferentiablePolicy<maxent::ObservationFeaturePolicy<maxent::RawObservationFeatures>>);

/// The exact posterior mean of x after one reading o of a uniform prior on [0, 10] (no move):
/// ∫ x N(o; 10 - x, σ) dx / ∫ N(o; 10 - x, σ) dx by the midpoint rule on 20000 cells.
double exact_posterior_mean(double o, double sigma) {
    double num = 0.0, den = 0.0;
    const int cells = 20000;
    for (int i = 0; i < cells; ++i) {
        const double x = kLength * (i + 0.5) / cells;
        const double w = gaussian_density(o - (kLength - x), sigma);
        num += w * x;
        den += w;
    }
    return num / den;
}

template <class Filter>
double particle_mean(const Filter& f) {
    double m = 0.0;
    for (std::size_t i = 0; i < f.particle_count(); ++i) m += f.weights()[i] * f.particles()[i];
    return m;
}

TEST_CASE("particle filter weighs a range reading in metres by its density (and by its log)",
          "[observation_types][particles]") {
    // One update after action 1 (+1 m, clamped) and the reading o: the posterior of x' is the
    // pushed-forward prior times N(o; 10 - x', σ). Against the exact mean of that posterior
    // (computed by quadrature over x ~ U[0, 10] moved by +1 m), with n = 20000 particles: the
    // posterior's sd is <= σ = 0.5, so the Monte Carlo error of the mean is about
    // 0.5 / sqrt(n_eff) <= 0.5 / sqrt(2000) = 0.011; tolerance 0.05 (4.5 SE).
    const Track<0> density{};
    const Track<1> logs{};
    maxent::DefaultRng g0 = maxent::stream(11), g1 = maxent::stream(11);
    const maxent::ParticleFilterOptions options{.particles = 20000, .resample_threshold = 0.0};
    maxent::ParticleFilter pf(density, 10, Meters{}, options, g0);
    maxent::ParticleFilter pl(logs, 10, Meters{}, options, g1);
    const double o = 3.2;  // x' near 6.8
    Eigen::VectorXd b0, b1;
    pf.initial(b0);
    pl.initial(b1);
    pf.update(b0, 1, o, g0);
    pl.update(b1, 1, o, g1);
    // exact: x' = min(x + 1, 10), x ~ U[0, 10]; quadrature over x.
    double num = 0.0, den = 0.0;
    for (int i = 0; i < 20000; ++i) {
        const double x = std::min(kLength * (i + 0.5) / 20000 + 1.0, kLength);
        const double w = gaussian_density(o - (kLength - x), 0.5);
        num += w * x;
        den += w;
    }
    const double exact = num / den;
    CHECK(std::abs(particle_mean(pf) - exact) < 0.05);
    // The log path draws the same particles and gives the same normalised weights (to rounding).
    double largest_gap = 0.0;
    for (std::size_t i = 0; i < pf.particle_count(); ++i) {
        REQUIRE(pf.particles()[i] == pl.particles()[i]);
        largest_gap = std::max(largest_gap, std::abs(pf.weights()[i] - pl.weights()[i]));
    }
    CHECK(largest_gap < 1e-15);
    CHECK((b0 - b1).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(exact_posterior_mean(3.2, 0.5) > 6.5);  // the quadrature helper agrees on the no-move case
}

TEST_CASE("a log-density keeps particles ranked where the density underflows", "[observation_types][particles]") {
    // σ = 1e-3 m and a reading 0.5 m from every particle: each density is exp(-125000) = 0
    // in doubles, so the density filter depletes (re-seeds, then ignores o) while the log
    // filter keeps the particles nearest to the reading.
    Track<0> density{};
    Track<1> logs{};
    density.sigma = logs.sigma = 1e-3;
    maxent::DefaultRng g0 = maxent::stream(3), g1 = maxent::stream(3);
    const maxent::ParticleFilterOptions options{.particles = 200};
    maxent::ParticleFilter pf(density, 10, Meters{}, options, g0);
    maxent::ParticleFilter pl(logs, 10, Meters{}, options, g1);
    Eigen::VectorXd b;
    pf.initial(b);
    pf.update(b, 0, 20.0, g0);  // a range no position gives: every density underflows
    CHECK(pf.depletions() == 1);
    CHECK(pf.uninformed_recoveries() == 1);
    pl.initial(b);
    pl.update(b, 0, 20.0, g1);
    CHECK(pl.depletions() == 0);
    // The posterior concentrates on the particles nearest to range 20, i.e. x' = 0: bin 0.
    CHECK(b[0] == Approx(1.0));
}

TEST_CASE("bad observation densities are named", "[observation_types][particles][errors]") {
    maxent::DefaultRng g = maxent::stream(1);
    const maxent::ParticleFilterOptions options{.particles = 5};
    Eigen::VectorXd b;
    const auto fails_with = [&](const auto& world, const std::string& what) {
        maxent::ParticleFilter pf(world, 10, Meters{}, options, g);
        pf.initial(b);
        CHECK_THROWS_WITH(pf.update(b, 0, 4.25, g), Catch::Matchers::Contains(what) && Catch::Matchers::Contains("o = 4.25"));
    };
    fails_with(Track<2>{}, "observation_likelihood(a = 0, o = 4.25, particle 0) is nan");
    fails_with(Track<3>{}, "is -1; it must be finite and >= 0");
    fails_with(Track<4>{}, "is inf; it must be finite and >= 0");
    fails_with(Track<5>{}, "observation_log_likelihood(a = 0, o = 4.25, particle 0) is inf");
}

TEST_CASE("the rollout passes typed observations through and records their points and bins",
          "[observation_types][rollout]") {
    const TwoBeams world{};
    maxent::DefaultRng g = maxent::stream(5);
    maxent::ParticleFilter filter(world, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 64}, g);
    maxent::RolloutOptions options;
    options.needs.observation_points = true;
    options.needs.believed_states = true;
    maxent::Sampler sampler(world, filter, options);
    maxent::ObservationFeaturePolicy policy(maxent::RawObservationFeatures(2), 2);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(3, 2);
    const maxent::Trajectory& t = sampler.run(policy, g, score);
    REQUIRE(t.observation_point_dimension == 2);
    REQUIRE(t.observation_points.size() == 2 * t.horizon);
    REQUIRE(t.observations.size() == t.horizon);
    CHECK(t.num_observations == 12);
    for (std::size_t k = 0; k < t.horizon; ++k) {
        // The two beams sum to 10 m up to noise (σ = 0.3 each: |sum - 10| < 5σ√2 = 2.1).
        const double left = t.observation_points[2 * k], right = t.observation_points[2 * k + 1];
        CHECK(std::abs(left + right - kLength) < 2.1);
        CHECK(t.observations[k] == world.observation_bin({left, right}));
    }
    // The episode allocates nothing new the second time (capacity kept).
    const double* before = t.observation_points.data();
    sampler.run(policy, g, score);
    CHECK(t.observation_points.data() == before);
    // Binned MOE reads the bins; kNN MOE the points.
    maxent::DefaultRng fg = maxent::stream(0);
    const double binned = maxent::ObservationEntropy{}(t, fg);
    CHECK(binned > 0.0);
    CHECK(binned <= std::log(12.0) + 1e-12);
    const double knn = maxent::KnnObservationEntropy(3)(t, fg);
    CHECK(knn == maxent::knn_entropy(t.counted_observation_points(), 2, 3));
}

TEST_CASE("kNN MSE counts the convention's true states as points", "[observation_types][knn]") {
    // By hand: a trajectory of horizon 4 under the authors' convention counts s_2 .. s_5.
    maxent::Trajectory t;
    t.counting = maxent::StateCounting::authors;
    t.horizon = 4;
    t.state_point_dimension = 1;
    t.state_points = {100.0, 0.0, 1.0, 3.0, 7.0};  // s_1 = 100 is not counted
    maxent::DefaultRng g = maxent::stream(0);
    const double h = maxent::KnnStateEntropy(1)(t, g);
    const std::vector<double> counted = {0.0, 1.0, 3.0, 7.0};
    CHECK(h == maxent::knn_entropy(counted, 1, 1));
    // 1-NN distances 1, 1, 2, 4; Ĥ = ψ(4) - ψ(1) + log 2 + (1/4) Σ log ε, ψ(4) - ψ(1) = 1 + 1/2 + 1/3.
    const double expected = (1.0 + 0.5 + 1.0 / 3.0) + std::log(2.0) + 0.25 * (std::log(2.0) + std::log(4.0));
    CHECK(h == Approx(expected).epsilon(1e-12));
    // Without points recorded: a named config_error.
    t.state_points.clear();
    CHECK_THROWS_AS(maxent::KnnStateEntropy(1)(t, g), maxent::config_error);
    CHECK_THROWS_AS(maxent::KnnStateEntropy(0), maxent::config_error);
}

TEST_CASE("a rollout records true states as points through the world's map", "[observation_types][knn]") {
    const Track<1> world{};
    maxent::DefaultRng g = maxent::stream(8);
    maxent::ParticleFilter filter(world, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 32}, g);
    maxent::RolloutOptions options;
    options.needs = maxent::KnnStateEntropy(2).needs() | maxent::KnnObservationEntropy(2).needs();
    maxent::Sampler sampler(world, filter, options);
    maxent::ObservationFeaturePolicy policy(maxent::RawObservationFeatures(1), 2);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(2, 2);
    const maxent::Trajectory& t = sampler.run(policy, g, score);
    REQUIRE(t.state_points.size() == t.horizon);
    for (std::size_t k = 0; k < t.horizon; ++k) {
        CHECK(t.states[k] == Meters{}(t.state_points[k]));
        // range + position = 10 up to the reading's noise (σ = 0.5, 6σ)
        CHECK(std::abs(t.observation_points[k] + t.state_points[k] - kLength) < 3.0);
    }
    // A world without a map refuses a feedback that needs one, naming the fix.
    const TwoBeams beams{};
    maxent::ParticleFilter other(beams, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 4}, g);
    maxent::RolloutOptions points;
    points.needs.state_points = true;
    CHECK_THROWS_WITH(maxent::Sampler(beams, other, points), Catch::Matchers::Contains("with_state_points"));
    // ... which with_state_points supplies.
    const auto mapped = maxent::with_state_points(beams, 1, [](double x, std::span<double> out) { out[0] = x; });
    maxent::ParticleFilter mapped_filter(mapped, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 4}, g);
    maxent::Sampler mapped_sampler(mapped, mapped_filter, points);
    Eigen::MatrixXd score3 = Eigen::MatrixXd::Zero(3, 2);
    maxent::ObservationFeaturePolicy policy2(maxent::RawObservationFeatures(2), 2);
    CHECK(mapped_sampler.run(policy2, g, score3).state_points.size() == beams.horizon());
}

TEST_CASE("observation vectors of mixed dimension and non-finite coordinates are named",
          "[observation_types][errors]") {
    maxent::DefaultRng g = maxent::stream(2);
    maxent::RolloutOptions options;
    options.needs.observation_points = true;
    maxent::UniformPolicy uniform(2);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(1, 2);
    const VectorSensor<true> mixed{};
    maxent::Sampler mixed_sampler(mixed, BlindUpdater<Eigen::VectorXd>{}, options);
    CHECK_THROWS_WITH(mixed_sampler.run(uniform, g, score), Catch::Matchers::Contains("step 3 has 3 coordinates, earlier ones 2"));
    const VectorSensor<false> nan{};
    maxent::Sampler nan_sampler(nan, BlindUpdater<Eigen::VectorXd>{}, options);
    CHECK_THROWS_WITH(nan_sampler.run(uniform, g, score), Catch::Matchers::Contains("coordinate 1 of the observation's point at step 4 is nan"));
    // A point of no coordinates is refused at the first step, whether or not a feedback reads points.
    const EmptySensor empty{};
    maxent::Sampler empty_sampler(empty, BlindUpdater<Eigen::VectorXd>{});
    CHECK_THROWS_AS(empty_sampler.run(uniform, g, score), maxent::model_error);
    CHECK_THROWS_WITH(empty_sampler.run(uniform, g, score),
                      Catch::Matchers::Contains("the observation at step 1 is a point of size 0 (its point_dimension is 0)"));
}

TEST_CASE("a struct observation is read as a point through the model's members", "[observation_types][rollout]") {
    const StructSensor world{};
    maxent::DefaultRng g = maxent::stream(4);
    maxent::RolloutOptions options;
    options.needs.observation_points = true;
    maxent::Sampler sampler(world, BlindUpdater<Reading>{}, options);
    maxent::UniformPolicy uniform(2);
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(1, 2);
    const maxent::Trajectory& t = sampler.run(uniform, g, score);
    REQUIRE(t.observation_points.size() == 2 * t.horizon);
    CHECK(t.num_observations == 0);  // no bins: binned MOE has nothing to count
    CHECK(t.observations.empty());
    for (std::size_t k = 1; k < t.horizon; ++k)
        CHECK(t.observation_points[2 * k] == t.observation_points[2 * (k - 1)] + static_cast<double>(t.actions[k - 1]));
}

TEST_CASE("observation-feature policy: softmax of θᵀψ(o), its score, and bad feature maps",
          "[observation_types][policy]") {
    maxent::ObservationFeaturePolicy policy(maxent::RawObservationFeatures(2), 3);
    policy.parameters() << 1.0, 0.0, -1.0,  // ψ = (o1, o2, 1)
        0.5, 2.0, 0.0,                      //
        0.0, 0.0, 1.0;
    const Eigen::VectorXd belief = Eigen::VectorXd::Ones(1);
    const std::array<double, 2> o = {0.2, -1.0};
    const maxent::AgentView v{0, 0, belief, {}, false, nullptr, std::span<const double>(o)};
    // logits by hand: a0 = 0.2 - 0.5 = -0.3, a1 = -2, a2 = -0.2 + 1 = 0.8.
    const Eigen::Vector3d logits(-0.3, -2.0, 0.8);
    const Eigen::Vector3d expected = logits.array().exp() / logits.array().exp().sum();
    Eigen::VectorXd p;
    policy.probabilities(v, p);
    CHECK((p - expected).cwiseAbs().maxCoeff() < 1e-15);
    // log_gradient against central differences of log π(a | o).
    const std::size_t a = 2;
    Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(3, 3);
    policy.log_gradient(v, a, grad);
    const double h = 1e-6;
    for (Eigen::Index i = 0; i < 3; ++i)
        for (Eigen::Index j = 0; j < 3; ++j) {
            maxent::ObservationFeaturePolicy shifted = policy;
            shifted.parameters()(i, j) += h;
            Eigen::VectorXd up, down;
            shifted.probabilities(v, up);
            shifted.parameters()(i, j) -= 2 * h;
            shifted.probabilities(v, down);
            CHECK(grad(i, j) == Approx((std::log(up[a]) - std::log(down[a])) / (2 * h)).margin(1e-7));
        }
    // A view without an observation point, a map of the wrong length, a short observation.
    const maxent::AgentView no_point{0, 0, belief};
    CHECK_THROWS_WITH(policy.probabilities(no_point, p), Catch::Matchers::Contains("no observation point"));
    struct Short {
        std::size_t dimension() const { return 3; }
        void operator()(std::span<const double>, Eigen::VectorXd& out) const { out = Eigen::VectorXd::Zero(2); }
    };
    maxent::ObservationFeaturePolicy wrong(Short{}, 2);
    CHECK_THROWS_WITH(wrong.probabilities(v, p), Catch::Matchers::Contains("wrote 2 features; its dimension() and the parameters say 3"));
    const std::array<double, 3> three = {1.0, 2.0, 3.0};
    const maxent::AgentView v3{0, 0, belief, {}, false, nullptr, std::span<const double>(three)};
    CHECK_THROWS_WITH(policy.probabilities(v3, p), Catch::Matchers::Contains("has 3 coordinates, the map expects 2"));
}

TEST_CASE("RBF and tile-coding features by hand", "[observation_types][policy]") {
    Eigen::MatrixXd centres(2, 1);
    centres << 0.0, 2.0;
    const maxent::RbfObservationFeatures rbf(centres, 1.0);
    Eigen::VectorXd out(3);
    const std::array<double, 1> x = {1.0};
    rbf(x, out);
    CHECK(out[0] == Approx(std::exp(-0.5)));
    CHECK(out[1] == Approx(std::exp(-0.5)));
    CHECK(out[2] == 1.0);
    // Two tilings of [0, 4] in 2 cells of 2 m; the second shifted by 1 m: x = 1.5 lies in
    // cell 0 of tiling 0 ((1.5) / 2 = 0.75) and cell 1 of tiling 1 ((1.5 + 1) / 2 = 1.25).
    const maxent::ObservationTiles tiles(1, 0.0, 4.0, 2, 2);
    REQUIRE(tiles.dimension() == 4);
    Eigen::VectorXd t(4);
    const std::array<double, 1> y = {1.5};
    tiles(y, t);
    CHECK(t == Eigen::Vector4d(1.0, 0.0, 0.0, 1.0));
    CHECK_THROWS_AS(maxent::RbfObservationFeatures(centres, 0.0), maxent::config_error);
    CHECK_THROWS_AS(maxent::ObservationTiles(1, 1.0, 1.0, 2, 2), maxent::config_error);
    // F = tilings · tiles^d is checked: 2^63 + 1 tilings of 2 tiles would wrap to F = 2.
    CHECK_THROWS_AS(maxent::ObservationTiles(1, 0.0, 1.0, 2, (std::size_t{1} << 63) + 1), maxent::config_error);
    CHECK_THROWS_WITH(maxent::ObservationTiles(1, 0.0, 1.0, 2, (std::size_t{1} << 63) + 1),
                      Catch::Matchers::Contains("9223372036854775809 tilings of 2^1 = 2 tiles are too many"));
    CHECK_THROWS_WITH(maxent::ObservationTiles(3, 0.0, 1.0, std::size_t{1} << 14, 1),
                      Catch::Matchers::Contains("16384^3 tiles per tiling are too many"));
    CHECK(maxent::ObservationTiles(2, 0.0, 1.0, 1 << 10, 1 << 20).dimension() == std::size_t{1} << 40);
}

TEST_CASE("the observation-feature policy trains in the Trainer on range readings", "[observation_types][train]") {
    // Few iterations: the Trainer accepts the typed world, the particle filter and the
    // policy; the parameters move away from 0 and stay finite; the binned true-state entropy
    // is reported for every iteration.
    const Track<1> world{};
    maxent::DefaultRng g = maxent::stream(9);
    maxent::ParticleFilter filter(world, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 16}, g);
    maxent::TrainerConfig config;
    config.iterations = 5;
    config.batch = 4;
    config.seed = 3;
    const auto result = maxent::train(world, filter, maxent::ObservationFeaturePolicy(maxent::RawObservationFeatures(1), 2),
                                      maxent::KnnStateEntropy(2, 1e-3), maxent::BatchMeanBaseline{},
                                      maxent::ConstantStep(0.1), config);
    REQUIRE(result.history.size() == 5);
    CHECK(result.parameters.allFinite());
    CHECK(result.parameters.cwiseAbs().maxCoeff() > 0.0);
    for (const auto& m : result.history) CHECK(m.true_entropy <= std::log(10.0) + 1e-12);
}

TEST_CASE("rescue world with a range sensor: ranges, bins and log-density by hand", "[observation_types][rescue]") {
    const maxent::RescueRangeWorld world;  // doors 0.12 m wide centred at 0.25 and 0.75
    using Ranges = maxent::RescueRangeWorld::observation_type;
    // (0.25, 0.25): both inner walls are crossed in a doorway, so right and up reach the outer walls.
    CHECK(world.ranges({0.25, 0.25}) == Ranges{0.75, 0.75, 0.25, 0.25});
    // (0.1, 0.4): the inner walls stop the right beam (0.4 m) and the up beam (0.1 m).
    const Ranges r = world.ranges({0.1, 0.4});
    CHECK(r[0] == Approx(0.4));
    CHECK(r[1] == Approx(0.1));
    CHECK(r[2] == Approx(0.1));
    CHECK(r[3] == Approx(0.4));
    // (0.7, 0.9): the left beam stops at x = 1/2; the down beam passes the doorway at 0.75.
    const Ranges q = world.ranges({0.7, 0.9});
    CHECK(q[0] == Approx(0.3));
    CHECK(q[1] == Approx(0.1));
    CHECK(q[2] == Approx(0.2));
    CHECK(q[3] == Approx(0.9));
    // 8 bins per beam at 0.25 m (ceil((√2 + 4·0.05) / 0.25) + 1): 2 + 0·8 + 7·64 + 0·512.
    CHECK(world.num_observations() == 4096);
    CHECK(world.observation_bin({0.3, -0.1, 2.0, 0.0}) == 450);
    // log-density: -Σ (o - r)² / (2 σ²), σ = 0.05.
    const Ranges o{0.45, 0.1, 0.1, 0.3};
    CHECK(world.observation_log_likelihood(0, o, {0.1, 0.4}) ==
          Approx(-0.5 * (0.05 * 0.05 + 0.1 * 0.1) / (0.05 * 0.05)));
    // The readings scatter around the ranges with sd σ: the mean of 4000 readings of beam 0
    // is within 4 SE (4 · 0.05 / √4000 = 0.0032) of 0.4.
    maxent::DefaultRng g = maxent::stream(6);
    double sum = 0.0;
    for (int i = 0; i < 4000; ++i) sum += world.sample_observation(0, {0.1, 0.4}, g)[0];
    CHECK(std::abs(sum / 4000 - 0.4) < 0.0032);
    CHECK_THROWS_AS(maxent::RescueRangeWorld({.range_noise = 0.0}), maxent::config_error);
}

TEST_CASE("evaluate counts a typed world's raw observations and state points by kNN, by hand",
          "[observation_types][evaluate]") {
    // Track has no observation bins and has state points: MOE is the kNN entropy of the raw
    // readings, and the true states are also counted by kNN. The same episodes replayed
    // through rollout_fixed_policy on evaluate's streams, with KnnEntropy by hand, give the
    // same values; the binned true-state entropy is the binned one.
    const Track<1> world{};
    maxent::DefaultRng g = maxent::stream(4);
    const maxent::ParticleFilter filter(world, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 16}, g);
    const maxent::UniformPolicy policy(2);
    const maxent::KnnCounting knn{.k = 3, .min_distance = 1e-9};
    const maxent::Evaluation e =
        maxent::evaluate(world, filter, policy, 6, 11, 1, maxent::StateCounting::paper, knn);
    CHECK(e.observation_entropy_estimator == "knn");
    CHECK(e.true_entropy_knn_estimator == "knn");
    CHECK(e.knn_k == 3);
    std::vector<double> moe, mse, binned;
    maxent::EmpiricalCounter counter(10);
    // evaluate's records (believed states are drawn during the rollout), and the points
    maxent::RolloutOptions options{maxent::StateCounting::paper, {.belief_entropy = true, .believed_states = true}};
    options.needs.state_points = true;
    options.needs.observation_points = true;
    maxent::rollout_fixed_policy(world, filter, policy, options, 11, maxent::evaluation_stream_run, 0, 6,
                                 [&](std::size_t, const maxent::Trajectory& t, maxent::DefaultRng&) {
                                     maxent::KnnEntropy by_hand(3, 1e-9);
                                     moe.push_back(by_hand(t.counted_observation_points(), 1));
                                     mse.push_back(by_hand(t.counted_state_points(), 1));
                                     binned.push_back(maxent::true_state_entropy(t, counter));
                                 });
    CHECK(e.observation_entropy.mean == maxent::mean_interval(moe).mean);
    CHECK(e.true_entropy_knn.mean == maxent::mean_interval(mse).mean);
    CHECK(e.true_entropy.mean == maxent::mean_interval(binned).mean);
    CHECK(e.observation_entropy.n == 6);
    // any thread count, the same values
    const maxent::Evaluation e3 = maxent::evaluate(world, filter, policy, 6, 11, 3, maxent::StateCounting::paper, knn);
    CHECK(e3.observation_entropy.mean == e.observation_entropy.mean);
    CHECK(e3.true_entropy_knn.mean == e.true_entropy_knn.mean);
    // k = 0: nothing by kNN; without observation bins MOE is not computed (instead of refused)
    const maxent::Evaluation none =
        maxent::evaluate_uniform(world, filter, 6, 11, 1, maxent::StateCounting::paper, maxent::KnnCounting{.k = 0});
    CHECK(none.observation_entropy_estimator == "none");
    CHECK(none.observation_entropy.n == 0);
    CHECK(none.true_entropy_knn.n == 0);
    CHECK(none.true_entropy.mean == e.true_entropy.mean);
    CHECK_THROWS_AS(maxent::evaluate_uniform(world, filter, 6, 11, 1, maxent::StateCounting::paper,
                                             maxent::KnnCounting{.k = 2, .min_distance = -1.0}),
                    maxent::config_error);
}

TEST_CASE("evaluate bins a typed world's observations when the world bins them (the rescue range robot)",
          "[observation_types][evaluate][rescue]") {
    const TwoBeams beams{};
    maxent::DefaultRng g = maxent::stream(5);
    const maxent::ParticleFilter filter(beams, 10, Meters{}, maxent::ParticleFilterOptions{.particles = 8}, g);
    const maxent::Evaluation e = maxent::evaluate_uniform(beams, filter, 4, 2);
    CHECK(e.observation_entropy_estimator == "binned");
    CHECK(e.true_entropy_knn_estimator == "none");  // no state points
    CHECK(e.observation_entropy.n == 4);
    CHECK(e.observation_entropy.mean <= std::log(12.0) + 1e-12);

    maxent::RescueWorldOptions motion;
    motion.horizon = 20;
    const maxent::RescueRangeWorld range(maxent::RescueRangeOptions{.motion = motion});
    const auto binned = maxent::with_state_binning(range, 16, maxent::RescueGridBinning{4});
    const maxent::ParticleFilter pf(binned, 16, maxent::RescueGridBinning{4},
                                    maxent::ParticleFilterOptions{.particles = 50}, g);
    const maxent::Evaluation r = maxent::evaluate_uniform(binned, pf, 3, 1, 1, maxent::StateCounting::paper,
                                                          maxent::KnnCounting{.k = 3, .min_distance = 1e-9});
    CHECK(r.observation_entropy_estimator == "binned");
    CHECK(r.true_entropy_knn_estimator == "knn");
    CHECK(r.true_entropy.mean <= std::log(16.0) + 1e-12);
    CHECK(std::isfinite(r.true_entropy_knn.mean));
}

}  // namespace test_observation_types
