// Tests of policy/tabular_belief_policy.hpp (class B), policy/row_score.hpp and the
// trainer's row-sparse path (optim/row_sparse_path.hpp, apply_step_rows).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/reachable_beliefs.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/observation_policy.hpp"
#include "maxent/policy/row_score.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#ifndef MAXENT_CLASSIC_POMDP_DIR
#error "tests/CMakeLists.txt must define MAXENT_CLASSIC_POMDP_DIR"
#endif

namespace test_tabular_belief_policy {

namespace tabular_belief_policy_test {

using namespace maxent;
using Catch::Matchers::Contains;

static_assert(DifferentiablePolicy<TabularBeliefPolicy>);
static_assert(RowSparsePolicy<TabularBeliefPolicy>);
static_assert(!RowSparsePolicy<ObservationPolicy>);  // BA, the mixture and S̃ are row-sparse too
static_assert(Policy<RowScoringView<TabularBeliefPolicy>>);
static_assert(estimator_is_entrywise<BatchMeanBaseline> && estimator_is_entrywise<OptimalBaseline>);

Eigen::VectorXd vec(std::initializer_list<double> x) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(x.size()));
    Eigen::Index i = 0;
    for (const double y : x) v[i++] = y;
    return v;
}

PomdpFile tiger(std::size_t horizon) {
    ReadOptions o;
    o.horizon = horizon;
    return read_pomdp_file(std::string(MAXENT_CLASSIC_POMDP_DIR) + "/tiger.95.POMDP", o);
}

TEST_CASE("rows are allocated lazily, on the first visit of a belief", "[tabular]") {
    TabularBeliefPolicy p(3, 2);
    CHECK(p.rows() == 0);
    CHECK(p.parameters().rows() == 0);
    const Eigen::VectorXd b = vec({0.2, 0.3, 0.5});
    Eigen::VectorXd pi;
    p.probabilities({0, 0, b}, pi);  // const use: uniform, no row
    CHECK(pi == vec({0.5, 0.5}));
    CHECK(p.rows() == 0);
    CHECK(p.row_of(b) == TabularBeliefPolicy::npos);

    DefaultRng g(1);
    Eigen::MatrixXd score(0, 2);
    (void)p.sample({0, 0, b}, g, score);
    CHECK(p.rows() == 1);
    CHECK(p.row_of(b) == 0);
    CHECK(p.parameters().rows() >= 1);
    CHECK(score.rows() == p.parameters().rows());  // padded to θ's shape
    // The same belief within the tolerance: the same row; farther: a new one.
    Eigen::VectorXd near = b;
    near[0] += 0.4e-9;
    near[2] -= 0.4e-9;
    (void)p.sample({1, 0, near}, g, score);
    CHECK(p.rows() == 1);
    Eigen::VectorXd far = b;
    far[0] += 1e-6;
    far[2] -= 1e-6;
    (void)p.sample({1, 0, far}, g, score);
    CHECK(p.rows() == 2);
    CHECK(p.row_of(far) == 1);
    // Score rows: the visited rows only, each summing to 0 (e_a - π).
    CHECK(score.row(0).sum() == Approx(0.0).margin(1e-15));
    CHECK(score.row(0).cwiseAbs().sum() > 0.0);
    CHECK(score.bottomRows(score.rows() - 2).cwiseAbs().sum() == 0.0);
    const TableMemory mem = p.memory();
    CHECK(mem.rows == 2);
    CHECK(mem.capacity_rows == static_cast<std::size_t>(p.parameters().rows()));
    CHECK(mem.parameter_bytes == mem.capacity_rows * 2 * sizeof(double));
    CHECK(mem.index_bytes == p.beliefs().bytes());
    CHECK_THROWS_WITH(p.check_dimensions({4, 2, 1}), Contains("4 states"));
}

