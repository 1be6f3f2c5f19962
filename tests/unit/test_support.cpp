// Tests of the belief-support path (core/support.hpp, BayesFilter::update_on_support, the
// rollout's SupportTrackingUpdater path, BeliefAveragedPolicy on a support): each O(|support|)
// computation is compared, bit for bit, with the dense computation it replaces, on random
// inputs and on trainings long enough to take every branch.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/support.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/step_recording.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/belief_mixture.hpp"
#include "maxent/policy/believed_state_policy.hpp"
#include "maxent/policy/observation_policy.hpp"
#include "maxent/policy/row_score.hpp"
#include "forward_only.hpp"
#include "random_pomdp.hpp"

namespace test_support {

namespace {

using maxent::sparse_index;

/// A vector with the given non-zero density and entries spread over many magnitudes.
Eigen::VectorXd random_sparse(maxent::DefaultRng& g, Eigen::Index n, double density) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = 0; i < n; ++i)
        if (maxent::uniform01(g) < density) v[i] = std::ldexp(0.5 + maxent::uniform01(g), -static_cast<int>(maxent::uniform_index(g, 40)));
    return v;
}

/// Entries of both signs over sixteen orders of magnitude (rounding differs between
/// association orders on such data, so equal bits mean equal orders).
Eigen::MatrixXd random_signed(maxent::DefaultRng& g, Eigen::Index rows, Eigen::Index cols) {
    Eigen::MatrixXd x(rows, cols);
    for (Eigen::Index c = 0; c < cols; ++c)
        for (Eigen::Index r = 0; r < rows; ++r)
            x(r, c) = (maxent::uniform01(g) < 0.5 ? -1.0 : 1.0) * (0.1 + maxent::uniform01(g)) *
                      std::pow(10.0, -8.0 + 16.0 * maxent::uniform01(g));
    return x;
}

std::vector<sparse_index> support_vector(const Eigen::VectorXd& v) {
    std::vector<sparse_index> s;
    maxent::support_of(v, s);
    return s;
}

/// The same updater without update_on_support: the rollout then takes the dense path.
template <class U>
class WithoutSupport {
public:
    explicit WithoutSupport(U u) : u_(std::move(u)) {}
    [[nodiscard]] std::size_t dimension() const { return u_.dimension(); }
    void initial(Eigen::VectorXd& b) const { u_.initial(b); }
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& g) {
        u_.update(b, a, o, g);
    }

private:
    U u_;
};

/// The same updater with the support path but without the prior start (prior(),
/// prior_support(), update_from_prior): the rollout then copies the prior into its belief
/// at every episode and takes update_on_support from it.
template <class U>
class WithoutPriorStart {
public:
    explicit WithoutPriorStart(U u) : u_(std::move(u)) {}
    [[nodiscard]] std::size_t dimension() const { return u_.dimension(); }
    void initial(Eigen::VectorXd& b) const { u_.initial(b); }
    void initial(Eigen::VectorXd& b, std::vector<sparse_index>& support) const { u_.initial(b, support); }
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& g) {
        u_.update(b, a, o, g);
    }
    template <std::uniform_random_bit_generator G>
    void update_on_support(Eigen::VectorXd& b, std::vector<sparse_index>& support, std::size_t a, std::size_t o,
                           G& g) {
        u_.update_on_support(b, support, a, o, g);
    }
    [[nodiscard]] bool support_tracking_pays() const { return u_.support_tracking_pays(); }

private:
    U u_;
};

using test_models::ForwardOnly;  // tests/support/forward_only.hpp

maxent::GridPomdp square_room(std::size_t side, double k, std::size_t horizon) {
    return maxent::make_grid_world({.layout = maxent::GridLayout::single_room(side, side),
                                    .slip = 0.0,
                                    .observation = maxent::observe::gaussian(k),
                                    .horizon = horizon});
}

}  // namespace

TEST_CASE("support_of lists the non-zero entries in ascending order", "[support]") {
    Eigen::VectorXd v(6);
    v << 0.0, 0.5, 0.0, -0.0, 0.25, 0.25;
    CHECK(support_vector(v) == std::vector<sparse_index>{1, 4, 5});
    CHECK(support_vector(Eigen::VectorXd::Zero(4)).empty());
    CHECK(support_vector(Eigen::VectorXd()).empty());
    CHECK(maxent::support_pays(3, 24));
    CHECK_FALSE(maxent::support_pays(4, 24));
}

