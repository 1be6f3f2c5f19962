// Tests of bad input that must end in a maxent::error, not in a crash, a hang,
// std::bad_alloc or a NaN/inf result: huge horizons and batches (core/budget.hpp), deep and
// huge horizons in the exact enumeration (objective/exact.hpp), non-finite numbers in step
// rules, estimators, the trainer and the entropy helpers (core/finite.hpp).
#include <catch2/catch.hpp>

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
#include "maxent/core/budget.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "ring_model.hpp"

namespace test_reliability {

using namespace maxent;

namespace {

using Model = FinitePomdp<int, int, int>;
constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();
constexpr double inf = std::numeric_limits<double>::infinity();

/// One state, one action, one observation: a single trajectory for any horizon.
Model single_state(std::size_t horizon) {
    const Eigen::MatrixXd one = Eigen::MatrixXd::Ones(1, 1);
    return Model({0}, {0}, {0}, std::vector<Eigen::MatrixXd>{one}, std::vector<Eigen::MatrixXd>{one},
                 Eigen::VectorXd::Ones(1), horizon);
}

using test_models::ring_model;

/// The README's ring of 6 rooms (actions 0 = back, 1 = forward), sensor "warm"/"cold".
FinitePomdp<int, int, std::string> readme_ring(std::size_t horizon) {
    using Dist = std::vector<std::pair<int, double>>;
    return FinitePomdp<int, int, std::string>::from_functions(
        {0, 1, 2, 3, 4, 5}, {0, 1}, {"warm", "cold"},
        [](int room, int a) { return Dist{{(room + (a == 1 ? 1 : 5)) % 6, 0.9}, {room, 0.1}}; },
        [](int room) {
            return std::vector<std::pair<std::string, double>>{{"warm", room < 3 ? 0.8 : 0.2},
                                                               {"cold", room < 3 ? 0.2 : 0.8}};
        },
        {{0, 1.0}}, horizon);
}

TrainerConfig iterations(std::size_t k) {
    TrainerConfig c;
    c.iterations = k;
    return c;
}

}  // namespace

TEST_CASE("byte costs are counted without overflow", "[reliability][budget]") {
    CHECK(BufferCost{}.add({3, 5}, 8).add({2}, 4).bytes() == 3 * 5 * 8 + 2 * 4);
    CHECK_FALSE(BufferCost{}.add({3, 5}, 8).overflowed());
    CHECK(BufferCost{}.add({size_max / 2 + 1, 2}, 1).overflowed());
    CHECK(BufferCost{}.add({size_max}, 1).add({1}, 1).overflowed());
    CHECK_FALSE(BufferCost{}.add({size_max}, 1).overflowed());
    CHECK(BufferCost{}.add({size_max, 0}, 8).bytes() == 0);
    // K = 9 actions, 3 states: 10 steps of (state, observation, believed state, entropy),
    // 9 actions, and the 3 x 10 belief matrix.
    CHECK(trajectory_record_cost(3, 9, {.beliefs = true}).bytes() == 10 * 32 + 9 * 8 + 3 * 10 * 8);
    CHECK(trajectory_record_cost(3, size_max, {}).overflowed());
    CHECK_NOTHROW(check_buffer_budget(BufferCost{}.add({max_buffer_bytes}, 1), "fits"));
    REQUIRE_THROWS_WITH(check_buffer_budget(BufferCost{}.add({max_buffer_bytes, 1}, 1).add({1}, 1), "x = ", 7),
                        Catch::Contains("x = 7") && Catch::Contains(std::to_string(max_buffer_bytes + 1)));
}

TEST_CASE("huge horizons and batches are refused with budget_error before allocating", "[reliability][budget]") {
    const Model m = ring_model(1'000'000'000'000);
    REQUIRE_THROWS_AS(Sampler(m, BayesFilter(m)), budget_error);
    REQUIRE_THROWS_WITH(Sampler(m, BayesFilter(m)),
                        Catch::Contains("T = 1000000000000") && Catch::Contains("bytes") &&
                            Catch::Contains("max_buffer_bytes"));
    // K + 1 = SIZE_MAX + 1 steps under the authors' counting.
    const Model top = ring_model(size_max);
    REQUIRE_THROWS_WITH(Sampler(top, BayesFilter(top), RolloutOptions{StateCounting::authors, {}}),
                        Catch::Contains(std::to_string(size_max)) && Catch::Contains("more bytes"));
    REQUIRE_THROWS_AS(train(m, BayesFilter(m), BeliefAveragedPolicy(3, 2), MSE{}, Reinforce{}, ConstantStep(0.1),
                            iterations(1)),
                      budget_error);
    TrainerConfig authors = iterations(1);
    authors.counting = StateCounting::authors;
    REQUIRE_THROWS_AS(train(top, BayesFilter(top), BeliefAveragedPolicy(3, 2), MSE{}, Reinforce{}, ConstantStep(0.1),
                            authors),
                      budget_error);

    // A model file with a huge horizon.
    ReadOptions read;
    read.horizon = 1'000'000'000'000;
    const PomdpFile f = parse_pomdp("states: a b\nactions: x\nobservations: o\nT: x identity\nO: x uniform\n",
                                    "huge.pomdp", read);
    REQUIRE_THROWS_AS(train(f.model, BayesFilter(f.model), BeliefAveragedPolicy(2, 1), MSE{}, Reinforce{},
                            ConstantStep(0.1), iterations(1)),
                      budget_error);

    // Batch buffers: N dense scores (N = 10^15), or N compact N·K x A matrices (row-sparse).
    const Model small = ring_model(100);
    TrainerConfig many = iterations(1);
    many.batch = 1'000'000'000'000'000;
    REQUIRE_THROWS_WITH(Trainer(small, BayesFilter(small), BeliefAveragedPolicy(3, 2), MSE{}, Reinforce{},
                                ConstantStep(0.1), many),
                        Catch::Contains("N = 1000000000000000") && Catch::Contains("max_buffer_bytes"));
    many.batch = 20000;  // 20000 x (20000 · 99 x 2) doubles: 634 GB
    REQUIRE_THROWS_AS(Trainer(small, BayesFilter(small), TabularBeliefPolicy(3, 2), MSE{}, Reinforce{},
                              ConstantStep(0.1), many),
                      budget_error);
    // The history of 10^12 iterations.
    REQUIRE_THROWS_WITH(train(small, BayesFilter(small), BeliefAveragedPolicy(3, 2), MSE{}, Reinforce{},
                              ConstantStep(0.1), iterations(1'000'000'000'000)),
                        Catch::Contains("history") && Catch::Contains("1000000000000 iterations"));
}

TEST_CASE("exact objective: horizons above max_horizon are refused before recursing", "[reliability][exact]") {
    // One trajectory, so the leaf budget passes; the recursion depth is T. 30000 frames
    // overflowed an 8 MB stack (Release; 10000 with ASan).
    const BeliefAveragedPolicy policy(1, 1);
    const Model deep = single_state(30000);
    CHECK(exact_leaf_bound(deep, MBE{}.needs(), StateCounting::paper) == 1);
    REQUIRE_THROWS_AS(exact_objective(deep, policy, MSE{}), budget_error);
    REQUIRE_THROWS_WITH(exact_objective(deep, policy, MBE{}),
                        Catch::Contains("T = 30000") && Catch::Contains("max_horizon = 1000"));
    REQUIRE_THROWS_AS(exact_objective_value(deep, policy, MSE{}), budget_error);

    // At the limit the single trajectory is enumerated: one state, entropy 0, probability 1.
    const ExactResult r = exact_objective(single_state(1000), policy, MBE{});
    CHECK(r.objective == Approx(0.0).margin(1e-12));
    CHECK(r.leaves == 1);
    CHECK(r.probability == 1.0);
    // The limit is an option: the horizon itself is compared with it.
    CHECK_NOTHROW(exact_objective(single_state(50), policy, MSE{}, {.max_horizon = 50}));
    CHECK_THROWS_AS(exact_objective(single_state(51), policy, MSE{}, {.max_horizon = 50}), budget_error);
}

TEST_CASE("exact objective: the leaf bound of a huge horizon is immediate and said in words",
          "[reliability][exact]") {
    // 2 · 2 · 8^(T-1) = 2^(3T - 1): exact at T = 21 (2^62), saturated from T = 22 (2^65).
    CHECK(exact_leaf_bound(ring_model(21), MSE{}.needs(), StateCounting::paper) == std::size_t{1} << 62);
    CHECK(exact_leaf_bound(ring_model(22), MSE{}.needs(), StateCounting::paper) == size_max);
    // These looped over every step (T = 10^9 took 0.56 s; 10^12 or SIZE_MAX never returned).
    CHECK(exact_leaf_bound(ring_model(1'000'000'000'000), MBE{}.needs(), StateCounting::paper) == size_max);
    CHECK(exact_leaf_bound(ring_model(size_max), MSE{}.needs(), StateCounting::authors) == size_max);
    CHECK(exact_leaf_bound(single_state(size_max), MBE{}.needs(), StateCounting::authors) == 1);

    const BeliefAveragedPolicy policy(3, 2);
    const Model huge = ring_model(1'000'000'000'000);
    REQUIRE_THROWS_AS(exact_objective(huge, policy, MSE{}), budget_error);
    try {
        (void)exact_objective(huge, policy, MSE{});
    } catch (const budget_error& e) {
        const std::string what = e.what();
        CHECK_THAT(what, Catch::Contains("more trajectories") && Catch::Contains("than a std::size_t can count") &&
                             Catch::Contains("T = 1000000000000"));
        CHECK_THAT(what, !Catch::Contains(std::to_string(size_max)));
    }
    // A policy that does not fit is reported as such, before the leaf budget.
    REQUIRE_THROWS_AS(exact_objective(huge, BeliefAveragedPolicy(2, 2), MSE{}), config_error);
    REQUIRE_THROWS_AS(exact_objective(ring_model(100), BeliefAveragedPolicy(3, 3), MBE{}), config_error);
}

TEST_CASE("the trainer stops with numeric_error when θ or the gradient norm overflows", "[reliability][numeric]") {
    const auto ring = readme_ring(6);
    // F ≈ -1e300 · Σ H(b_t): the gradient is finite but α g overflows θ.
    REQUIRE_THROWS_AS(train(ring, BayesFilter(ring), BeliefAveragedPolicy(6, 2), RegMBE(1e300), Reinforce{},
                            ConstantStep(1e300), iterations(1)),
                      numeric_error);
    REQUIRE_THROWS_WITH(train(ring, BayesFilter(ring), BeliefAveragedPolicy(6, 2), RegMBE(1e300), Reinforce{},
                              ConstantStep(1e300), iterations(1)),
                        Catch::Contains("parameters") && Catch::Contains("iteration 0") && Catch::Contains("inf"));
    // The same on the row-sparse path (touched rows only).
    REQUIRE_THROWS_WITH(train(ring, BayesFilter(ring), TabularBeliefPolicy(6, 2), RegMBE(1e300), Reinforce{},
                              ConstantStep(1e300), iterations(1)),
                        Catch::Contains("parameter row") && Catch::Contains("iteration 0"));

    // Gradient entries near 1e200: θ stays finite, and the reported norm is the norm, not inf.
    Trainer trainer(ring, BayesFilter(ring), BeliefAveragedPolicy(6, 2), RegMBE(1e200), Reinforce{},
                    ConstantStep(1e-200), iterations(5));
    for (int k = 0; k < 5; ++k) {
        const IterationMetrics x = trainer.iterate();
        const Eigen::MatrixXd& g = trainer.last_gradient();
        const double scale = g.cwiseAbs().maxCoeff();
        REQUIRE(scale > 1e160);
        const double expected = scale * (g / scale).norm();  // independent of the library's fallback
        INFO("iteration " << k);
        CHECK(std::isfinite(x.gradient_norm));
        CHECK(x.gradient_norm == Approx(expected).epsilon(1e-12));
        CHECK(trainer.policy().parameters().allFinite());
    }
    // On ordinary values the norm is the plain norm, bit for bit.
    Trainer plain(ring, BayesFilter(ring), BeliefAveragedPolicy(6, 2), RegMBE(0.02), BatchMeanBaseline{},
                  ConstantStep(0.3), iterations(3));
    for (int k = 0; k < 3; ++k) {
        const double reported = plain.iterate().gradient_norm;
        CHECK(reported == plain.last_gradient().norm());
    }
}

namespace {
/// A feedback that is NaN on every trajectory.
struct NanFeedback {
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {}; }
    template <class G>
    double operator()(const Trajectory&, G&) const {
        return std::nan("");
    }
};
}  // namespace

