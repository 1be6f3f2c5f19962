// Allocation audit: after the first iteration, a training iteration allocates nothing.
//
// This file is its own executable so that it can replace the global allocator and turn on
// Eigen's run-time malloc check for every translation unit it contains (no ODR mixing with
// the unit tests). tests/support/counting_allocator.hpp counts both operator new and Eigen's
// own mallocs (see there), in Release builds too.
#include "counting_allocator.hpp"  // first: replaces operator new, defines eigen_assert

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/gaussian.hpp"
#include "maxent/policy/policies.hpp"

using maxent_alloc_count::counting;
using maxent_alloc_count::news;

namespace {
struct Audit {
    long operator_new = 0;
    long eigen_malloc = 0;
};

/// Runs `warmup` iterations, then counts allocations during `measured` iterations.
template <class Trainer>
Audit audit(Trainer& trainer, int warmup = 2, int measured = 20) {
    for (int i = 0; i < warmup; ++i) (void)trainer.iterate();
    news = 0;
    maxent_alloc_count::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    for (int i = 0; i < measured; ++i) (void)trainer.iterate();
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    return {news.load(), maxent_alloc_count::eigen_violations.load()};
}
}  // namespace

using namespace maxent;

TEST_CASE("the audit itself detects allocations", "[alloc]") {
    news = 0;
    maxent_alloc_count::eigen_violations = 0;
    Eigen::internal::set_is_malloc_allowed(false);
    counting = true;
    {
        Eigen::VectorXd v(100);  // Eigen dense allocation
        v.setZero();
        std::vector<double> w(static_cast<std::size_t>(v.size()) + static_cast<std::size_t>(news.load()));
        w[0] = v[0];  // operator new (a vector the optimiser cannot elide: its size is not known)
        CHECK(w.size() >= 100);
    }
    counting = false;
    Eigen::internal::set_is_malloc_allowed(true);
    CHECK(news.load() >= 1);
    CHECK(maxent_alloc_count::eigen_violations.load() >= 1);
}

namespace {
/// The paper's BA training (exact filter, batch mean, α = 0.3) with feedback F: checks that
/// iterations after the first allocate nothing.
template <class F>
void check_ba_training_allocates_nothing(const GridPomdp& m) {
    TrainerConfig cfg;
    cfg.iterations = 100;
    F feedback = [] {
        if constexpr (std::is_same_v<F, RegMBE>)
            return RegMBE(0.02);
        else
            return F{};
    }();
    Trainer trainer(m, BayesFilter(m), BeliefAveragedPolicy(m.num_states(), m.num_actions()), feedback,
                    BatchMeanBaseline{}, ConstantStep(0.3), cfg);
    const Audit a = audit(trainer);
    CHECK(a.operator_new == 0);
    CHECK(a.eigen_malloc == 0);
}
}  // namespace

TEMPLATE_TEST_CASE("after the first iteration, an iteration allocates nothing", "[alloc]", MSE, MOE, MBE, RegMBE) {
    check_ba_training_allocates_nothing<TestType>(paper_environment(PaperEnvironment::single_room_gaussian, 0.0, 10.0));
}

TEST_CASE("no allocation with other policies, estimators, Adam and the noisy oracle", "[alloc]") {
    const auto m = paper_environment(PaperEnvironment::four_rooms_room_id, 0.1);
    TrainerConfig cfg;
    cfg.iterations = 100;
    SECTION("S-tilde policy, optimal baseline, Adam, noisy beliefs") {
        Trainer trainer(m, NoisyBelief(BayesFilter(m), 0.03), BelievedStatePolicy(36, 4), RegMBE(0.02),
                        OptimalBaseline{}, Adam(0.05), cfg);
        const Audit a = audit(trainer);
        CHECK(a.operator_new == 0);
        CHECK(a.eigen_malloc == 0);
    }
    SECTION("observation policy, leave-one-out, authors' counting") {
        cfg.counting = StateCounting::authors;
        Trainer trainer(m, BayesFilter(m), ObservationPolicy(4, 4), MOE{}, LeaveOneOutBaseline{}, ConstantStep(0.3),
                        cfg);
        const Audit a = audit(trainer);
        CHECK(a.operator_new == 0);
        CHECK(a.eigen_malloc == 0);
    }
    SECTION("mixture policy, reinforce") {
        Trainer trainer(m, BayesFilter(m), BeliefMixturePolicy(36, 4), MBE{}, Reinforce{}, ConstantStep(0.3), cfg);
        const Audit a = audit(trainer);
        CHECK(a.operator_new == 0);
        CHECK(a.eigen_malloc == 0);
    }
}

TEMPLATE_TEST_CASE("no allocation on the support-tracking path (16 x 16 room, k = 10)", "[alloc]", MSE, MBE, RegMBE) {
    // Large enough that BayesFilter::support_tracking_pays(): the rollout keeps the belief's
    // support, the filter updates on it and the policy computes on it.
    const GridPomdp m = make_grid_world({.layout = GridLayout::single_room(16, 16),
                                         .slip = 0.0,
                                         .observation = observe::gaussian(10.0),
                                         .horizon = 60});
    REQUIRE(BayesFilter(m).support_tracking_pays());
    check_ba_training_allocates_nothing<TestType>(m);
}

