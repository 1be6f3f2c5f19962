// maxent/policy/uniform.hpp — the uniformly random policy π(a | i) = 1 / A: the baseline
// every exploration result is compared with, and what every softmax policy class is at
// θ = 0 (where training starts).
//
// It draws exactly as a softmax policy at θ = 0 does (the same probability vector, 1 / A in
// every entry, through sample_categorical), so evaluating it gives the same episodes, bit
// for bit, as evaluating, say, BeliefAveragedPolicy at θ = 0 with the same streams. It has
// no parameters (it adds nothing to the score) and never reads the belief.
#pragma once

#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

class UniformPolicy {
public:
    static constexpr bool needs_belief = false;

    explicit UniformPolicy(std::size_t num_actions)
        : probs_(Eigen::VectorXd::Constant(static_cast<Eigen::Index>(num_actions),
                                           num_actions == 0 ? 0.0 : 1.0 / static_cast<double>(num_actions))) {
        if (num_actions == 0) throw config_error("UniformPolicy: needs at least one action, got 0");
    }
    [[nodiscard]] std::size_t num_actions() const noexcept { return static_cast<std::size_t>(probs_.size()); }
    void probabilities(const AgentView&, Eigen::VectorXd& out) const { out = probs_; }
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView&, G& g, Eigen::MatrixXd&) const {
        return sample_categorical(probs_, g);
    }
    void check_dimensions(const AgentDimensions& d) const {
        if (d.actions != num_actions())
            throw config_error(detail::message("UniformPolicy: built for ", num_actions(), " actions but the world has ",
                                               d.actions));
    }

private:
    Eigen::VectorXd probs_;
};

}  // namespace maxent