TEST_CASE("require_finite finds every non-finite entry and accepts every finite one", "[reliability][numeric]") {
    // One vectorised pass decides (x - x summed is NaN exactly when some x is not finite);
    // the message names the first offending entry in column-major order.
    Eigen::MatrixXd m = Eigen::MatrixXd::Constant(7, 3, 1.0);
    m(0, 0) = std::numeric_limits<double>::max();
    m(1, 0) = -std::numeric_limits<double>::max();
    m(2, 0) = std::numeric_limits<double>::denorm_min();
    m(3, 0) = -0.0;
    REQUIRE_NOTHROW(detail::require_finite(m, "m"));
    REQUIRE_NOTHROW(detail::require_finite(m.row(4), "row"));
    for (const double bad : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                             std::nan("")}) {
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index c = 0; c < m.cols(); ++c) {
                Eigen::MatrixXd x = m;
                x(r, c) = bad;
                REQUIRE_THROWS_WITH(detail::require_finite(x, "x"),
                                    Catch::Contains(detail::message("x: entry (", r, ", ", c, ") is ", bad)));
                REQUIRE_THROWS_AS(detail::require_finite(x.row(r), "row"), numeric_error);
                REQUIRE_NOTHROW(detail::require_finite(x.row((r + 1) % x.rows()), "other row"));
            }
    }
}