TEMPLATE_TEST_CASE("no allocation with a particle filter on the rescue world (features, resampling, Miller-Madow)",
                   "[alloc]", MSE, MBE, RegMBE) {
    const RescueWorld rescue({.horizon = 40});
    const auto world = with_state_binning(rescue, 100, RescueGridBinning{10});
    DefaultRng g = stream(5);
    ParticleFilter filter(rescue, 16, RescueGridBinning{4}, BilinearGridFeatures(4, 4, Box{}, RescuePosition{}),
                          {.particles = 64, .resample_threshold = 0.9, .entropy = ParticleEntropy::miller_madow}, g);
    TrainerConfig cfg;
    cfg.iterations = 100;
    const TestType feedback = [] {
        if constexpr (std::is_same_v<TestType, RegMBE>)
            return RegMBE(0.02);
        else
            return TestType{};
    }();
    Trainer trainer(world, filter, BeliefAveragedPolicy(16, 4), feedback, BatchMeanBaseline{}, ConstantStep(0.3), cfg);
    const Audit a = audit(trainer);
    CHECK(a.operator_new == 0);
    CHECK(a.eigen_malloc == 0);
}

namespace {
/// A point in the unit square pushed by a velocity in [-0.1, 0.1]^2, an Eigen::VectorXd (a
/// dynamic action: the rollout must size it once), reading its distance to the origin.
struct Drift {
    using state_type = std::array<double, 2>;
    using action_type = Eigen::VectorXd;
    using observation_type = double;
    [[nodiscard]] ActionBox action_box() const { return ActionBox::uniform(2, -0.1, 0.1); }
    [[nodiscard]] std::size_t horizon() const { return 20; }
    template <class G>
    state_type sample_initial_state(G& g) const {
        return {uniform01(g), uniform01(g)};
    }
    template <class G>
    double sample_initial_observation(const state_type& s, G& g) const {
        return std::hypot(s[0], s[1]) + 0.05 * standard_normal(g);
    }
    template <class G>
    state_type sample_next_state(const state_type& s, const action_type& a, G& g) const {
        return {std::clamp(s[0] + a[0] + 0.01 * standard_normal(g), 0.0, 1.0),
                std::clamp(s[1] + a[1] + 0.01 * standard_normal(g), 0.0, 1.0)};
    }
    template <class G>
    double sample_observation(const action_type&, const state_type& s, G& g) const {
        return std::hypot(s[0], s[1]) + 0.05 * standard_normal(g);
    }
    [[nodiscard]] double observation_log_likelihood(const action_type&, double o, const state_type& s) const {
        const double z = (o - std::hypot(s[0], s[1])) / 0.05;
        return -0.5 * z * z;
    }
};
struct DriftBins {
    std::size_t operator()(const std::array<double, 2>& s) const {
        return std::min<std::size_t>(static_cast<std::size_t>(s[0] * 2), 1) * 2 +
               std::min<std::size_t>(static_cast<std::size_t>(s[1] * 2), 1);
    }
};
}  // namespace

TEST_CASE("no allocation with continuous actions (Gaussian policy, particle filter, dynamic action vector)",
          "[alloc]") {
    const Drift drift;
    const auto world = with_state_binning(drift, 4, DriftBins{});
    DefaultRng g = stream(6);
    ParticleFilter filter(drift, 4, DriftBins{}, {.particles = 32}, g);
    TrainerConfig cfg;
    cfg.iterations = 100;
    Trainer trainer(world, filter, GaussianPolicy(drift.action_box(), 4, {.state_dependent_std = true}), MSE{},
                    BatchMeanBaseline{}, Adam(0.05), cfg);
    const Audit a = audit(trainer);
    CHECK(a.operator_new == 0);
    CHECK(a.eigen_malloc == 0);
}

TEST_CASE("no allocation through the noisy oracle's fast paths at sigma = 0", "[alloc]") {
    // NoisyBelief at σ = 0 forwards the support path and the prior start of the exact filter
    // (16 x 16 room, k = 10: support tracking pays).
    const GridPomdp m = make_grid_world({.layout = GridLayout::single_room(16, 16),
                                         .slip = 0.0,
                                         .observation = observe::gaussian(10.0),
                                         .horizon = 60});
    TrainerConfig cfg;
    cfg.iterations = 100;
    Trainer trainer(m, make_noisy_belief(BayesFilter(m), 0.0), BeliefAveragedPolicy(m.num_states(), m.num_actions()),
                    MBE{}, BatchMeanBaseline{}, ConstantStep(0.3), cfg);
    REQUIRE(Sampler<GridPomdp, NoisyBelief<BayesFilter<GridPomdp>>>::starts_from_prior);
    REQUIRE(trainer.updater().support_tracking_pays());
    const Audit a = audit(trainer);
    CHECK(a.operator_new == 0);
    CHECK(a.eigen_malloc == 0);
}

TEST_CASE("no allocation in the kNN entropy estimator once its workspace has seen the size", "[alloc]") {
    // A KnnEntropy reused per thread (as the kNN feedbacks do): the first call sizes its tree
    // and buffers; later calls with the same or fewer points and the same dimension allocate
    // nothing, and give the first call's bits.
    for (const std::size_t dim : {std::size_t{1}, std::size_t{2}, std::size_t{6}}) {
        const std::size_t n = 500;
        std::vector<double> points(n * dim);
        DefaultRng g = stream(41, dim);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (double& x : points) x = u(g);
        KnnEntropy knn(3);
        const double first = knn(points, dim);
        news = 0;
        maxent_alloc_count::eigen_violations = 0;
        Eigen::internal::set_is_malloc_allowed(false);
        counting = true;
        const double again = knn(points, dim);
        const double fewer = knn(std::span<const double>(points).first((n / 2) * dim), dim);
        counting = false;
        Eigen::internal::set_is_malloc_allowed(true);
        INFO("dimension " << dim);
        CHECK(news.load() == 0);
        CHECK(maxent_alloc_count::eigen_violations.load() == 0);
        CHECK(again == first);
        CHECK(std::isfinite(fewer));
    }
}
