// maxent/core/statistics.hpp — Student-t quantiles and the mean of a sample with its
// two-sided confidence interval, for evaluations and training histories
// (optim/evaluate.hpp) and for the programs' curves across seeds (runtime/).
//
// The interval of n values with sample mean m and sample standard deviation s (divisor
// n - 1) is m ± t_{(1 + L)/2, n - 1} · s / sqrt(n). mean_interval accumulates m and s in
// index order by Welford's update (n equal values give exactly that value and a width of 0);
// two_pass_mean_interval sums the values, then the squared deviations (the order the
// programs' CSV files are written in), and gives n = 1 the degenerate interval [m, m].
//
// The t quantile is computed without a statistics library: the t CDF through the
// regularised incomplete beta function, F(t) = 1 - I_{ν/(ν+t²)}(ν/2, 1/2) / 2 for t > 0
// (continued fraction, modified Lentz), inverted by bisection to full double precision.
// Known values: t_{0.975,1} = 12.7062047 (= tan(0.475 π)), t_{0.975,15} = 2.131449546,
// t_{0.975,30} = 2.042272456.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#include "maxent/core/error.hpp"

namespace maxent {

namespace detail {

/// The continued fraction of I_x(a, b) (converges fast for x < (a + 1) / (a + b + 2)),
/// without the prefactor: returns 1 / (1 + d1 / (1 + d2 / (1 + ...))).
inline double incomplete_beta_fraction(double a, double b, double x) {
    constexpr double tiny = 1e-300;
    constexpr double eps = 1e-16;
    // f = 1 + d1/(1 + d2/(1 + ...)) by the modified Lentz method.
    double f = 1.0, C = 1.0, D = 0.0;
    for (int m = 0; m < 10000; ++m) {
        for (int parity = 0; parity < 2; ++parity) {
            double d;
            if (parity == 0) {  // d_{2m+1}
                const double md = static_cast<double>(m);
                d = -(a + md) * (a + b + md) * x / ((a + 2.0 * md) * (a + 2.0 * md + 1.0));
            } else {  // d_{2m+2}, with m' = m + 1
                const double mp = static_cast<double>(m + 1);
                d = mp * (b - mp) * x / ((a + 2.0 * mp - 1.0) * (a + 2.0 * mp));
            }
            D = 1.0 + d * D;
            if (std::abs(D) < tiny) D = tiny;
            C = 1.0 + d / C;
            if (std::abs(C) < tiny) C = tiny;
            D = 1.0 / D;
            const double delta = C * D;
            f *= delta;
            if (std::abs(delta - 1.0) < eps) return 1.0 / f;
        }
    }
    return 1.0 / f;  // not reached for the arguments used here
}

}  // namespace detail

/// The regularised incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1].
/// `one_minus_x` must equal 1 - x; passing it separately keeps full precision when x is
/// close to 1. Throws config_error naming the argument otherwise.
[[nodiscard]] inline double regularized_incomplete_beta(double a, double b, double x, double one_minus_x) {
    if (!(a > 0.0) || !(b > 0.0) || !std::isfinite(a) || !std::isfinite(b))
        throw config_error(detail::message("regularized_incomplete_beta: a = ", a, " and b = ", b,
                                                   " must be finite and > 0"));
    if (!(x >= 0.0 && x <= 1.0))
        throw config_error(detail::message("regularized_incomplete_beta: x = ", x, " is outside [0, 1]"));
    if (x == 0.0) return 0.0;
    if (one_minus_x == 0.0) return 1.0;
    const double log_front =
        a * std::log(x) + b * std::log(one_minus_x) - (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
    if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) / a * detail::incomplete_beta_fraction(a, b, x);
    return 1.0 - std::exp(log_front) / b * detail::incomplete_beta_fraction(b, a, one_minus_x);
}

/// The CDF of Student's t distribution with `df` > 0 degrees of freedom.
[[nodiscard]] inline double student_t_cdf(double t, double df) {
    if (!(df > 0.0) || !std::isfinite(df))
        throw config_error(detail::message("student_t_cdf: degrees of freedom ", df, " must be finite and > 0"));
    if (std::isnan(t)) throw config_error("student_t_cdf: t is NaN");
    if (t == 0.0) return 0.5;
    if (std::isinf(t)) return t > 0.0 ? 1.0 : 0.0;
    const double t2 = t * t;
    const double x = df / (df + t2);         // P(|T| > |t|) = I_x(df/2, 1/2)
    const double one_minus_x = t2 / (df + t2);
    const double tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, x, one_minus_x);
    return t > 0.0 ? 1.0 - tail : tail;
}