TEST_CASE("step rules and estimators reject NaN and inf the same way", "[reliability][numeric]") {
    Eigen::MatrixXd theta(2, 2);
    theta << 1, 2, 3, 4;
    const Eigen::MatrixXd before = theta;
    Eigen::MatrixXd g = Eigen::MatrixXd::Constant(2, 2, 0.5);
    g(1, 0) = std::nan("");
    REQUIRE_THROWS_AS(ConstantStep(0.1).apply(theta, g), numeric_error);
    REQUIRE_THROWS_WITH(ConstantStep(0.1).apply(theta, g),
                        Catch::Contains("ConstantStep") && Catch::Contains("(1, 0)") && Catch::Contains("nan"));
    CHECK(theta == before);

    // Adam: rejected before its moments move; the next good step is Adam's first step.
    Adam adam(0.1);
    g(1, 0) = inf;
    REQUIRE_THROWS_WITH(adam.apply(theta, g), Catch::Contains("Adam") && Catch::Contains("inf"));
    CHECK(theta == before);
    const Eigen::MatrixXd good = Eigen::MatrixXd::Constant(2, 2, 0.5);
    adam.apply(theta, good);
    Eigen::MatrixXd fresh = before;
    Adam(0.1).apply(fresh, good);
    CHECK(theta == fresh);

    // Row-sparse steps: native (ConstantStep) and scattered (Adam).
    const std::vector<Eigen::Index> rows{1};
    Eigen::MatrixXd compact = Eigen::MatrixXd::Zero(2, 2);
    compact(0, 1) = -inf;
    Eigen::MatrixXd scratch;
    theta = before;
    REQUIRE_THROWS_AS(ConstantStep(0.1).apply_rows(theta, rows, compact), numeric_error);
    REQUIRE_THROWS_AS(apply_step_rows(adam, theta, rows, compact, scratch), numeric_error);
    CHECK(theta == before);
    compact(0, 1) = 0.0;
    compact(1, 1) = inf;  // beyond rows.size(): ignored, as documented
    CHECK_NOTHROW(ConstantStep(0.1).apply_rows(theta, rows, compact));

    // Estimators: a NaN score is rejected like a NaN feedback (it made OptimalBaseline NaN).
    std::vector<Eigen::MatrixXd> s(3, Eigen::MatrixXd::Ones(1, 2));
    s[1](0, 1) = std::nan("");
    const std::vector<double> f{1.0, 2.0, 3.0};
    Eigen::MatrixXd out;
    OptimalBaseline optimal;
    REQUIRE_THROWS_WITH(optimal.estimate(f, s, out), Catch::Contains("OptimalBaseline") &&
                                                         Catch::Contains("score 1") && Catch::Contains("(0, 1)"));
    REQUIRE_THROWS_AS(Reinforce{}.estimate(f, s, out), numeric_error);
    REQUIRE_THROWS_AS(BatchMeanBaseline{}.estimate(f, s, out), numeric_error);
    REQUIRE_THROWS_AS(LeaveOneOutBaseline{}.estimate(f, s, out), numeric_error);
    s[1](0, 1) = 1.0;
    const std::vector<double> bad{1.0, inf, 3.0};
    REQUIRE_THROWS_WITH(optimal.estimate(bad, s, out), Catch::Contains("feedback 1") && Catch::Contains("inf"));
    // Still a config_error, as non-finite values always were.
    REQUIRE_THROWS_AS(Reinforce{}.estimate(bad, s, out), config_error);

    const auto ring = readme_ring(6);
    REQUIRE_THROWS_WITH(train(ring, BayesFilter(ring), BeliefAveragedPolicy(6, 2), NanFeedback{}, Reinforce{},
                              ConstantStep(0.1), iterations(1)),
                        Catch::Contains("feedback of trajectory 0 at iteration 0 is nan"));
}

