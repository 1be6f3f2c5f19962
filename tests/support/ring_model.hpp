// tests/support/ring_model.hpp — the small stochastic ring the exact-objective and
// reliability tests share: 3 states, 2 actions with two successors each (forward: 0.8 on,
// 0.2 stay; back: 0.6 back, 0.4 stay), 2 noisy observations, μ = (0.7, 0.3, 0).
// Leaf bound without believed states: 2 · 2 · 8^K.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include "maxent/model/finite_pomdp.hpp"

namespace test_models {

inline maxent::FinitePomdp<int, int, int> ring_model(std::size_t horizon) {
    Eigen::MatrixXd forward = Eigen::MatrixXd::Zero(3, 3);
    Eigen::MatrixXd back = Eigen::MatrixXd::Zero(3, 3);
    for (Eigen::Index s = 0; s < 3; ++s) {
        forward(s, (s + 1) % 3) = 0.8;
        forward(s, s) = 0.2;
        back(s, (s + 2) % 3) = 0.6;
        back(s, s) = 0.4;
    }
    Eigen::MatrixXd Z(3, 2);
    Z << 0.9, 0.1, 0.5, 0.5, 0.15, 0.85;
    Eigen::VectorXd mu(3);
    mu << 0.7, 0.3, 0.0;
    return maxent::FinitePomdp<int, int, int>({0, 1, 2}, {0, 1}, {0, 1}, std::vector<Eigen::MatrixXd>{forward, back},
                                              std::vector<Eigen::MatrixXd>{Z}, mu, horizon);
}

}  // namespace test_models