TEST_CASE("the score matches central finite differences of log π", "[tabular]") {
    TabularBeliefPolicy p(3, 3);
    const std::vector<Eigen::VectorXd> beliefs{vec({1.0, 0.0, 0.0}), vec({0.2, 0.3, 0.5}), vec({0.0, 0.5, 0.5})};
    DefaultRng g(7);
    Eigen::MatrixXd dense(0, 3);
    for (const auto& b : beliefs) (void)p.sample({0, 0, b}, g, dense);
    REQUIRE(p.rows() == 3);
    for (Eigen::Index r = 0; r < 3; ++r)
        for (Eigen::Index c = 0; c < 3; ++c) p.parameters()(r, c) = 0.7 * std::sin(1.0 + 3.0 * static_cast<double>(r) + static_cast<double>(c));
    const double h = 1e-6;
    for (std::size_t i = 0; i < beliefs.size(); ++i)
        for (std::size_t a = 0; a < 3; ++a) {
            const AgentView v{0, 0, beliefs[i]};
            Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(p.parameters().rows(), 3);
            p.log_gradient(v, a, grad);
            Eigen::MatrixXd fd = Eigen::MatrixXd::Zero(grad.rows(), 3);
            for (Eigen::Index r = 0; r < static_cast<Eigen::Index>(p.rows()); ++r)
                for (Eigen::Index c = 0; c < 3; ++c) {
                    TabularBeliefPolicy q = p;
                    Eigen::VectorXd pi;
                    q.parameters()(r, c) += h;
                    q.probabilities(v, pi);
                    const double up = std::log(pi[static_cast<Eigen::Index>(a)]);
                    q.parameters()(r, c) -= 2 * h;
                    q.probabilities(v, pi);
                    const double down = std::log(pi[static_cast<Eigen::Index>(a)]);
                    fd(r, c) = (up - down) / (2 * h);
                }
            INFO("belief " << i << ", action " << a);
            CHECK((grad - fd).cwiseAbs().maxCoeff() < 1e-8);
            // Only the belief's own row is touched.
            for (Eigen::Index r = 0; r < grad.rows(); ++r)
                if (r != static_cast<Eigen::Index>(i)) CHECK(grad.row(r).cwiseAbs().sum() == 0.0);
        }
    // An unseen belief has no row: log_gradient refuses (const use cannot add rows).
    Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(p.parameters().rows(), 3);
    CHECK_THROWS_WITH(p.log_gradient({2, 0, vec({0.5, 0.5, 0.0})}, 0, grad), Contains("has no row"));
    CHECK_THROWS_WITH(p.log_gradient({0, 0, beliefs[0]}, 3, grad), Contains("action 3"));
}

TEST_CASE("sample_rows draws and scores exactly as sample does", "[tabular]") {
    const auto m = single_room(3, 3, 0.0, observe::gaussian_variance(0.2));
    TabularBeliefPolicy dense_policy(9, 4), row_policy(9, 4);
    Sampler<GridPomdp, BayesFilter<GridPomdp>> s1(m, BayesFilter<GridPomdp>(m)), s2(m, BayesFilter<GridPomdp>(m));
    for (std::uint64_t run = 0; run < 5; ++run) {
        DefaultRng g1 = stream(3, run, 0), g2 = stream(3, run, 0);
        Eigen::MatrixXd dense(dense_policy.parameters().rows(), 4);
        const Trajectory t1 = s1.run(dense_policy, g1, dense);
        RowScore rs;
        Eigen::MatrixXd unused;
        RowScoringView<TabularBeliefPolicy> view(row_policy, rs);
        const Trajectory& t2 = s2.run(view, g2, unused);
        CHECK(t1.actions == t2.actions);
        CHECK(t1.states == t2.states);
        CHECK(dense_policy.rows() == row_policy.rows());
        Eigen::MatrixXd from_rows = Eigen::MatrixXd::Zero(dense.rows(), 4);
        rs.add_to(from_rows);
        CHECK(from_rows == dense);
        CHECK(rs.size() <= t2.actions.size());
    }
}

/// One iteration of Algorithm 1 on the DENSE path, by hand: dense scores padded to the final
/// θ shape, the estimator on the full matrices, the step on the full θ.
template <class E, class R>
void dense_iteration(const GridPomdp& m, TabularBeliefPolicy& p, E& estimator, R& step, std::uint64_t seed,
                     std::size_t k, std::size_t N) {
    Sampler<GridPomdp, BayesFilter<GridPomdp>> sampler(m, BayesFilter<GridPomdp>(m), {StateCounting::paper, MSE{}.needs()});
    std::vector<Eigen::MatrixXd> scores(N);
    std::vector<double> f(N);
    for (std::size_t n = 0; n < N; ++n) {
        DefaultRng g = stream(seed, k, n);
        scores[n] = Eigen::MatrixXd::Zero(p.parameters().rows(), 4);
        f[n] = MSE{}(sampler.run(p, g, scores[n]), g);
    }
    for (auto& sc : scores) {  // pad the earlier scores: θ grew during the batch
        const Eigen::Index old = sc.rows();
        sc.conservativeResize(p.parameters().rows(), Eigen::NoChange);
        sc.bottomRows(sc.rows() - old).setZero();
    }
    Eigen::MatrixXd grad;
    estimator.estimate(std::span<const double>(f), std::span<const Eigen::MatrixXd>(scores), grad);
    step.apply(p.parameters(), grad);
}

