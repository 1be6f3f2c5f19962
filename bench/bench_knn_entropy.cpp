// bench/bench_knn_entropy.cpp — the k-nearest-neighbour entropy estimator
// (core/knn_entropy.hpp): one estimate, tree build and exact neighbour search included, on
// one core with a reused KnnEntropy (no allocation), for standard normal points
//   * BM_KnnEntropy2D/n: n = 10^2 .. 10^5 points in 2-D, k = 1 (target: 1,000 points well
//     under a millisecond), with the cost per point ("per_point") and Google Benchmark's
//     n log n fit;
//   * BM_KnnEntropy6D/n: the same in 6-D;
//   * BM_KnnEntropy2DK4/n: 2-D with k = 4.
#include "common.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/random.hpp"

namespace {

void knn_entropy(benchmark::State& state, std::size_t dim, std::size_t k) {
    const auto n = static_cast<std::size_t>(state.range(0));
    maxent::DefaultRng g = maxent::stream(1, dim, n);
    std::vector<double> points(n * dim);
    for (double& x : points) x = maxent::standard_normal(g);
    maxent::KnnEntropy estimator(k);
    benchmark::DoNotOptimize(estimator(points, dim));  // sizes the workspace
    for (auto _ : state) benchmark::DoNotOptimize(estimator(points, dim));
    state.SetComplexityN(static_cast<benchmark::IterationCount>(n));
    state.counters["per_point"] = benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_KnnEntropy2D(benchmark::State& state) { knn_entropy(state, 2, 1); }
void BM_KnnEntropy6D(benchmark::State& state) { knn_entropy(state, 6, 1); }
void BM_KnnEntropy2DK4(benchmark::State& state) { knn_entropy(state, 2, 4); }

}  // namespace

BENCHMARK(BM_KnnEntropy2D)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_KnnEntropy6D)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_KnnEntropy2DK4)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oNLogN);
