// maxent/core/finite.hpp — the one check for non-finite numbers, and a norm that does not
// overflow.
//
// Step rules, gradient estimators, the trainer and the entropy helpers reject NaN and ±inf
// the same way: `detail::require_finite(x, where...)` throws numeric_error whose message is
// the streamable parts `where...` (who and what, e.g. "Adam: gradient"), the offending entry
// for matrices, and the value. It builds no string unless it throws, so it can run once per
// iteration without allocating.
#pragma once

#include <cmath>

#include <Eigen/Core>

#include "maxent/core/error.hpp"

namespace maxent::detail {

/// Throws numeric_error "<where...> is <x>" unless x is finite.
template <class... Where>
void require_finite(double x, const Where&... where) {
    if (!std::isfinite(x)) throw numeric_error(detail::message(where..., " is ", x));
}

/// Throws numeric_error "<where...>: entry (r, c) is <x>" naming the first non-finite entry
/// (column-major order) of m, unless every entry is finite. Works on blocks (rows) too.
template <class Derived, class... Where>
void require_finite(const Eigen::DenseBase<Derived>& m, const Where&... where) {
    // x - x is +0 for a finite x and NaN for ±inf or NaN, so the sum of the differences is
    // NaN exactly when an entry is not finite: one vectorised pass (Eigen's allFinite()
    // tests the entries one by one, a fifth of an iteration on a 10^6 x 4 θ).
    if (!std::isnan((m.derived().array() - m.derived().array()).sum())) return;
    for (Eigen::Index c = 0; c < m.cols(); ++c)
        for (Eigen::Index r = 0; r < m.rows(); ++r) {
            const double x = m(r, c);
            if (!std::isfinite(x))
                throw numeric_error(detail::message(where..., ": entry (", r, ", ", c, ") is ", x));
        }
}

/// The Frobenius norm: m.norm(), or, only when that overflows (entries beyond about 1e154),
/// Eigen's scaled stableNorm(), so that results that fit are m.norm() exactly and large ones
/// are not reported as inf.
template <class Derived>
[[nodiscard]] double norm_without_overflow(const Eigen::MatrixBase<Derived>& m) {
    const double n = m.norm();
    return std::isfinite(n) ? n : m.stableNorm();
}

}  // namespace maxent::detail