TEST_CASE("support_dot and support_dot_columns return Eigen's dot products", "[support]") {
    // Exactly (==) when the build's packets make support_dot_matches_eigen true (the x86-64
    // baseline and unvectorised builds); otherwise to rounding.
    maxent::DefaultRng g(2026);
    int compared = 0;
    for (Eigen::Index n = 1; n <= 70; ++n) {
        for (int trial = 0; trial < 12; ++trial) {
            const double density = trial % 4 == 0 ? 1.0 : (trial % 4 == 1 ? 0.5 : 0.15);
            const Eigen::VectorXd y = random_sparse(g, n, density);
            const std::vector<sparse_index> support = support_vector(y);
            for (const Eigen::Index cols : {1, 2, 3, 4, 5, 8, 9, 12}) {
                const Eigen::MatrixXd x = random_signed(g, n, cols);
                std::vector<double> scratch(maxent::support_dot_scratch_per_column * static_cast<std::size_t>(cols));
                std::vector<double> out(static_cast<std::size_t>(cols));
                maxent::support_dot_columns(support, x.data(), static_cast<std::size_t>(n),
                                            static_cast<std::size_t>(cols), y.data(), scratch.data(), out.data());
                for (Eigen::Index c = 0; c < cols; ++c) {
                    const double expected = x.col(c).dot(y);
                    const double got = out[static_cast<std::size_t>(c)];
                    INFO("n = " << n << ", column " << c << " of " << cols << ", |support| = " << support.size());
                    if constexpr (maxent::support_dot_matches_eigen) {
                        REQUIRE(got == expected);
                    } else {
                        const double scale = (x.col(c).cwiseAbs().array() * y.array()).sum();
                        REQUIRE(std::abs(got - expected) <= 1e-12 * scale);
                    }
                    ++compared;
                }
                const Eigen::VectorXd x0 = x.col(0);
                if constexpr (maxent::support_dot_matches_eigen)
                    REQUIRE(maxent::support_dot(support, x0.data(), y.data(), static_cast<std::size_t>(n)) ==
                            x0.dot(y));
            }
        }
    }
    CHECK(compared == 70 * 12 * (1 + 2 + 3 + 4 + 5 + 8 + 9 + 12));
}

TEST_CASE("entropy and belief sampling on the support equal the dense ones", "[support]") {
    maxent::DefaultRng g(7);
    for (int trial = 0; trial < 200; ++trial) {
        Eigen::VectorXd p = random_sparse(g, 37, trial % 2 == 0 ? 0.2 : 0.8);
        if (p.sum() == 0.0) p[5] = 1.0;
        p /= p.sum();
        if (trial % 5 == 0) p *= 1.0 - 1e-3;  // sums below 1: the fallback to the last positive entry
        const std::vector<sparse_index> support = support_vector(p);
        REQUIRE(maxent::entropy_on_support(support, p) == maxent::entropy_unchecked(p));
        maxent::DefaultRng a(100 + static_cast<std::uint64_t>(trial)), b(100 + static_cast<std::uint64_t>(trial));
        for (int draw = 0; draw < 50; ++draw)
            REQUIRE(maxent::sample_categorical_on_support(support, p, a) == maxent::sample_categorical(p, b));
        REQUIRE(a() == b());  // one draw each
    }
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
    maxent::DefaultRng h(1);
    CHECK_THROWS_AS(maxent::sample_categorical_on_support(std::vector<sparse_index>{0, 2}, zero, h),
                    maxent::config_error);
}

