// bench/bench_knn_entropy.cpp — the k-nearest-neighbour entropy estimator
// (core/knn_entropy.hpp): one estimate, tree build and exact neighbour search included, on
// one core with a reused KnnEntropy (no allocation), for standard normal points
//   * BM_KnnEntropy2D/n: n = 10^2 .. 10^5 points in 2-D, k = 1 (target: 1,000 points well
//     under a millisecond), with the cost per point ("per_point") and Google Benchmark's
//     n log n fit;
//   * BM_KnnEntropy6D/n: the same in 6-D;
//   * BM_KnnEntropy2DK4/n: 2-D with k = 4;
//   * BM_KnnEntropy2DK100/n: 2-D with k = 100, n = 10^3 .. 10^5 (target: n = 10^4 under 1 s);
//   * BM_KnnEntropyAllNeighbours/n: 2-D with k = n − 1 (every pair; the cost of keeping a
//     point's k best, about n² log n with the bounded heaps, n² k with sorted insertion).
// docs/performance.md has the measurements.
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
void BM_KnnEntropy2DK100(benchmark::State& state) { knn_entropy(state, 2, 100); }
void BM_KnnEntropyAllNeighbours(benchmark::State& state) {
    knn_entropy(state, 2, static_cast<std::size_t>(state.range(0)) - 1);
}

}  // namespace

BENCHMARK(BM_KnnEntropy2D)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_KnnEntropy6D)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_KnnEntropy2DK4)->RangeMultiplier(10)->Range(100, 100000)->Unit(benchmark::kMicrosecond)->Complexity(benchmark::oNLogN);
BENCHMARK(BM_KnnEntropy2DK100)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KnnEntropyAllNeighbours)->RangeMultiplier(2)->Range(1000, 4000)->Unit(benchmark::kMillisecond)->Complexity();
