// maxent/core/budget.hpp — the memory limit on buffers sized by the horizon or the batch,
// with byte counts that cannot overflow.
//
// Rollouts (optim/rollout.hpp), trainers (optim/trainer.hpp) and the exact enumeration
// (objective/exact.hpp) reserve buffers whose size grows with the horizon T (the trajectory
// record, the S x T belief matrix, N·K x A compact gradients) or the batch N. A horizon such
// as 10^12 or SIZE_MAX (a typo, a file) would make those reservations throw std::bad_alloc
// or std::length_error, or wrap around in size arithmetic. Instead, each constructor states
// what it is about to reserve as a `BufferCost` and calls `check_buffer_budget`, which throws
// budget_error naming the cost, the caller's description (horizon, batch) and the limit
// `max_buffer_bytes`, before anything is allocated.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "maxent/core/error.hpp"
#include "maxent/core/trajectory.hpp"

namespace maxent {

/// The most bytes one object (a Sampler, a Trainer's batch buffers, an exact enumeration)
/// reserves for buffers sized by the horizon or the batch: 16 GiB (less where std::size_t
/// is narrower than 64 bits). Far above any run the library is meant for (a 5 x 5 room
/// with T = 25 records about 1 KiB per trajectory).
inline constexpr std::size_t max_buffer_bytes =
    static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{1} << 34, std::numeric_limits<std::size_t>::max() / 2));

/// A number of bytes, Σ (product of counts) · bytes_each over buffers, computed with
/// overflow checking: once a product or the sum overflows std::size_t the cost is
/// `overflowed()` (more than any limit) instead of wrapping around.
class BufferCost {
public:
    /// Adds a buffer of (c1 · c2 · ...) elements of `bytes_each` bytes each.
    constexpr BufferCost& add(std::initializer_list<std::size_t> counts, std::size_t bytes_each) noexcept {
        if (bytes_each == 0 || std::find(counts.begin(), counts.end(), std::size_t{0}) != counts.end()) return *this;
        std::size_t n = bytes_each;
        for (const std::size_t c : counts) {
            if (c > top / n) {
                overflowed_ = true;
                return *this;
            }
            n *= c;
        }
        if (bytes_ > top - n)
            overflowed_ = true;
        else
            bytes_ += n;
        return *this;
    }

    [[nodiscard]] constexpr bool overflowed() const noexcept { return overflowed_; }
    /// The total (meaningless when overflowed()).
    [[nodiscard]] constexpr std::size_t bytes() const noexcept { return bytes_; }
    [[nodiscard]] constexpr bool exceeds(std::size_t limit) const noexcept { return overflowed_ || bytes_ > limit; }

private:
    static constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
    std::size_t bytes_ = 0;
    bool overflowed_ = false;
};

/// The bytes of a Trajectory recording K actions (K + 1 steps) with beliefs of S entries:
/// states, observations, belief entropies and believed states per step, the actions, and the
/// S x (K + 1) belief matrix when needs.beliefs.
[[nodiscard]] constexpr BufferCost trajectory_record_cost(std::size_t S, std::size_t K, RolloutNeeds needs) noexcept {  // S: the belief dimension
    constexpr std::size_t per_step = 3 * sizeof(std::size_t) + sizeof(double);  // states, observations, believed; entropy
    BufferCost cost;
    cost.add({K}, per_step).add({1}, per_step).add({K}, sizeof(std::size_t));  // K + 1 steps without overflowing K + 1
    if (needs.beliefs) cost.add({S, K}, sizeof(double)).add({S}, sizeof(double));
    return cost;
}

/// Throws budget_error when `cost` exceeds max_buffer_bytes; the message is
/// `what...` (streamable parts naming the caller and the offending size) followed by the
/// number of bytes and the limit. Builds no string unless it throws.
template <class... What>
void check_buffer_budget(const BufferCost& cost, const What&... what) {
    if (!cost.exceeds(max_buffer_bytes)) return;
    if (cost.overflowed())
        throw budget_error(detail::message(what..., " would take more bytes than a std::size_t can count, above the "
                                                    "limit maxent::max_buffer_bytes = ",
                                           max_buffer_bytes));
    throw budget_error(detail::message(what..., " would take ", cost.bytes(),
                                       " bytes, above the limit maxent::max_buffer_bytes = ", max_buffer_bytes));
}

}  // namespace maxent