TEST_CASE("BayesFilter::update_on_support gives update()'s posterior bit for bit", "[support][belief]") {
    // Trajectories of the true system, so that every observation is possible; both filters
    // start from the prior. Random sparse models (S = 48: dense and support steps mix) and
    // a 12 x 12 room with k = 10 (mostly support steps).
    auto check_model = [](const auto& m, std::uint64_t seed, int steps) {
        using Model = std::decay_t<decltype(m)>;
        maxent::BayesFilter<Model> tracked(m), dense(m);
        Eigen::VectorXd bt, bd;
        std::vector<sparse_index> support;
        tracked.initial(bt, support);
        dense.initial(bd);
        REQUIRE(support == support_vector(bd));
        maxent::DefaultRng g(seed);
        std::size_t s = maxent::sample_categorical(m.initial_distribution(), g);
        const std::size_t S = m.num_states();
        int on_support = 0, dense_steps = 0;
        for (int t = 0; t < steps; ++t) {
            if (t % 40 == 0) {  // restart from the prior now and then
                tracked.initial(bt, support);
                dense.initial(bd);
            }
            const std::size_t a = maxent::uniform_index(g, m.num_actions());
            s = maxent::sample_categorical(m.transition(s, a), g);
            const std::size_t o = maxent::sample_categorical(m.observation(a, s), g);
            (maxent::support_pays(support.size(), S) ? on_support : dense_steps) += 1;
            tracked.update_on_support(bt, support, a, o, g);
            dense.update(bd, a, o);
            REQUIRE((bt.array() == bd.array()).all());
            REQUIRE(support == support_vector(bd));
        }
        return std::pair{on_support, dense_steps};
    };
    int on_support = 0, dense_steps = 0;
    for (std::uint64_t seed : {11u, 12u, 13u}) {
        const auto [x, y] = check_model(maxent_test::random_model(seed, 48, 3, 40), seed, 400);
        on_support += x;
        dense_steps += y;
    }
    const auto [x, y] = check_model(square_room(12, 10.0, 30), 5, 400);
    CHECK(x > 300);  // the room: almost every step on the support
    on_support += x;
    dense_steps += y;
    CHECK(on_support > 600);
    CHECK(dense_steps > 50);
}

TEST_CASE("update_on_support: errors name the value and leave belief and support unchanged", "[support][belief]") {
    const maxent::GridPomdp m = square_room(12, 10.0, 30);
    maxent::BayesFilter<maxent::GridPomdp> filter(m);
    maxent::DefaultRng g(3);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(144);
    b[0] = 0.75;
    b[1] = 0.25;
    std::vector<sparse_index> support{0, 1};
    const Eigen::VectorXd b0 = b;

    // Observing the far corner after a step from the near one: Obs(o | s) = 0 on the support.
    const std::size_t far = 143;
    REQUIRE(m.likelihood(0, far)(0) == 0.0);
    try {
        filter.update_on_support(b, support, 0, far, g, 4);
        FAIL("no zero_likelihood_error");
    } catch (const maxent::zero_likelihood_error& e) {
        CHECK(e.step() == 4);
        CHECK_THAT(std::string(e.what()), Catch::Contains("observation 143") && Catch::Contains("at step 4"));
    }
    CHECK((b.array() == b0.array()).all());
    CHECK(support == std::vector<sparse_index>{0, 1});

    b[1] = -0.25;
    CHECK_THROWS_WITH(filter.update_on_support(b, support, 0, 0, g), Catch::Contains("belief entry 1 is -0.25"));
    CHECK(b[1] == -0.25);
    CHECK(b[0] == 0.75);
    b[1] = std::nan("");
    CHECK_THROWS_WITH(filter.update_on_support(b, support, 0, 0, g), Catch::Contains("belief entry 1 is nan"));
    b[0] = 0.0;
    b[1] = 0.0;
    CHECK_THROWS_WITH(filter.update_on_support(b, support, 0, 0, g), Catch::Contains("total mass 0"));
    CHECK_THROWS_WITH(filter.update_on_support(b, support, 4, 0, g), Catch::Contains("action index 4"));
    CHECK(support == std::vector<sparse_index>{0, 1});

    b = b0;
    std::vector<sparse_index> bad{0, 1, 200};
    CHECK_THROWS_WITH(filter.update_on_support(b, bad, 0, 0, g),
                      Catch::Contains("support entry 200 is outside [0, 144)"));
    CHECK((b.array() == b0.array()).all());  // the entries already cleared are restored
    CHECK(bad == std::vector<sparse_index>{0, 1, 200});
}

