// tests/support/random_pomdp.hpp — random sparse FinitePomdp models for tests that compare
// two computations of the same thing (e.g. the filter's paths) on many shapes.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/random.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace maxent_test {

// A random model: rows of 1 to 4 successors (a quarter of them deterministic) and
// observation rows of 1 to 3 observations, per action.
inline maxent::FinitePomdp<int, int, int> random_model(std::uint64_t seed, int S, int A, int O) {
    maxent::DefaultRng g(seed);
    auto random_row = [&](int n, int max_entries) {
        Eigen::VectorXd row = Eigen::VectorXd::Zero(n);
        const auto entries = 1 + maxent::uniform_index(g, static_cast<std::uint64_t>(max_entries));
        for (std::uint64_t e = 0; e < entries; ++e)
            row[static_cast<Eigen::Index>(maxent::uniform_index(g, static_cast<std::uint64_t>(n)))] +=
                0.05 + maxent::uniform01(g);
        return Eigen::VectorXd(row / row.sum());
    };
    std::vector<Eigen::MatrixXd> P, Z;
    for (int a = 0; a < A; ++a) {
        P.emplace_back(S, S);
        Z.emplace_back(S, O);
        for (int s = 0; s < S; ++s) {
            P.back().row(s) = random_row(S, 4).transpose();
            Z.back().row(s) = random_row(O, 3).transpose();
        }
    }
    std::vector<int> states(static_cast<std::size_t>(S)), actions(static_cast<std::size_t>(A)),
        observations(static_cast<std::size_t>(O));
    for (int i = 0; i < S; ++i) states[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < A; ++i) actions[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < O; ++i) observations[static_cast<std::size_t>(i)] = i;
    return {states, actions, observations, P, Z, Eigen::VectorXd::Constant(S, 1.0 / S), static_cast<std::size_t>(S)};
}

}  // namespace maxent_test