TEST_CASE("the trainer's row-sparse path equals the dense computation", "[tabular]") {
    const auto m = single_room(3, 3, 0.0, observe::gaussian_variance(0.2));
    const std::size_t N = 6, K = 4;
    TrainerConfig cfg;
    cfg.iterations = K;
    cfg.batch = N;
    cfg.seed = 11;
    cfg.track_belief_entropy = false;
    SECTION("batch-mean baseline, constant step") {
        Trainer trainer(m, BayesFilter<GridPomdp>(m), TabularBeliefPolicy(9, 4), MSE{}, BatchMeanBaseline{},
                        ConstantStep(0.3), cfg);
        TabularBeliefPolicy ref(9, 4);
        BatchMeanBaseline e;
        ConstantStep r(0.3);
        for (std::size_t k = 0; k < K; ++k) {
            (void)trainer.iterate();
            dense_iteration(m, ref, e, r, cfg.seed, k, N);
            REQUIRE(trainer.policy().rows() == ref.rows());
            const Eigen::Index rows = static_cast<Eigen::Index>(ref.rows());
            CHECK((trainer.policy().parameters().topRows(rows) - ref.parameters().topRows(rows)).cwiseAbs().maxCoeff() <
                  1e-14);
            // The compact gradient: one row per touched belief, at most N x (T - 1) rows.
            CHECK(trainer.last_gradient().rows() == static_cast<Eigen::Index>(N * 8));
            CHECK(trainer.last_gradient_rows().size() <= N * 8);
        }
        // Rows are allocated lazily and only visited rows moved.
        CHECK(trainer.policy().rows() > 1);
        const auto& theta = trainer.policy().parameters();
        CHECK(theta.bottomRows(theta.rows() - static_cast<Eigen::Index>(trainer.policy().rows())).cwiseAbs().sum() == 0.0);
        CHECK(theta.row(0).cwiseAbs().sum() > 0.0);  // the prior's row: visited by every trajectory
    }
    SECTION("optimal baseline, Adam (dense fallback step, moments padded when θ grows)") {
        Trainer trainer(m, BayesFilter<GridPomdp>(m), TabularBeliefPolicy(9, 4), MSE{}, OptimalBaseline{}, Adam(0.05),
                        cfg);
        TabularBeliefPolicy ref(9, 4);
        OptimalBaseline e;
        Adam r(0.05);
        for (std::size_t k = 0; k < K; ++k) {
            (void)trainer.iterate();
            dense_iteration(m, ref, e, r, cfg.seed, k, N);
            REQUIRE(trainer.policy().rows() == ref.rows());
            const Eigen::Index rows = static_cast<Eigen::Index>(ref.rows());
            CHECK((trainer.policy().parameters().topRows(rows) - ref.parameters().topRows(rows)).cwiseAbs().maxCoeff() <
                  1e-12);
        }
    }
}

TEST_CASE("Adam pads its moments with zeros when the parameters grow", "[tabular]") {
    Adam a(0.1);
    Eigen::MatrixXd theta = Eigen::MatrixXd::Zero(2, 2);
    Eigen::MatrixXd g = Eigen::MatrixXd::Ones(2, 2);
    a.apply(theta, g);
    const Eigen::MatrixXd after_one = theta;
    // Grow to 3 rows; the old rows keep their moments (step 2 of Adam with g = 1 moves by α
    // again: m̂ = v̂ = 1), the new row starts from zero moments at step count 2:
    // m = 0.1, v = 0.001, m̂ = 0.1 / (1 - 0.9^2), v̂ = 0.001 / (1 - 0.999^2).
    theta.conservativeResize(3, Eigen::NoChange);
    theta.row(2).setZero();
    g = Eigen::MatrixXd::Ones(3, 2);
    a.apply(theta, g);
    CHECK(theta(0, 0) == Approx(2 * after_one(0, 0)).epsilon(1e-12));
    const double expected = 0.1 * (0.1 / (1 - 0.81)) / (std::sqrt(0.001 / (1 - 0.999 * 0.999)) + 1e-8);
    CHECK(theta(2, 0) == Approx(expected).epsilon(1e-12));
    CHECK(expected < 0.08);  // differs from a fresh start (0.1): the step count was kept
}

