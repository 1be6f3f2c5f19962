// maxent/core/distribution.hpp — sparse distribution views and categorical sampling.
//
// A `SparseDistribution` is a non-owning view of a finite distribution stored sparsely:
// parallel spans of indices and probabilities (the non-zero entries of a row of a
// transition or observation matrix). `sample_categorical` draws from it, or from a dense
// Eigen vector, by inverse-CDF with the caller's generator (paper, Section 2: s_1 ~ μ,
// o_t ~ Obs(·|s_t), s_{t+1} ~ P(·|s_t, a_t), believed states s̃_t ~ b_t).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

/// Storage index of the library's sparse matrices (Eigen's default).
using sparse_index = int;

/// Non-owning view of the non-zero entries of a finite distribution.
///
/// `cumulative` is optional: empty, or the running sums of `probability` (cumulative[k] =
/// probability[0] + ... + probability[k], added left to right in double precision, as
/// sample_categorical's scan adds them). Models that store them (FinitePomdp does) let
/// sample_categorical find the outcome by binary search with exactly the result of the scan.
struct SparseDistribution {
    std::span<const sparse_index> index;     ///< outcomes with positive probability
    std::span<const double> probability;     ///< their probabilities, same length
    std::span<const double> cumulative{};    ///< empty, or their running sums (same length)

    [[nodiscard]] std::size_t size() const noexcept { return index.size(); }
    [[nodiscard]] bool empty() const noexcept { return index.empty(); }
    /// Probability of `outcome` (0 when absent); linear in the number of non-zeros.
    [[nodiscard]] double operator()(std::size_t outcome) const noexcept {
        for (std::size_t k = 0; k < index.size(); ++k)
            if (static_cast<std::size_t>(index[k]) == outcome) return probability[k];
        return 0.0;
    }
};

/// Rows at least this long are sampled by binary search in their running sums when the
/// view carries them (shorter ones by the scan, which is then as fast).
inline constexpr std::size_t binary_search_min_size = 8;

/// Draws an outcome of a sparse distribution whose probabilities sum to 1 (rounding
/// tolerated: if the cumulative sum ends below the uniform draw, the last outcome with
/// positive probability is returned). Inverse CDF: the outcome is the first k with
/// u < probability[0] + ... + probability[k] for one uniform u; with `cumulative` given (and
/// at least binary_search_min_size entries) that k is found by binary search, the same k.
/// Throws config_error if the view has no positive probability.
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::size_t sample_categorical(const SparseDistribution& d, G& g) {
    const double u = uniform01(g);
    const std::size_t n = d.index.size();
    if (d.cumulative.size() == n && n >= binary_search_min_size) {
        // Branch-free lower bound of the first running sum > u (the sums never decrease).
        const double* c = d.cumulative.data();
        std::size_t first = 0, count = n;
        while (count > 1) {
            const std::size_t half = count / 2;
            first = (c[first + half - 1] <= u) ? first + half : first;
            count -= half;
        }
        if (u < c[first]) return static_cast<std::size_t>(d.index[first]);
    } else {
        double cumulative = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
            cumulative += d.probability[k];
            if (u < cumulative) return static_cast<std::size_t>(d.index[k]);
        }
    }
    for (std::size_t k = d.index.size(); k-- > 0;)
        if (d.probability[k] > 0.0) return static_cast<std::size_t>(d.index[k]);
    throw config_error(detail::message("sample_categorical: the sparse distribution with ",
                                       d.index.size(), " entries has no positive probability"));
}

/// Draws an index of a dense probability vector (sums to 1 up to rounding; see above).
/// Throws config_error if no entry is positive.
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::size_t sample_categorical(const Eigen::Ref<const Eigen::VectorXd>& p, G& g) {
    const double u = uniform01(g);
    double cumulative = 0.0;
    const Eigen::Index n = p.size();
    for (Eigen::Index i = 0; i < n; ++i) {
        cumulative += p[i];
        if (u < cumulative) return static_cast<std::size_t>(i);
    }
    for (Eigen::Index i = n; i-- > 0;)
        if (p[i] > 0.0) return static_cast<std::size_t>(i);
    throw config_error(detail::message("sample_categorical: the probability vector of size ", n,
                                       " has no positive entry"));
}

}  // namespace maxent