TEST_CASE("entropies reject non-finite input and do not overflow on huge counts", "[reliability][entropy]") {
    const std::vector<double> with_inf{1.0, inf};
    REQUIRE_THROWS_AS(entropy_of_counts(std::span<const double>(with_inf)), numeric_error);
    REQUIRE_THROWS_WITH(entropy_of_counts(std::span<const double>(with_inf)), Catch::Contains("count 1"));
    const std::vector<double> with_nan{std::nan(""), 1.0};
    REQUIRE_THROWS_AS(entropy_of_counts(std::span<const double>(with_nan)), numeric_error);

    // Σ c and Σ c log c overflow; the entropy of the proportions does not.
    const std::vector<double> two{1e308, 1e308};
    CHECK(entropy_of_counts(std::span<const double>(two)) == Approx(std::log(2.0)).epsilon(1e-15));
    const std::vector<double> halves{1e308, 5e307, 5e307, 0.0};  // (1/2, 1/4, 1/4)
    CHECK(entropy_of_counts(std::span<const double>(halves)) == Approx(1.5 * std::log(2.0)).epsilon(1e-15));
    const std::vector<double> skewed{3e307, 1e307};  // n fits, Σ c log c does not: (3/4, 1/4)
    CHECK(entropy_of_counts(std::span<const double>(skewed)) ==
          Approx(-(0.75 * std::log(0.75) + 0.25 * std::log(0.25))).epsilon(1e-15));

    // entropy() takes probabilities as given: an overflowing sum has no finite answer.
    Eigen::VectorXd p(2);
    p << 1e308, 1e308;
    REQUIRE_THROWS_AS(entropy(p), numeric_error);
    REQUIRE_THROWS_WITH(entropy(p), Catch::Contains("overflows") && Catch::Contains("e+308"));
    p << 0.5, inf;
    REQUIRE_THROWS_WITH(entropy(p), Catch::Contains("entry 1 is inf"));
}

}  // namespace test_reliability
