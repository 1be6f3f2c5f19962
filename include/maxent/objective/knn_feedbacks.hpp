// maxent/objective/knn_feedbacks.hpp — MSE and MOE counted without bins: the
// Kozachenko–Leonenko k-nearest-neighbour entropy (core/knn_entropy.hpp) of the T counted
// true states or observations of one trajectory, as points of R^d.
//
// Paper, Eq. 2 and Eq. 3 for continuous worlds: H(d(τ_S)) and H(d(τ_O)) of a finite
// trajectory are estimated as differential entropies (nats; they may be negative) of the
// points, the way state-entropy methods in continuous spaces do (MEPOL). True states are read
// through the world's map state -> R^d (with_state_points, model/wrappers.hpp), observations
// in their point form (a PointLike observation_type, or the world's observation_point).
// The binned feedbacks (objective/feedbacks.hpp: StateEntropy over state_bin, ObservationEntropy
// over observation_bin) stay available for the same worlds.
//
// k is a parameter (k < T). Repeated points (a robot pinned to a wall) are counted at a
// resolution, as KnnEntropy's `min_distance` says: unset (the default), 10^-12 of the
// trajectory's point-cloud diagonal (the scale rule: trajectories without such ties keep the
// plain estimator's bits); > 0, that resolution; 0, ties refused (core/knn_entropy.hpp).
// Errors: config_error for k = 0 or k >= T and for a trajectory without the points
// recorded; numeric_error for a non-finite coordinate or refused ties (naming the point).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/trajectory.hpp"

namespace maxent {

/// MSE by k nearest neighbours: Ĥ of the counted true states' points.
class KnnStateEntropy {
public:
    explicit KnnStateEntropy(std::size_t k, std::optional<double> min_distance = std::nullopt) : estimator_(k, min_distance) {}
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        return estimator_(t.counted_state_points(), t.state_point_dimension);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {.state_points = true}; }
    [[nodiscard]] std::size_t k() const noexcept { return estimator_.k(); }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "mse-knn"; }

private:
    mutable KnnEntropy estimator_;  // workspace: one feedback object per thread
};

/// MOE by k nearest neighbours: Ĥ of the counted observations' points.
class KnnObservationEntropy {
public:
    explicit KnnObservationEntropy(std::size_t k, std::optional<double> min_distance = std::nullopt) : estimator_(k, min_distance) {}
    template <class G>
    double operator()(const Trajectory& t, G&) const {
        return estimator_(t.counted_observation_points(), t.observation_point_dimension);
    }
    [[nodiscard]] RolloutNeeds needs() const noexcept { return {.observation_points = true}; }
    [[nodiscard]] std::size_t k() const noexcept { return estimator_.k(); }
    [[nodiscard]] static constexpr std::string_view name() noexcept { return "moe-knn"; }

private:
    mutable KnnEntropy estimator_;
};

/// Ĥ of a trajectory's counted true states as points (the plotted metric of a continuous
/// world, without bins).
[[nodiscard]] inline double true_state_knn_entropy(const Trajectory& t, std::size_t k,
                                                   std::optional<double> min_distance = std::nullopt) {
    KnnEntropy estimator(k, min_distance);
    return estimator(t.counted_state_points(), t.state_point_dimension);
}

}  // namespace maxent