TEST_CASE("the filter tracks the support where the likelihood columns are short", "[support][belief]") {
    const maxent::GridPomdp big = square_room(12, 10.0, 30);
    const maxent::GridPomdp room = maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, 10.0);
    const maxent::GridPomdp rooms = maxent::paper_environment(maxent::PaperEnvironment::four_rooms_gaussian, 0.0, 0.1);
    CHECK(maxent::BayesFilter<maxent::GridPomdp>(big).support_tracking_pays());
    CHECK_FALSE(maxent::BayesFilter<maxent::GridPomdp>(room).support_tracking_pays());   // columns of ~13 of 25
    CHECK_FALSE(maxent::BayesFilter<maxent::GridPomdp>(rooms).support_tracking_pays());  // columns of 36 of 36
    STATIC_REQUIRE(maxent::SupportTrackingUpdater<maxent::BayesFilter<maxent::GridPomdp>>);
    STATIC_REQUIRE_FALSE(maxent::SupportTrackingUpdater<WithoutSupport<maxent::BayesFilter<maxent::GridPomdp>>>);
}

TEST_CASE("BeliefAveragedPolicy::sample on a support draws the same action and adds the same score",
          "[support][policies]") {
    maxent::DefaultRng g(99);
    for (const std::size_t A : {4u, 11u}) {  // 11: more actions than the unrolled kernels
        maxent::BeliefAveragedPolicy with(64, A), without(64, A);
        with.parameters() = random_signed(g, 64, static_cast<Eigen::Index>(A)) * 1e-6;
        with.parameters().col(1) *= 1e6;
        without.parameters() = with.parameters();
        for (int trial = 0; trial < 300; ++trial) {
            Eigen::VectorXd b = random_sparse(g, 64, 0.08);
            if (b.sum() == 0.0) b[63] = 1.0;
            b /= b.sum();
            const std::vector<sparse_index> support = support_vector(b);
            if (!maxent::support_pays(support.size(), 64)) continue;
            Eigen::MatrixXd score_with = random_signed(g, 64, static_cast<Eigen::Index>(A));
            Eigen::MatrixXd score_without = score_with;
            maxent::DefaultRng gw(static_cast<std::uint64_t>(trial)), go(static_cast<std::uint64_t>(trial));
            const maxent::AgentView vw{0, 0, b, support, true};
            const maxent::AgentView vo{0, 0, b};
            REQUIRE(with.sample(vw, gw, score_with) == without.sample(vo, go, score_without));
            REQUIRE((score_with.array() == score_without.array()).all());
            REQUIRE(gw() == go());
        }
    }
}

TEMPLATE_TEST_CASE("mixture policies on a support: same actions, scores, probabilities and gradients",
                   "[support][policies]", maxent::BeliefMixturePolicy, maxent::BelievedStatePolicy) {
    maxent::DefaultRng g(123);
    TestType with(64, 5), without(64, 5);
    with.parameters() = random_signed(g, 64, 5) * 1e-7;
    without.parameters() = with.parameters();
    for (int trial = 0; trial < 300; ++trial) {
        Eigen::VectorXd b = random_sparse(g, 64, 0.1);
        if (b.sum() == 0.0) b[7] = 1.0;
        b /= b.sum();
        std::vector<sparse_index> support = support_vector(b);
        if (trial % 3 == 0) support.insert(support.begin(), 0);  // a listed zero (a superset) is allowed
        if (trial % 3 == 0 && b[0] != 0.0) support.erase(support.begin());
        const maxent::AgentView vw{0, 0, b, support, true};
        const maxent::AgentView vo{0, 0, b};
        Eigen::MatrixXd score_with = random_signed(g, 64, 5);
        Eigen::MatrixXd score_without = score_with;
        maxent::DefaultRng gw(static_cast<std::uint64_t>(trial)), go(static_cast<std::uint64_t>(trial));
        const std::size_t a = with.sample(vw, gw, score_with);
        REQUIRE(a == without.sample(vo, go, score_without));
        REQUIRE((score_with.array() == score_without.array()).all());
        REQUIRE(gw() == go());
        Eigen::VectorXd pw, po;
        with.probabilities(vw, pw);
        without.probabilities(vo, po);
        REQUIRE((pw.array() == po.array()).all());
        Eigen::MatrixXd gradient_with = Eigen::MatrixXd::Zero(64, 5), gradient_without = gradient_with;
        with.log_gradient(vw, a, gradient_with);
        without.log_gradient(vo, a, gradient_without);
        REQUIRE((gradient_with.array() == gradient_without.array()).all());
    }
    // The checks of the belief see the support's entries.
    Eigen::VectorXd bad = Eigen::VectorXd::Zero(64);
    bad[3] = -1.0;
    bad[4] = 2.0;
    const std::vector<sparse_index> support{3, 4};
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(64, 5);
    CHECK_THROWS_WITH(with.sample(maxent::AgentView{0, 0, bad, support, true}, g, score),
                      Catch::Contains("belief entry 3 is -1"));
}

