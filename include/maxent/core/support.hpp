// maxent/core/support.hpp — working on the support of a sparse dense-stored vector.
//
// Beliefs are stored as dense Eigen vectors (one entry per state), but in the paper's grid
// worlds most entries are exactly zero after a few steps. The rollout can carry the support — the ascending list of the states
// that may be non-zero — next to the belief (policy/concepts.hpp, AgentView::support), and
// the functions here let the hot path work on that list while returning what the dense
// code returns, to the last bit:
//
//   * support_of(v, out)            the ascending indices of v's non-zero entries
//   * support_dot(support, x, y, n) x.dot(y) as Eigen computes it for two n-vectors, for a
//                                   y that is zero outside `support`; support_dot_columns
//                                   does it for every column of a matrix in one pass
//   * entropy_on_support(support, p) entropy_unchecked(p) of core/entropy.hpp
//   * sample_categorical_on_support(support, p, g)  sample_categorical(p, g) of core/distribution.hpp
//
// Why support_dot can match Eigen bit for bit: Eigen's dot product is a vectorised sum with
// a fixed association that depends only on n and the packet size P (Eigen 3.4,
// Redux.h, linear vectorised traversal without unrolling). With P = 2 (SSE2, the x86-64
// baseline): lane sums over the indices below 4⌊n/4⌋ by index mod 4, combined as (l0 + l2)
// and (l1 + l3); then one more packet (indices 4⌊n/4⌋ and +1) if 2⌊n/2⌋ > 4⌊n/4⌋; then the
// two halves added; then the last entry if n is odd. With P = 1 (no vectorisation) the sum
// runs left to right. A term that is exactly zero adds nothing, so summing only the
// support's terms into the same lanes, in ascending order, gives the same value (a zero
// result may differ in sign, which nothing downstream can see). For other packet sizes
// (AVX builds) `support_dot_matches_eigen` is false and callers use Eigen's dense dot
// product instead; tests/unit/test_support.cpp checks the equality on every build.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

namespace detail {
/// Doubles per packet in Eigen's vectorised reductions on this build (1: not vectorised).
inline constexpr int eigen_double_packet =
    Eigen::internal::packet_traits<double>::Vectorizable ? Eigen::internal::packet_traits<double>::size : 1;
}  // namespace detail

/// Whether support_dot reproduces Eigen's dot product on this build (packets of 1 or 2 doubles).
inline constexpr bool support_dot_matches_eigen = detail::eigen_double_packet <= 2;

/// Whether code that has both a dense O(n) path and an O(|support|) path should take the
/// latter: the dense loops run in packets and predictable branches over all n entries, the
/// support loops entry by entry with data-dependent trip counts, so the dense loops are as
/// fast whenever the support is more than an eighth of n (docs/performance.md), while on
/// large maps the support is what makes a step cheap. Both paths give the same bits.
[[nodiscard]] constexpr bool support_pays(std::size_t support_size, std::size_t n) noexcept {
    return 8 * support_size <= n;
}

/// out <- the ascending indices i with v[i] != 0 (out's capacity is reused: no allocation
/// once it holds v.size()).
inline void support_of(const Eigen::Ref<const Eigen::VectorXd>& v, std::vector<sparse_index>& out) {
    const auto n = static_cast<std::size_t>(v.size());
    out.resize(n);
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        out[count] = static_cast<sparse_index>(i);
        count += v[static_cast<Eigen::Index>(i)] != 0.0 ? 1 : 0;  // branch-free compaction
    }
    out.resize(count);
}