/// The p-quantile of Student's t with `df` > 0 degrees of freedom, p in (0, 1):
/// the t with student_t_cdf(t, df) = p, to full double precision (bisection on the
/// upper tail, which is computed without cancellation). Throws config_error naming p or df.
[[nodiscard]] inline double student_t_quantile(double p, double df) {
    if (!(df > 0.0) || !std::isfinite(df))
        throw config_error(detail::message("student_t_quantile: degrees of freedom ", df,
                                                   " must be finite and > 0"));
    if (!(p > 0.0 && p < 1.0))
        throw config_error(detail::message("student_t_quantile: probability p = ", p, " is outside (0, 1)"));
    if (p == 0.5) return 0.0;
    if (p < 0.5) return -student_t_quantile(1.0 - p, df);
    const double target = 1.0 - p;  // upper tail P(T > t)
    auto upper_tail = [df](double t) {
        const double t2 = t * t;
        return 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2));
    };
    double lo = 0.0, hi = 1.0;
    while (upper_tail(hi) > target) {
        lo = hi;
        hi *= 2.0;
        if (!std::isfinite(hi)) return std::numeric_limits<double>::infinity();
    }
    for (int i = 0; i < 2000; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;  // the bracket is two adjacent doubles
        if (upper_tail(mid) > target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/// The mean of a sample and its two-sided confidence interval [low, high].
struct MeanInterval {
    double mean = 0.0;
    double low = 0.0;
    double high = 0.0;
    std::size_t n = 0;
    double level = 0.95;
    [[nodiscard]] double half_width() const noexcept { return (high - low) / 2.0; }
    [[nodiscard]] bool contains(double x) const noexcept { return low <= x && x <= high; }
};

/// Mean ± t_{(1 + level)/2, n - 1} · s / sqrt(n) of `values`, accumulated in index order
/// (Welford). Throws config_error for fewer than 2 values (no spread to estimate), a
/// non-finite value (naming its index) or a level outside (0, 1).
[[nodiscard]] inline MeanInterval mean_interval(std::span<const double> values, double level = 0.95) {
    if (!(level > 0.0 && level < 1.0))
        throw config_error(detail::message("mean_interval: level ", level, " is outside (0, 1)"));
    if (values.size() < 2)
        throw config_error(detail::message("mean_interval: ", values.size(),
                                           " values; an interval needs at least 2"));
    double mean = 0.0;
    double m2 = 0.0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double x = values[i];
        if (!std::isfinite(x)) throw config_error(detail::message("mean_interval: value ", i, " is ", x));
        const double delta = x - mean;
        mean += delta / static_cast<double>(i + 1);
        m2 += delta * (x - mean);
    }
    const auto n = static_cast<double>(values.size());
    const double sd = std::sqrt(m2 / (n - 1.0));
    const double half = student_t_quantile(0.5 + level / 2.0, n - 1.0) * sd / std::sqrt(n);
    return {mean, mean - half, mean + half, values.size(), level};
}

namespace detail {
inline MeanInterval two_pass_interval(std::span<const double> values, const double* t_quantile, double level) {
    if (values.empty()) throw config_error("two_pass_mean_interval: no values (n = 0)");
    const std::size_t n = values.size();
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(values[i]))
            throw config_error(detail::message("two_pass_mean_interval: value ", i, " is ", values[i]));
        sum += values[i];
    }
    const double mean = sum / static_cast<double>(n);
    MeanInterval ci{mean, mean, mean, n, level};
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

/// Mean ± t_{(1 + level)/2, n - 1} · s / sqrt(n) of `values`, in two passes (see the header);
/// n = 1: low = high = mean. Throws config_error for an empty sample, a non-finite value
/// (naming its index) or a level outside (0, 1).
[[nodiscard]] inline MeanInterval two_pass_mean_interval(std::span<const double> values, double level = 0.95) {
    if (!(level > 0.0 && level < 1.0))
        throw config_error(detail::message("two_pass_mean_interval: level ", level, " is outside (0, 1)"));
    return detail::two_pass_interval(values, nullptr, level);
}

/// The same at level 0.95 with the quantile t_{0.975, n - 1} given (computed once for many
/// samples of one size). Throws config_error for a non-finite or negative quantile.
[[nodiscard]] inline MeanInterval two_pass_mean_interval_t(std::span<const double> values, double t_quantile) {
    if (!std::isfinite(t_quantile) || t_quantile < 0.0)
        throw config_error(detail::message("two_pass_mean_interval: t quantile ", t_quantile,
                                           " is not finite and >= 0"));
    return detail::two_pass_interval(values, &t_quantile, 0.95);
}

}  // namespace maxent
