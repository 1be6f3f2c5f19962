// examples/common/stats.hpp — Student-t quantiles and the mean ± 95% confidence bands of the
// paper's learning curves.
//
// Paper, Section 6 and Appendix D: "for each curve, we report the average and 95% c.i. over
// 16 runs" (docs/reference.md: Student t with n - 1 = 15 degrees of freedom). Across the n seeds
// of a curve, at one iteration, with sample mean m and sample standard deviation s
// (divisor n - 1), the two-sided level-L bounds are
//     m ± t_{(1 + L) / 2, n - 1} · s / sqrt(n).
// With n = 1 there is no spread to estimate: the bounds are the mean itself (documented
// choice; the band collapses to the curve). n = 0 is an error.
//
// The t quantile is the library's (maxent/core/statistics.hpp). The bounds here are
// two-pass, as the programs' CSV files have always been written.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <span>

#include "maxent/core/error.hpp"
#include "maxent/core/statistics.hpp"

namespace maxent::programs {

using maxent::regularized_incomplete_beta;
using maxent::student_t_cdf;
using maxent::student_t_quantile;

/// Mean and two-sided confidence bounds of a sample.
struct ConfidenceInterval {
    double mean = 0.0;
    double low = 0.0;
    double high = 0.0;
    std::size_t n = 0;
};

namespace detail {
inline ConfidenceInterval interval(std::span<const double> values, const double* t_quantile, double level) {
    if (values.empty()) throw config_error("mean_confidence_interval: no values (n = 0)");
    const std::size_t n = values.size();
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(values[i]))
            throw config_error(maxent::detail::message("mean_confidence_interval: value ", i, " is ", values[i]));
        sum += values[i];
    }
    const double mean = sum / static_cast<double>(n);
    ConfidenceInterval ci{mean, mean, mean, n};
    if (n == 1) return ci;
    double squares = 0.0;
    for (const double v : values) squares += (v - mean) * (v - mean);
    const double sd = std::sqrt(squares / static_cast<double>(n - 1));
    const double t =
        t_quantile != nullptr ? *t_quantile : student_t_quantile(0.5 + level / 2.0, static_cast<double>(n - 1));
    const double half = t * sd / std::sqrt(static_cast<double>(n));
    ci.low = mean - half;
    ci.high = mean + half;
    return ci;
}
}  // namespace detail

/// Mean ± t_{(1 + level) / 2, n - 1} · s / sqrt(n) of `values` (s: sample standard deviation,
/// divisor n - 1, two-pass). n = 1: low = high = mean. Throws config_error for an empty
/// sample, a non-finite value (naming its index) or a level outside (0, 1).
[[nodiscard]] inline ConfidenceInterval mean_confidence_interval(std::span<const double> values,
                                                                 double level = 0.95) {
    if (!(level > 0.0 && level < 1.0))
        throw config_error(maxent::detail::message("mean_confidence_interval: level ", level, " is outside (0, 1)"));
    return detail::interval(values, nullptr, level);
}

/// The same with the quantile t_{(1 + level) / 2, n - 1} given (to compute it once for many
/// samples of the same size). Throws config_error for a non-finite or negative quantile.
[[nodiscard]] inline ConfidenceInterval mean_confidence_interval_t(std::span<const double> values, double t_quantile) {
    if (!std::isfinite(t_quantile) || t_quantile < 0.0)
        throw config_error(maxent::detail::message("mean_confidence_interval: t quantile ", t_quantile,
                                                   " is not finite and >= 0"));
    return detail::interval(values, &t_quantile, 0.95);
}

}  // namespace maxent::programs
