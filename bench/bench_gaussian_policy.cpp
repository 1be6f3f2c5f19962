// Benchmark: one step of the squashed Gaussian policy for continuous actions
// (policy/gaussian.hpp): the mean and log σ from the agent's features, the draw and the
// score ∇_θ log π added into the caller's buffer — GaussianPolicy::sample, as the rollout
// calls it once per step. d = 2 action coordinates, F_b = 64 belief features (plus the bias
// row: θ is 65 x 4); state-independent σ, and state-dependent σ (linear in the features) for
// comparison; the uniform box policy's step as the floor. Goal: at most 100 ns per step
// (docs/performance.md).
//
// Names: gaussian_step/<features>/<std>, uniform_box_step. Counter: mean_action0 (a sanity
// check that the draws are used).
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <span>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/random.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/gaussian.hpp"
#include "maxent/policy/uniform_box.hpp"

namespace {

void gaussian_step(benchmark::State& state, bool state_dependent_std) {
    const auto features = static_cast<std::size_t>(state.range(0));
    const maxent::ActionBox box({-1.0, -2.0}, {1.0, 2.0});
    maxent::GaussianPolicy policy(box, features,
                                  {.initial_log_std = -0.5, .state_dependent_std = state_dependent_std});
    maxent::DefaultRng g = maxent::stream(1);
    for (Eigen::Index i = 0; i < policy.parameters().size(); ++i)
        policy.parameters()(i) = 0.05 * maxent::standard_normal(g);
    Eigen::VectorXd phi(static_cast<Eigen::Index>(features));
    for (Eigen::Index i = 0; i < phi.size(); ++i) phi[i] = maxent::uniform01(g) / static_cast<double>(features);
    const maxent::AgentView view{0, 0, phi};
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(policy.parameters().rows(), policy.parameters().cols());
    std::array<double, 2> action{};
    double sum = 0.0;
    for (auto _ : state) {
        policy.sample(view, g, score, std::span<double>(action));
        sum += action[0];
        benchmark::DoNotOptimize(action);
        benchmark::ClobberMemory();
    }
    state.counters["mean_action0"] = sum / static_cast<double>(state.iterations());
}

void uniform_box_step(benchmark::State& state) {
    const maxent::UniformBoxPolicy policy(maxent::ActionBox({-1.0, -2.0}, {1.0, 2.0}));
    maxent::DefaultRng g = maxent::stream(1);
    const Eigen::VectorXd phi = Eigen::VectorXd::Zero(1);
    const maxent::AgentView view{0, 0, phi};
    Eigen::MatrixXd score;
    std::array<double, 2> action{};
    for (auto _ : state) {
        policy.sample(view, g, score, std::span<double>(action));
        benchmark::DoNotOptimize(action);
    }
}

}  // namespace

BENCHMARK_CAPTURE(gaussian_step, fixed_std, false)->Arg(64)->Name("gaussian_step/64/fixed_std");
BENCHMARK_CAPTURE(gaussian_step, linear_std, true)->Arg(64)->Name("gaussian_step/64/linear_std");
BENCHMARK(uniform_box_step)->Name("uniform_box_step");
