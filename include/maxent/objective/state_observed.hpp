// maxent/objective/state_observed.hpp — upper bounds on the expected true-state entropy
// H(d(τ_S)) of T counted states over S, which no policy can beat.
//
//   even_split_bound(S, T)  the counts as even as they can be: log T when T <= S, log S
//                           when S divides T; whatever the dynamics.
//   state_observed_optimum(m, counting[, max_nodes])
//                           the best policy that SEES the true state (and remembers the
//                           counts): an upper bound on every POMDP policy, which sees less,
//                           exact for the model's dynamics. Dynamic programming over (state,
//                           counts so far): V(s, c) = max_a Σ_s' P(s' | s, a) V(s', c + e_s'),
//                           and H(c / T) once T states are counted.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

/// The largest entropy of T counted states over S: the counts as even as they can be (T / S
/// each, the remainder one more), log T when T <= S and log S when S divides T. No policy
/// of any kind can do better, whatever the dynamics.
[[nodiscard]] inline double even_split_bound(std::size_t states, std::size_t counted) {
    if (states == 0 || counted == 0) return 0.0;
    const std::size_t q = counted / states, r = counted % states;
    const auto T = static_cast<double>(counted);
    auto term = [&](std::size_t c) { return c == 0 ? 0.0 : static_cast<double>(c) * std::log(static_cast<double>(c)); };
    return std::log(T) - (static_cast<double>(r) * term(q + 1) + static_cast<double>(states - r) * term(q)) / T;
}

/// The largest expected true-state entropy of any policy that SEES the true state (and
/// remembers the counts): an upper bound on every POMDP policy, which sees less, and exact
/// for the model's dynamics (unlike even_split_bound). Dynamic programming over (state,
/// counts so far): V(s, c) = max_a Σ_s' P(s' | s, a) V(s', c + e_s'), and H(c / T) once T
/// states are counted; under the paper's counting s_1 is counted (T - 1 actions), under
/// the authors' it is not (T actions). Empty when the reachable (state, counts) pairs would
/// exceed `max_nodes`, or S or T is above 255 (a key holds one byte per state).
template <class M>
[[nodiscard]] std::optional<double> state_observed_optimum(const M& m, StateCounting counting,
                                                          std::size_t max_nodes = 500'000) {
    static_assert(require_pomdp<M>());
    const std::size_t S = m.num_states(), A = m.num_actions(), T = m.horizon();
    if (T == 0 || T > 255 || S > 255) return std::nullopt;
    const std::size_t actions = counting == StateCounting::authors ? T : T - 1;
    std::vector<double> clogc(T + 1, 0.0);
    for (std::size_t c = 2; c <= T; ++c) clogc[c] = static_cast<double>(c) * std::log(static_cast<double>(c));
    const double logT = std::log(static_cast<double>(T));
    std::unordered_map<std::string, double> memo;  // key: the counts (one byte per state), ':', the state
    std::string key(S, '\0');
    bool over = false;
    // Value with `left` actions to go from state s with counts `key`.
    std::function<double(std::size_t, std::size_t)> value = [&](std::size_t s, std::size_t left) -> double {
        if (left == 0) {
            double sum = 0.0;
            for (std::size_t i = 0; i < S; ++i) sum += clogc[static_cast<unsigned char>(key[i])];
            return logT - sum / static_cast<double>(T);
        }
        std::string k = key;
        k += ':';
        k += std::to_string(s);
        if (const auto it = memo.find(k); it != memo.end()) return it->second;
        if (over || memo.size() >= max_nodes) {
            over = true;
            return 0.0;
        }
        double best = 0.0;
        for (std::size_t a = 0; a < A; ++a) {
            const SparseDistribution d = m.transition(s, a);
            double v = 0.0;
            for (std::size_t j = 0; j < d.size(); ++j) {
                const auto next = static_cast<std::size_t>(d.index[j]);
                key[next] = static_cast<char>(static_cast<unsigned char>(key[next]) + 1);
                v += d.probability[j] * value(next, left - 1);
                key[next] = static_cast<char>(static_cast<unsigned char>(key[next]) - 1);
            }
            best = std::max(best, v);
        }
        memo.emplace(std::move(k), best);
        return best;
    };
    const Eigen::VectorXd& mu = m.initial_distribution();
    double total = 0.0;
    for (std::size_t s = 0; s < S; ++s) {
        if (mu[static_cast<Eigen::Index>(s)] == 0.0) continue;
        if (counting == StateCounting::paper) key[s] = 1;
        total += mu[static_cast<Eigen::Index>(s)] * value(s, actions);
        if (counting == StateCounting::paper) key[s] = 0;
    }
    if (over) return std::nullopt;
    return total;
}

}  // namespace maxent
