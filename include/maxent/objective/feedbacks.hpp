// maxent/objective/feedbacks.hpp — the Feedback concept and the paper's four feedbacks.
//
// Paper, Algorithm 1 (line 4) and Sections 4–5: the policy gradient multiplies the score of
// a trajectory by a scalar "feedback". The objectives differ only in it:
//   MSE      H(d(τ_S))                  entropy of the true states        (Eq. 2)
//   MOE      H(d(τ_O))                  entropy of the observations       (Eq. 3)
//   MBE      H(d(τ_S̃)),  s̃_t ~ b_t      entropy of believed states        (Eq. 4)
//   Reg-MBE  H(d(τ_S̃)) - ρ Σ_t H(b_t)   MBE with belief regularisation    (Section 5)
// All entropies use the natural log over the T counted steps, aligned per quantity as the
// StateCounting convention says (core/trajectory.hpp). MSE counts
// the world's true states (by index, or in the bins of a simulator's binning), MOE the
// world's observations, MBE and Reg-MBE believed states in the agent's own belief space.
//
// Feedback concept — required expressions, for `const F f`, `const Trajectory t` and a
// generator `g` (archetype DefaultRng):
//   f(t, g)      -> double: the feedback of the finished trajectory (g is for feedbacks that
//                   draw; the built-in ones do not: MBE's believed states are drawn by the
//                   rollout, one per step, when needs().believed_states is set)
//   f.needs()    -> RolloutNeeds: what the rollout must record for this feedback
// Satisfied by StateEntropy, ObservationEntropy, BelievedStateEntropy,
// RegularizedBelievedEntropy and PartitionEntropy below; write your own the same way.
// A feedback object may keep scratch buffers and is used by one thread at a time.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <span>
#include <utility>
#include <vector>

#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"

namespace maxent {

namespace concept_checks {
template <class F>
concept has_feedback_call = requires(const F& f, const Trajectory& t, DefaultRng& g) {
    { f(t, g) } -> std::convertible_to<double>;
};
template <class F>
concept has_needs = requires(const F& f) { { f.needs() } -> std::convertible_to<RolloutNeeds>; };
}  // namespace concept_checks

template <class F>
concept Feedback = concept_checks::has_feedback_call<F> && concept_checks::has_needs<F>;

template <class F>
consteval bool require_feedback() {
    static_assert(concept_checks::has_feedback_call<F>,
                  "maxent::Feedback: missing `double operator()(const Trajectory&, G& g) const` "
                  "(templated on the generator, or taking DefaultRng&)");
    static_assert(concept_checks::has_needs<F>, "maxent::Feedback: missing `RolloutNeeds needs() const`");
    return true;
}

namespace detail {
/// Entropy of the empirical distribution of `values` (each < size), with a reused counter.
inline double empirical_entropy(std::span<const std::size_t> values, std::size_t size, EmpiricalCounter& counter) {
    if (counter.size() != size) counter.resize(size);
    counter.clear();
    for (const std::size_t v : values) counter.add(v);
    return counter.entropy();
}
}  // namespace detail

/// H(d(τ_S)) of a trajectory's counted true states (what every figure plots).
[[nodiscard]] inline double true_state_entropy(const Trajectory& t, EmpiricalCounter& scratch) {
    return detail::empirical_entropy(t.counted_states(), t.num_states, scratch);
}
[[nodiscard]] inline double true_state_entropy(const Trajectory& t) {
    EmpiricalCounter scratch(t.num_states);
    return true_state_entropy(t, scratch);
}

/// Σ_t H(b_t) over the counted steps (requires belief entropies to have been recorded).
[[nodiscard]] inline double belief_entropy_sum(const Trajectory& t) {
    const std::size_t needed = t.counted_begin(Counted::belief_entropies) + t.horizon;
    if (t.belief_entropy.size() < needed)
        throw config_error(detail::message("belief_entropy_sum: the trajectory recorded ", t.belief_entropy.size(),
                                           " belief entropies, ", needed,
                                           " needed (record them with RolloutNeeds::belief_entropy)"));
    double sum = 0.0;
    for (const double h : t.counted_belief_entropies()) sum += h;
    return sum;
}

/// MSE feedback: H(d(τ_S)).
class StateEntropy {
public:
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        return true_state_entropy(t, counter_);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {}; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "mse"; }

private:
    mutable EmpiricalCounter counter_;
};

/// MOE feedback: H(d(τ_O)).
class ObservationEntropy {
public:
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        return detail::empirical_entropy(t.counted_observations(), t.num_observations, counter_);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {}; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "moe"; }

private:
    mutable EmpiricalCounter counter_;
};

/// MBE feedback: H(d(τ_S̃)) with one believed state s̃_t ~ b_t per counted step.
class BelievedStateEntropy {
public:
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        const std::size_t needed = t.counted_begin(Counted::believed_states) + t.horizon;
        if (t.believed.size() < needed)
            throw config_error(detail::message("MBE feedback: the trajectory recorded ", t.believed.size(),
                                               " believed states, ", needed, " needed"));
        return detail::empirical_entropy(t.counted_believed(), t.belief_dimension, counter_);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {.belief_entropy = false, .believed_states = true}; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "mbe"; }

private:
    mutable EmpiricalCounter counter_;
};

/// Reg-MBE feedback: H(d(τ_S̃)) - ρ Σ_t H(b_t) (paper, Section 5; ρ ≈ 0.02 in the figures).
/// H(b_t) is what the rollout recorded: the entropy of b_t, or the updater's own estimate
/// when it has belief_entropy(b) (core/optional_members.hpp; a particle filter's binned-particle
/// entropy with or without its bias correction, belief/particle_filter.hpp).
class RegularizedBelievedEntropy {
public:
    explicit RegularizedBelievedEntropy(double rho) : rho_(rho) {
        if (!(rho >= 0.0) || !std::isfinite(rho))
            throw config_error(detail::message("Reg-MBE: rho must be finite and >= 0, got ", rho));
    }
    template <class G>
    double operator()(const Trajectory& t, G& g) const {
        return mbe_(t, g) - rho_ * belief_entropy_sum(t);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {.belief_entropy = true, .believed_states = true}; }
    [[nodiscard]] double rho() const noexcept { return rho_; }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "reg-mbe"; }

private:
    double rho_;
    BelievedStateEntropy mbe_;
};

/// Entropy of the true states mapped through a partition (block index per state): e.g. the
/// rooms of a four-rooms grid. An example of a user-defined feedback.
class PartitionEntropy {
public:
    explicit PartitionEntropy(std::vector<std::size_t> block_of_state) : block_(std::move(block_of_state)) {
        if (block_.empty()) throw config_error("PartitionEntropy: empty partition");
        for (const auto b : block_) blocks_ = std::max(blocks_, b + 1);
    }
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        if (t.num_states != block_.size())
            throw config_error(detail::message("PartitionEntropy: partition covers ", block_.size(),
                                               " states, the trajectory's model has ", t.num_states));
        if (counter_.size() != blocks_) counter_.resize(blocks_);
        counter_.clear();
        for (const std::size_t s : t.counted_states()) counter_.add(block_[s]);
        return counter_.entropy();
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {}; }

private:
    std::vector<std::size_t> block_;
    std::size_t blocks_ = 0;
    mutable EmpiricalCounter counter_;
};

using MSE = StateEntropy;
using MOE = ObservationEntropy;
using MBE = BelievedStateEntropy;
using RegMBE = RegularizedBelievedEntropy;

}  // namespace maxent
