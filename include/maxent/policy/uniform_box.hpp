// maxent/policy/uniform_box.hpp — the uniformly random policy over a box of continuous
// actions: the baseline of worlds with continuous actions (what UniformPolicy is to index
// actions). a_j = lower_j + (upper_j - lower_j) U_j, one uniform01 draw per coordinate in
// order; density 1 / volume. No parameters (it adds nothing to the score), never reads the
// belief. ContinuousPolicy (policy/concepts.hpp), with log_density and an empty log_gradient.
// Built for one box: check_dimensions refuses a world whose box differs (a narrower box would
// pass the rollout's inside-the-box check yet not be the world's uniform baseline).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <span>
#include <utility>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

class UniformBoxPolicy {
public:
    static constexpr bool needs_belief = false;

    explicit UniformBoxPolicy(ActionBox box) : box_(std::move(box)) {
        box_.check("UniformBoxPolicy");
        log_volume_ = 0.0;
        for (std::size_t j = 0; j < box_.dimension(); ++j) log_volume_ += std::log(box_.upper[j] - box_.lower[j]);
    }

    [[nodiscard]] std::size_t action_dimension() const noexcept { return box_.dimension(); }
    [[nodiscard]] const ActionBox& box() const noexcept { return box_; }

    template <std::uniform_random_bit_generator G>
    void sample(const AgentView&, G& g, Eigen::MatrixXd&, std::span<double> action) const {
        if (action.size() != box_.dimension())
            throw config_error(detail::message("UniformBoxPolicy: sample was given room for an action of ",
                                               action.size(), " coordinates; the box's have ", box_.dimension()));
        for (std::size_t j = 0; j < box_.dimension(); ++j)
            action[j] = box_.lower[j] + (box_.upper[j] - box_.lower[j]) * uniform01(g);
    }
    /// -log volume inside the box (bounds included), -inf outside.
    [[nodiscard]] double log_density(const AgentView&, std::span<const double> action) const {
        if (action.size() != box_.dimension())
            throw config_error(detail::message("UniformBoxPolicy: an action of ", action.size(),
                                               " coordinates, the box's have ", box_.dimension()));
        return box_.contains(action) ? -log_volume_ : -std::numeric_limits<double>::infinity();
    }
    void log_gradient(const AgentView&, std::span<const double>, Eigen::MatrixXd&) const noexcept {}
    void check_dimensions(const AgentDimensions& d) const {
        if (d.actions != box_.dimension())
            throw config_error(detail::message("UniformBoxPolicy: built for actions of dimension ",
                                               box_.dimension(), " but the world's actions have ", d.actions,
                                               " coordinates"));
        box_.require_world_box(d.box, "UniformBoxPolicy");
    }

private:
    ActionBox box_;
    double log_volume_ = 0.0;
};

}  // namespace maxent