TEST_CASE("training with the support-tracking rollout is bit for bit training without it", "[support][optim]") {
    // 12 x 12 room, k = 10: the rollout tracks the support (the policy's logits and score and
    // MBE's believed states and the belief entropies all take the support path); the wrapper
    // hides update_on_support, so the same training runs on the dense path.
    const maxent::GridPomdp m = square_room(12, 10.0, 40);
    maxent::TrainerConfig config;
    config.iterations = 12;
    config.batch = 4;
    config.seed = 17;
    config.track_belief_entropy = true;
    maxent::Trainer tracked(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()),
                            maxent::MBE{}, maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    maxent::Trainer dense(m, WithoutSupport(maxent::BayesFilter(m)),
                          maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()), maxent::MBE{},
                          maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    const maxent::TrainResult x = tracked.run();
    const maxent::TrainResult y = dense.run();
    REQUIRE(x.history.size() == 12);
    REQUIRE(y.history.size() == 12);
    for (std::size_t k = 0; k < 12; ++k) {
        REQUIRE(x.history[k].true_entropy == y.history[k].true_entropy);
        REQUIRE(x.history[k].feedback == y.history[k].feedback);
        REQUIRE(x.history[k].belief_entropy_sum == y.history[k].belief_entropy_sum);
        REQUIRE(x.history[k].gradient_norm == y.history[k].gradient_norm);
    }
    REQUIRE((x.parameters.array() == y.parameters.array()).all());
    CHECK(x.parameters.cwiseAbs().maxCoeff() > 0.0);  // it learned something
}

TEST_CASE("BayesFilter::update_from_prior gives initial + update_on_support bit for bit", "[support][belief]") {
    // Episodes of the true system; the filter under test starts each from its prior with a
    // belief left over from the previous episode (zero outside its support), the reference
    // copies the prior in and updates on its support. Spread priors (uniform: the
    // prediction on one likelihood column, backward and forward) and a point prior (the
    // fallback, literally the two calls).
    auto check = [](const auto& m, const auto& filter, std::uint64_t seed) {
        auto tested = filter;
        auto reference = filter;
        Eigen::VectorXd bt, br;
        std::vector<sparse_index> st, sr;
        tested.initial(bt);  // dirty: zero outside st only after the first episode's clearing
        bt.setZero();
        maxent::DefaultRng g(seed);
        for (int episode = 0; episode < 30; ++episode) {
            std::size_t s = maxent::sample_categorical(m.initial_distribution(), g);
            for (int t = 0; t < 6; ++t) {
                const std::size_t a = maxent::uniform_index(g, m.num_actions());
                s = maxent::sample_categorical(m.transition(s, a), g);
                const std::size_t o = maxent::sample_categorical(m.observation(a, s), g);
                if (t == 0) {
                    tested.update_from_prior(bt, st, a, o, g);
                    reference.initial(br, sr);
                    reference.update_on_support(br, sr, a, o, g);
                } else {
                    tested.update_on_support(bt, st, a, o, g);
                    reference.update_on_support(br, sr, a, o, g);
                }
                REQUIRE((bt.array() == br.array()).all());
                REQUIRE(st == sr);
            }
        }
    };
    const maxent::GridPomdp room = square_room(12, 10.0, 30);
    check(room, maxent::BayesFilter<maxent::GridPomdp>(room), 3);
    check(room, maxent::BayesFilter<maxent::GridPomdp>(room, maxent::model_prior), 4);
    const ForwardOnly<maxent::GridPomdp> forward(room);
    STATIC_REQUIRE_FALSE(maxent::model_has_transposed_transitions<ForwardOnly<maxent::GridPomdp>>);
    check(forward, maxent::BayesFilter<ForwardOnly<maxent::GridPomdp>>(forward), 5);
    for (std::uint64_t seed : {21u, 22u}) {
        const auto m = maxent_test::random_model(seed, 48, 3, 40);
        check(m, maxent::BayesFilter<std::decay_t<decltype(m)>>(m), seed);
    }
}