namespace detail {
/// Terms of an n-vector given at ascending indices (the others are 0), summed in the
/// association of Eigen's vectorised sum of that vector on this build when
/// support_dot_matches_eigen (the lanes of support_dot_columns), left to right otherwise.
/// E.g. the squared norm of a column-major matrix that is zero outside some rows, with the
/// bits of Eigen's squaredNorm() of the whole matrix, in O(terms).
class EigenOrderSum {
public:
    explicit EigenOrderSum(std::size_t n) noexcept : n4_(n & ~std::size_t{3}), n2_(n & ~std::size_t{1}), n_(n) {}
    void add(std::size_t i, double term) noexcept {
        if constexpr (eigen_double_packet == 2)
            lanes_[i < n4_ ? (i & 3) : (i < n2_ ? 4 + (i - n4_) : 6)] += term;
        else
            lanes_[0] += term;
    }
    [[nodiscard]] double result() const noexcept {
        if constexpr (eigen_double_packet == 2) {
            double half0 = lanes_[0] + lanes_[2];
            double half1 = lanes_[1] + lanes_[3];
            if (n2_ > n4_) {
                half0 += lanes_[4];
                half1 += lanes_[5];
            }
            double r = half0 + half1;
            if (n2_ < n_) r += lanes_[6];
            return r;
        } else {
            return lanes_[0];
        }
    }

private:
    std::size_t n4_, n2_, n_;
    double lanes_[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
};
}  // namespace detail

/// Scratch doubles per column that support_dot_columns needs (for more than 8 columns).
inline constexpr std::size_t support_dot_scratch_per_column = 7;

namespace detail {

/// support_dot_columns for a column count known at compile time (Cols > 0) or not (Cols ==
/// 0, then `cols`): the lanes of every column live in one local array, so that the loop over
/// the support is a few loads, multiplications and additions per entry.
template <std::size_t Cols>
inline void support_dot_columns_kernel(std::span<const sparse_index> support, const double* x, std::size_t n,
                                       std::size_t cols, const double* y, double* scratch, double* out) noexcept {
    constexpr std::size_t W = support_dot_scratch_per_column;
    const std::size_t C = Cols > 0 ? Cols : cols;
    double local[Cols > 0 ? Cols * W : 1];
    double* lanes = Cols > 0 ? local : scratch;  // lanes[slot * C + c]
    for (std::size_t k = 0; k < W * C; ++k) lanes[k] = 0.0;
    if constexpr (eigen_double_packet == 2) {
        // Slots 0-3: the four lanes of the indices below 4⌊n/4⌋ (index mod 4); 4-5: the
        // packet [4⌊n/4⌋, 2⌊n/2⌋) if any; 6: index n - 1 when n is odd.
        const std::size_t n4 = n & ~std::size_t{3};
        const std::size_t n2 = n & ~std::size_t{1};
        for (const sparse_index si : support) {
            const auto i = static_cast<std::size_t>(si);
            const std::size_t slot = i < n4 ? (i & 3) : (i < n2 ? 4 + (i - n4) : 6);
            const double yi = y[i];
            double* lane = lanes + slot * C;
            for (std::size_t c = 0; c < C; ++c) lane[c] += x[c * n + i] * yi;
        }
        for (std::size_t c = 0; c < C; ++c) {
            double half0 = lanes[0 * C + c] + lanes[2 * C + c];
            double half1 = lanes[1 * C + c] + lanes[3 * C + c];
            if (n2 > n4) {
                half0 += lanes[4 * C + c];
                half1 += lanes[5 * C + c];
            }
            double result = half0 + half1;
            if (n2 < n) result += lanes[6 * C + c];
            out[c] = result;
        }
    } else {
        for (const sparse_index si : support) {
            const auto i = static_cast<std::size_t>(si);
            const double yi = y[i];
            for (std::size_t c = 0; c < C; ++c) lanes[c] += x[c * n + i] * yi;
        }
        for (std::size_t c = 0; c < C; ++c) out[c] = lanes[c];
    }
}

/// Calls f(std::integral_constant<std::size_t, K>{}) for the count K = count when 1 <= count
/// <= 8 (the action counts of grid worlds and classic POMDPs, unrolled by the compiler), and
/// f(std::integral_constant<std::size_t, 0>{}) otherwise (count known at run time only).
template <class F>
inline decltype(auto) with_small_count(std::size_t count, F&& f) {
    switch (count) {
        case 1: return f(std::integral_constant<std::size_t, 1>{});
        case 2: return f(std::integral_constant<std::size_t, 2>{});
        case 3: return f(std::integral_constant<std::size_t, 3>{});
        case 4: return f(std::integral_constant<std::size_t, 4>{});
        case 5: return f(std::integral_constant<std::size_t, 5>{});
        case 6: return f(std::integral_constant<std::size_t, 6>{});
        case 7: return f(std::integral_constant<std::size_t, 7>{});
        case 8: return f(std::integral_constant<std::size_t, 8>{});
        default: return f(std::integral_constant<std::size_t, 0>{});
    }
}

}  // namespace detail

/// out[c] = Σ_i x[c n + i] y[i] for the columns c < cols of a column-major n x cols matrix x,
/// for a y that is exactly zero outside `support` (ascending, entries < n): for each column
/// the value Eigen's `x.col(c).dot(y)` has on this build when support_dot_matches_eigen (see
/// the header), left to right otherwise. One pass over the support for all columns, in
/// O(|support| cols); `scratch` holds support_dot_scratch_per_column * cols doubles (used
/// only when cols > 8).
inline void support_dot_columns(std::span<const sparse_index> support, const double* x, std::size_t n,
                                std::size_t cols, const double* y, double* scratch, double* out) noexcept {
    detail::with_small_count(cols, [&](auto fixed) {
        detail::support_dot_columns_kernel<decltype(fixed)::value>(support, x, n, cols, y, scratch, out);
    });
}

/// Σ_i x[i] y[i] over two n-vectors, for a y that is zero outside `support`: Eigen's
/// `x.dot(y)` on this build when support_dot_matches_eigen (support_dot_columns, one column).
[[nodiscard]] inline double support_dot(std::span<const sparse_index> support, const double* x, const double* y,
                                        std::size_t n) noexcept {
    double scratch[support_dot_scratch_per_column];
    double out = 0.0;
    support_dot_columns(support, x, n, 1, y, scratch, &out);
    return out;
}

/// sample_categorical(p, g) for a p that is zero outside `support`: the same draw and the
/// same outcome (the running sum skips only exact zeros; the fallback is the last positive
/// entry, as there), in O(|support|). Throws config_error if no listed entry is positive.
template <std::uniform_random_bit_generator G>
[[nodiscard]] std::size_t sample_categorical_on_support(std::span<const sparse_index> support,
                                                        const Eigen::Ref<const Eigen::VectorXd>& p, G& g) {
    const double u = uniform01(g);
    double cumulative = 0.0;
    for (const sparse_index si : support) {
        cumulative += p[si];
        if (u < cumulative) return static_cast<std::size_t>(si);
    }
    for (std::size_t k = support.size(); k-- > 0;)
        if (p[support[k]] > 0.0) return static_cast<std::size_t>(support[k]);
    throw config_error(detail::message("sample_categorical_on_support: none of the ", support.size(),
                                       " listed entries of the probability vector of size ", p.size(),
                                       " is positive"));
}

/// entropy_unchecked(p) (−Σ p_i log p_i over the positive entries, left to right) for a p
/// that is zero outside `support`: the same value, in O(|support|).
[[nodiscard]] inline double entropy_on_support(std::span<const sparse_index> support,
                                               const Eigen::Ref<const Eigen::VectorXd>& p) noexcept {
    double h = 0.0;
    for (const sparse_index si : support) {
        const double x = p[si];
        if (x > 0.0) h -= x * std::log(x);
    }
    return h;
}

}  // namespace maxent