TEST_CASE("a pre-seeded table gives the exact objective and its gradient", "[tabular]") {
    // Tiger, horizon 3 (paper counting: 2 actions at b_1, b_2: depths 0 and 1).
    const PomdpFile f = tiger(3);
    const auto& m = f.model;
    ReachableOptions o;
    o.max_depth = policy_belief_depth(StateCounting::paper, m.horizon());
    const ReachableBeliefs reach = reachable_beliefs(m, o);
    REQUIRE(reach.size() == 3);  // (0.5, 0.5), (0.85, 0.15), (0.15, 0.85)
    TabularBeliefPolicy p(reach.beliefs, m.num_actions());
    REQUIRE(p.rows() == 3);
    // θ = 0 is the uniform policy: same objective as the BA policy at θ = 0.
    const ExactResult uniform = exact_objective(m, p, MSE{});
    CHECK(uniform.objective ==
          Approx(exact_objective(m, BeliefAveragedPolicy(2, 3), MSE{}).objective).epsilon(1e-14));
    // Gradient against central differences of the exact objective at a non-trivial θ.
    for (Eigen::Index r = 0; r < 3; ++r)
        for (Eigen::Index c = 0; c < 3; ++c) p.parameters()(r, c) = 0.5 * std::cos(2.0 * static_cast<double>(r) + static_cast<double>(c));
    const ExactResult at = exact_objective(m, p, MSE{});
    const double h = 1e-6;
    double worst = 0.0;
    for (Eigen::Index r = 0; r < 3; ++r)
        for (Eigen::Index c = 0; c < 3; ++c) {
            TabularBeliefPolicy q = p;
            q.parameters()(r, c) += h;
            const double up = exact_objective_value(m, q, MSE{});
            q.parameters()(r, c) -= 2 * h;
            const double down = exact_objective_value(m, q, MSE{});
            worst = std::max(worst, std::abs((up - down) / (2 * h) - at.gradient(r, c)));
        }
    CHECK(worst < 1e-8);
    CHECK(at.gradient.cwiseAbs().maxCoeff() > 1e-3);
    CHECK(p.rows() == 3);  // the exact enumeration added no row
}

TEST_CASE("class B learns on a small fully observable room", "[tabular]") {
    // 3 x 3 room with identity observations: after one update every belief is a point mass, so
    // the table has at most 1 + 9 rows and B is a tabular state policy; a snake path through
    // the 9 cells has entropy log 9. K = 600, N = 10, α = 0.3, batch-mean baseline.
    const auto m = single_room(3, 3, 0.0, observe::Identity{});
    TrainerConfig cfg;
    cfg.iterations = 600;
    cfg.seed = 5;
    Trainer trainer(m, BayesFilter<GridPomdp>(m), TabularBeliefPolicy(9, 4), MSE{}, BatchMeanBaseline{},
                    ConstantStep(0.3), cfg);
    const TrainResult r = trainer.run();
    double last = 0.0;
    for (std::size_t i = 550; i < 600; ++i) last += r.history[i].true_entropy;
    last /= 50.0;
    INFO("first " << r.history.front().true_entropy << ", last-50 mean " << last << ", rows "
                  << trainer.policy().rows());
    CHECK(trainer.policy().rows() <= 10);
    CHECK(r.history.front().true_entropy < 1.6);
    CHECK(last > 0.85 * std::log(9.0));
}

TEST_CASE("the table's byte budget is a budget_error, not an allocation failure", "[tabular]") {
    TabularBeliefPolicy p(3, 2, default_belief_tolerance, 2000);
    DefaultRng g(3);
    RowScore rs(2);
    bool thrown = false;
    std::string what;
    for (int i = 0; i < 1000 && !thrown; ++i) {
        const double x = 0.001 * i;
        try {
            (void)p.sample_rows({0, 0, vec({x, 0.5 - x / 2, 0.5 - x / 2})}, g, rs);
        } catch (const budget_error& e) {
            thrown = true;
            what = e.what();
        }
    }
    REQUIRE(thrown);
    CHECK_THAT(what, Contains("max_bytes = 2000"));
    CHECK(p.memory().bytes() <= 2000);
    CHECK(p.rows() > 5);
}

}  // namespace tabular_belief_policy_test

}  // namespace test_tabular_belief_policy