TEST_CASE("episodes started from the filter's prior are the episodes that copy it", "[support][optim]") {
    // Every need (entropies, believed states, the belief record) and a non-zero θ; the
    // reference hides the prior start, so its episodes copy the prior in.
    const maxent::GridPomdp m = square_room(12, 10.0, 30);
    maxent::RolloutOptions options;
    options.needs = {.belief_entropy = true, .believed_states = true, .beliefs = true};
    maxent::Sampler tested(m, maxent::BayesFilter(m), options);
    maxent::Sampler reference(m, WithoutPriorStart(maxent::BayesFilter(m)), options);
    REQUIRE(tested.tracks_support());
    REQUIRE(reference.tracks_support());
    maxent::BeliefAveragedPolicy policy(m.num_states(), m.num_actions());
    for (Eigen::Index i = 0; i < policy.parameters().size(); ++i)
        policy.parameters().data()[i] = std::sin(0.37 * static_cast<double>(i));
    Eigen::MatrixXd score_t = Eigen::MatrixXd::Zero(policy.parameters().rows(), policy.parameters().cols());
    Eigen::MatrixXd score_r = score_t;
    for (std::uint64_t e = 0; e < 40; ++e) {
        if (e == 20) {  // a new prior mid-way (a point start)
            tested.set_updater(maxent::BayesFilter<maxent::GridPomdp>(m, maxent::model_prior));
            reference.set_updater(WithoutPriorStart(maxent::BayesFilter<maxent::GridPomdp>(m, maxent::model_prior)));
        }
        maxent::DefaultRng gt = maxent::stream(9, e, 0), gr = maxent::stream(9, e, 0);
        const maxent::Trajectory& x = tested.run(policy, gt, score_t);
        const maxent::Trajectory& y = reference.run(policy, gr, score_r);
        REQUIRE(x.states == y.states);
        REQUIRE(x.observations == y.observations);
        REQUIRE(x.actions == y.actions);
        REQUIRE(x.believed == y.believed);
        REQUIRE(x.belief_entropy == y.belief_entropy);
        REQUIRE((x.beliefs.array() == y.beliefs.array()).all());
        REQUIRE((score_t.array() == score_r.array()).all());
    }
}

// ---------------------------------------------------------------------------------------
// Decorators keep the speed hooks: NoisyBelief (an updater decorator) and the trainer's
// policy views (RowScoringView, StepRecordingView) forward every optional member that only
// makes things faster, and the fast paths behind them give the undecorated dense bits.
// ---------------------------------------------------------------------------------------
namespace {
using Filter = maxent::BayesFilter<maxent::GridPomdp>;
using Noisy = maxent::NoisyBelief<Filter>;
}  // namespace

