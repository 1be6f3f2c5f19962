// maxent/core/entropy.hpp — Shannon entropy of probability vectors and of empirical counts.
//
// Natural logarithm throughout, with the convention 0 · log 0 = 0 (paper, Eq. 1–2:
// H(d) = -Σ d(s) log d(s)). `EmpiricalCounter` accumulates the empirical distribution
// d(τ) of a trajectory over a finite set (states, observations, believed states) and gives
// H(d(τ)) in time linear in the trajectory length, with O(#distinct) reset and no
// allocation after construction.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/finite.hpp"

namespace maxent {

/// H(p) over the positive entries of p, without validation: for vectors known to be on the
/// simplex, such as beliefs in the rollout's per-step loop (no checks, no allocation).
[[nodiscard]] inline double entropy_unchecked(const Eigen::Ref<const Eigen::VectorXd>& p) noexcept {
    double h = 0.0;
    for (Eigen::Index i = 0; i < p.size(); ++i) {
        const double x = p[i];
        if (x > 0.0) h -= x * std::log(x);
    }
    return h;
}

/// H(p) = -Σ p_i log p_i over the positive entries of p (0 · log 0 = 0). The vector is
/// used as given (no renormalisation); a negative entry throws config_error, a non-finite
/// one numeric_error, and so does a sum that overflows (entries far above 1, whose
/// entropy is not representable).
[[nodiscard]] inline double entropy(const Eigen::Ref<const Eigen::VectorXd>& p) {
    for (Eigen::Index i = 0; i < p.size(); ++i) {
        const double x = p[i];
        detail::require_finite(x, "entropy: entry ", i);
        if (!(x >= 0.0))
            throw config_error(detail::message("entropy: entry ", i, " is ", x,
                                               " (probabilities must be finite and >= 0)"));
    }
    const double h = entropy_unchecked(p);
    if (!std::isfinite(h))
        throw numeric_error(detail::message("entropy: the sum of -p log p overflows to ", h, " (largest entry ", p.maxCoeff(),
                                            "; entropy expects probabilities)"));
    return h;
}

/// Entropy of the empirical distribution given by non-negative finite counts: with
/// n = Σ c_i, H = log n - (1/n) Σ c_i log c_i. Returns 0 for n = 0. A negative count throws
/// config_error, a non-finite one numeric_error. Counts so large that n or Σ c log c
/// overflows (beyond about 1e306) are divided by the largest count first (H does not
/// change under scaling); other counts take the formula above unchanged.
template <class Count>
[[nodiscard]] double entropy_of_counts(std::span<const Count> counts) {
    double n = 0.0;
    double s = 0.0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        const auto x = static_cast<double>(counts[i]);
        detail::require_finite(x, "entropy_of_counts: count ", i);
        if (!(x >= 0.0))
            throw config_error(detail::message("entropy_of_counts: negative count ", x, " (count ", i, ")"));
        if (x > 0.0) {
            n += x;
            s += x * std::log(x);
        }
    }
    if (std::isfinite(n) && std::isfinite(s)) return n > 0.0 ? std::log(n) - s / n : 0.0;
    // Overflow: the same formula on c_i / max_j c_j, whose sum is at most counts.size().
    double top = 0.0;
    for (const Count c : counts) top = std::max(top, static_cast<double>(c));
    n = 0.0;
    s = 0.0;
    for (const Count c : counts) {
        const double x = static_cast<double>(c) / top;
        if (x > 0.0) {
            n += x;
            s += x * std::log(x);
        }
    }
    return std::log(n) - s / n;
}

/// Counts of visits to the outcomes 0..size-1 of a finite set, with the entropy of the
/// empirical distribution. `clear()` costs O(number of distinct outcomes seen).
class EmpiricalCounter {
public:
    EmpiricalCounter() = default;
    explicit EmpiricalCounter(std::size_t size) : counts_(size, 0) { touched_.reserve(size); }

    /// Resizes (and clears) the counter; allocates only when growing.
    void resize(std::size_t size) {
        counts_.assign(size, 0);
        touched_.clear();
        touched_.reserve(size);
        total_ = 0;
    }

    /// Adds one visit to `outcome` (throws config_error if outcome >= size()).
    void add(std::size_t outcome) {
        if (outcome >= counts_.size())
            throw config_error(detail::message("EmpiricalCounter::add: outcome ", outcome,
                                               " is outside [0, ", counts_.size(), ")"));
        if (counts_[outcome]++ == 0) touched_.push_back(static_cast<std::uint32_t>(outcome));
        ++total_;
    }

    void clear() noexcept {
        for (const auto i : touched_) counts_[i] = 0;
        touched_.clear();
        total_ = 0;
    }

    [[nodiscard]] std::size_t size() const noexcept { return counts_.size(); }
    [[nodiscard]] std::size_t total() const noexcept { return total_; }
    [[nodiscard]] std::size_t distinct() const noexcept { return touched_.size(); }
    [[nodiscard]] std::uint32_t count(std::size_t outcome) const { return counts_.at(outcome); }

    /// H(d) of the empirical distribution d = counts / total (0 when empty).
    [[nodiscard]] double entropy() const noexcept {
        if (total_ == 0) return 0.0;
        double s = 0.0;
        for (const auto i : touched_) {
            const double c = counts_[i];
            s += c * std::log(c);
        }
        const double n = static_cast<double>(total_);
        const double h = std::log(n) - s / n;
        return h > 0.0 ? h : 0.0;  // rounding can give -1e-16 for a single outcome
    }

private:
    std::vector<std::uint32_t> counts_;
    std::vector<std::uint32_t> touched_;
    std::size_t total_ = 0;
};

}  // namespace maxent