TEST_CASE("every decorator forwards the whole bundle of speed hooks", "[support][decorators]") {
    STATIC_REQUIRE(maxent::updater_speed_hooks<Filter>.support_tracking);
    STATIC_REQUIRE(maxent::updater_speed_hooks<Filter>.says_whether_tracking_pays);
    STATIC_REQUIRE(maxent::updater_speed_hooks<Filter>.prior_start);
    STATIC_REQUIRE(maxent::keeps_updater_speed_hooks<Noisy, Filter>);
    STATIC_REQUIRE(maxent::Sampler<maxent::GridPomdp, Noisy>::starts_from_prior);
    // The check can fail: an updater without the prior start does not keep the filter's hooks.
    STATIC_REQUIRE_FALSE(maxent::keeps_updater_speed_hooks<WithoutPriorStart<Filter>, Filter>);
    STATIC_REQUIRE_FALSE(maxent::Sampler<maxent::GridPomdp, WithoutPriorStart<Filter>>::starts_from_prior);

    using BA = maxent::BeliefAveragedPolicy;
    using O = maxent::ObservationPolicy;
    STATIC_REQUIRE(maxent::keeps_policy_speed_hooks<maxent::RowScoringView<BA>, BA>);
    STATIC_REQUIRE(maxent::keeps_policy_speed_hooks<maxent::StepRecordingView<BA>, BA>);
    STATIC_REQUIRE(maxent::keeps_policy_speed_hooks<maxent::StepRecordingView<O>, O>);
    STATIC_REQUIRE_FALSE(maxent::policy_needs_belief<maxent::StepRecordingView<O>>);
    STATIC_REQUIRE_FALSE(maxent::keeps_policy_speed_hooks<maxent::StepRecordingView<BA>, O>);
}

TEST_CASE("NoisyBelief at sigma = 0 takes the prior start with the dense filter's bits", "[support][decorators]") {
    // Three samplers on one room: the noisy oracle at σ = 0 (support path, prior start through
    // the decorator), the bare filter (the same fast paths), and the filter with the support
    // path hidden (the dense reference loop).
    const maxent::GridPomdp m = square_room(12, 10.0, 30);
    maxent::RolloutOptions options;
    options.needs = {.belief_entropy = true, .believed_states = true, .beliefs = true};
    maxent::Sampler noisy(m, maxent::make_noisy_belief(maxent::BayesFilter(m), 0.0), options);
    maxent::Sampler bare(m, maxent::BayesFilter(m), options);
    maxent::Sampler dense(m, WithoutSupport(maxent::BayesFilter(m)), options);
    REQUIRE(noisy.tracks_support());
    REQUIRE_FALSE(dense.tracks_support());
    maxent::BeliefAveragedPolicy policy(m.num_states(), m.num_actions());
    for (Eigen::Index i = 0; i < policy.parameters().size(); ++i)
        policy.parameters().data()[i] = std::cos(0.29 * static_cast<double>(i));
    const Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(policy.parameters().rows(), policy.parameters().cols());
    Eigen::MatrixXd sn = zero, sb = zero, sd = zero;
    std::size_t updates = 0;
    for (std::uint64_t e = 0; e < 30; ++e) {
        maxent::DefaultRng gn = maxent::stream(5, e, 0), gb = maxent::stream(5, e, 0), gd = maxent::stream(5, e, 0);
        const maxent::Trajectory& x = noisy.run(policy, gn, sn);
        const maxent::Trajectory& y = bare.run(policy, gb, sb);
        const maxent::Trajectory& z = dense.run(policy, gd, sd);
        updates += x.actions.size();
        for (const maxent::Trajectory* other : {&y, &z}) {
            REQUIRE(x.states == other->states);
            REQUIRE(x.actions == other->actions);
            REQUIRE(x.believed == other->believed);
            REQUIRE(x.belief_entropy == other->belief_entropy);
            REQUIRE((x.beliefs.array() == other->beliefs.array()).all());
        }
        REQUIRE((sn.array() == sb.array()).all());
        REQUIRE((sn.array() == sd.array()).all());
    }
    CHECK(noisy.updater().stats().updates == updates);  // every update, the first included, counted
}

TEST_CASE("NoisyBelief::update_from_prior is initial + update_on_support at any sigma", "[support][decorators]") {
    const maxent::GridPomdp m = square_room(8, 10.0, 20);
    for (const double sigma : {0.0, 0.03}) {
        Noisy tested = maxent::make_noisy_belief(maxent::BayesFilter(m), sigma);
        Noisy reference = tested;
        Eigen::VectorXd bt, br;
        std::vector<sparse_index> st, sr;
        tested.initial(bt, st);
        maxent::DefaultRng gt(11), gr(11), world(12);
        for (int episode = 0; episode < 10; ++episode) {
            std::size_t s = maxent::sample_categorical(m.initial_distribution(), world);
            for (int t = 0; t < 5; ++t) {
                const std::size_t a = maxent::uniform_index(world, m.num_actions());
                s = maxent::sample_categorical(m.transition(s, a), world);
                const std::size_t o = maxent::sample_categorical(m.observation(a, s), world);
                if (t == 0) {
                    tested.update_from_prior(bt, st, a, o, gt);
                    reference.initial(br, sr);
                    reference.update_on_support(br, sr, a, o, gr);
                } else {
                    tested.update_on_support(bt, st, a, o, gt);
                    reference.update_on_support(br, sr, a, o, gr);
                }
                REQUIRE((bt.array() == br.array()).all());
                REQUIRE(st == sr);
            }
        }
        CHECK(tested.stats().updates == reference.stats().updates);
        CHECK(tested.stats().clipped_entries == reference.stats().clipped_entries);
        if (sigma > 0.0) CHECK(tested.stats().clipped_entries > 0);  // the noise was applied
    }
}

TEST_CASE("training through the decorators keeps the dense path's bits", "[support][decorators][optim]") {
    // The noisy oracle at σ = 0 on the row-sparse path (RowScoringView, the batch base, the
    // prior start through NoisyBelief) against the bare filter on the dense reference loop;
    // and the per-step path (StepRecordingView) against the same estimator's totals.
    const maxent::GridPomdp m = square_room(16, 10.0, 12);
    maxent::TrainerConfig config;
    config.iterations = 8;
    config.batch = 2;  // 8 N K <= 256 rows: the automatic choice is the row path
    config.seed = 23;
    maxent::Trainer rows(m, maxent::make_noisy_belief(maxent::BayesFilter(m), 0.0),
                         maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()), maxent::MBE{},
                         maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    REQUIRE(rows.uses_row_scores());
    config.scores = maxent::ScorePath::dense;
    maxent::Trainer dense(m, WithoutSupport(maxent::BayesFilter(m)),
                          maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()), maxent::MBE{},
                          maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    REQUIRE_FALSE(dense.uses_row_scores());
    const maxent::TrainResult x = rows.run();
    const maxent::TrainResult y = dense.run();
    REQUIRE(x.history.size() == y.history.size());
    for (std::size_t k = 0; k < x.history.size(); ++k) {
        REQUIRE(x.history[k].true_entropy == y.history[k].true_entropy);
        REQUIRE(x.history[k].feedback == y.history[k].feedback);
        REQUIRE(x.history[k].belief_entropy_sum == y.history[k].belief_entropy_sum);
        REQUIRE(x.history[k].gradient_norm == y.history[k].gradient_norm);
    }
    REQUIRE((x.parameters.array() == y.parameters.array()).all());
    CHECK(x.parameters.cwiseAbs().maxCoeff() > 0.0);

    // StepRecordingView: the same draws and the same total score as the policy itself, each
    // step's term kept apart.
    maxent::Sampler sampler(m, maxent::BayesFilter(m));
    REQUIRE(sampler.tracks_support());
    maxent::BeliefAveragedPolicy policy(m.num_states(), m.num_actions());
    policy.parameters() = x.parameters;
    const std::size_t K = maxent::Trajectory::actions_for(maxent::StateCounting::paper, m.horizon());
    std::vector<Eigen::MatrixXd> steps(K);
    Eigen::MatrixXd direct = Eigen::MatrixXd::Zero(policy.parameters().rows(), policy.parameters().cols());
    Eigen::MatrixXd recorded = direct;
    for (std::uint64_t e = 0; e < 5; ++e) {
        maxent::DefaultRng g1 = maxent::stream(2, e, 0), g2 = maxent::stream(2, e, 0);
        const std::vector<std::size_t> a1 = sampler.run(policy, g1, direct).actions;
        maxent::StepRecordingView<maxent::BeliefAveragedPolicy> view(policy, steps);
        const std::vector<std::size_t> a2 = sampler.run(view, g2, recorded).actions;
        REQUIRE(a1 == a2);
        REQUIRE((direct.array() == recorded.array()).all());
        Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(direct.rows(), direct.cols());
        for (const Eigen::MatrixXd& step : steps) sum += step;
        REQUIRE((sum.array() == recorded.array()).all());
    }
}

}  // namespace test_support
