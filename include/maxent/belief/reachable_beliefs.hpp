// maxent/belief/reachable_beliefs.hpp — the beliefs reachable from a prior within a
// horizon (the paper's Algorithm 2, "Belief_set", Appendix "Belief Set Computation").
//
// B_0 = {b_0} (the prior) and B_{d+1} = {B^{ao}(b) : b ∈ B_d, a ∈ A, o ∈ O, P(o | b, a) > 0},
// where B^{ao} is the exact Bayes update (belief/bayes_filter.hpp); the result is the union
// of B_0 .. B_D with D = max_depth updates. Differences from the printed recursion:
//   * breadth-first by depth (the printed depth-first recursion does not expand again a
//     belief met first deep in the tree and later closer to the root, so it can miss beliefs;
//     breadth-first gives every belief its minimal depth and expands it once);
//   * pairs (a, o) with zero likelihood P(o | b, a) = 0 are skipped (no belief to update);
//   * "b' ∉ B" is "no stored belief within the tolerance in L∞" (belief/belief_index.hpp:
//     sound bucketing plus exact verification, earliest representative wins).
// Successors are computed by BayesFilter::update itself: the stored beliefs are bit-identical
// to a rollout's along the same (a, o) path from a stored representative.
//
// Which depth? A policy acting K times sees the beliefs b_1 .. b_K, i.e. depths 0..K-1:
// max_depth = K - 1 (`policy_belief_depth(counting, T)`: T - 2 with the paper's counting,
// T - 1 with the authors').
//
// Budgets: `max_beliefs` (distinct beliefs) and `max_bytes` (the BeliefIndex buffers) are
// checked before anything grows; on exhaustion a budget_error names the budget, the depth
// reached and the new beliefs per depth so far — or, with `stop_at_budget`, the partial set
// is returned with `complete == false` and that message in `stopped`.
// Cost: O(|B| · A · O · (S + nnz(P) + nnz(Obs column))) time, plus one index lookup per
// successor; the index's bytes() of memory.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/belief_index.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/trajectory.hpp"

namespace maxent {

/// The belief depth a policy acting over horizon T needs (K - 1 with K actions).
[[nodiscard]] constexpr std::size_t policy_belief_depth(StateCounting counting, std::size_t T) noexcept {
    const std::size_t K = Trajectory::actions_for(counting, T);
    return K == 0 ? 0 : K - 1;
}

struct ReachableOptions {
    std::size_t max_depth = 0;                       ///< D: number of Bayes updates from the prior
    double tolerance = default_belief_tolerance;     ///< "same belief" in L∞
    std::size_t max_beliefs = std::numeric_limits<std::size_t>::max();  ///< budget of distinct beliefs
    std::size_t max_bytes = unlimited_bytes;         ///< budget of the index's buffers (bytes)
    bool stop_at_budget = false;                     ///< return the partial set instead of throwing
};

struct ReachableBeliefs {
    /// The beliefs in breadth-first order: depth d holds ids [first_of_depth[d], first_of_depth[d+1]).
    BeliefIndex beliefs;
    std::vector<std::size_t> first_of_depth;  ///< size = depths reached + 1
    std::vector<std::size_t> new_per_depth;   ///< beliefs first reached at depth d (d = 0: the prior)
    std::size_t successors = 0;               ///< Bayes updates computed (pairs (b, a, o) with P(o|b,a) > 0)
    std::size_t zero_likelihood_skipped = 0;  ///< pairs (b, a, o) skipped
    bool complete = true;                     ///< false only with stop_at_budget
    std::string stopped;                      ///< the budget message when !complete

    [[nodiscard]] std::size_t size() const noexcept { return beliefs.size(); }
    /// Deepest depth with at least one belief.
    [[nodiscard]] std::size_t depth_reached() const noexcept {
        return new_per_depth.empty() ? 0 : new_per_depth.size() - 1;
    }
    [[nodiscard]] std::size_t depth_of(std::size_t id) const {
        for (std::size_t d = 0; d + 1 < first_of_depth.size(); ++d)
            if (id < first_of_depth[d + 1]) return d;
        throw config_error(detail::message("ReachableBeliefs::depth_of: id ", id, " is outside [0, ", size(), ")"));
    }
};

namespace detail {
inline std::string depth_counts(const std::vector<std::size_t>& counts) {
    std::string out = "[";
    for (std::size_t d = 0; d < counts.size(); ++d) out += message(d ? ", " : "", counts[d]);
    return out + "]";
}
}  // namespace detail

/// Algorithm 2 from `prior` (validated: S entries, finite, >= 0, summing to 1 within 1e-9).
template <class M>  // checked by static_assert(require_tabular_pomdp<M>())
[[nodiscard]] ReachableBeliefs reachable_beliefs(const M& model, const Eigen::Ref<const Eigen::VectorXd>& prior,
                                                 const ReachableOptions& options) {
    static_assert(require_tabular_pomdp<M>());
    const std::size_t S = model.num_states();
    const std::size_t A = model.num_actions();
    const std::size_t O = model.num_observations();
    if (static_cast<std::size_t>(prior.size()) != S)
        throw config_error(detail::message("reachable_beliefs: the prior has ", prior.size(), " entries for ", S,
                                           " states"));
    double sum = 0.0;
    for (Eigen::Index s = 0; s < prior.size(); ++s) {
        if (!std::isfinite(prior[s]) || prior[s] < 0.0)
            throw config_error(detail::message("reachable_beliefs: prior entry ", s, " is ", prior[s],
                                               ", not a finite probability >= 0"));
        sum += prior[s];
    }
    if (!(std::abs(sum - 1.0) <= 1e-9))
        throw config_error(detail::message("reachable_beliefs: the prior sums to ", sum, ", not 1 within 1e-9"));
    if (options.max_beliefs == 0) throw config_error("reachable_beliefs: max_beliefs must be >= 1, got 0");

    ReachableBeliefs r{BeliefIndex(S, options.tolerance, options.max_bytes), {}, {}, 0, 0, true, {}};
    const auto Si = static_cast<Eigen::Index>(S);
    Eigen::VectorXd b(Si), next(Si);
    std::vector<unsigned char> reached(S, 0);
    BayesFilter<M> filter(model);

    // Budget exhaustion: throw, or stop and return the partial set.
    auto exhausted = [&](const std::string& what, std::size_t depth) {
        std::string msg = detail::message("reachable_beliefs: ", what, "; depth reached ", depth, " of max_depth ",
                                          options.max_depth, ", new beliefs per depth so far ",
                                          detail::depth_counts(r.new_per_depth), " (", r.size(), " beliefs, ",
                                          r.beliefs.bytes(), " bytes)");
        if (!options.stop_at_budget) throw budget_error(msg);
        r.complete = false;
        r.stopped = std::move(msg);
    };
    auto add = [&](const Eigen::VectorXd& x, std::size_t depth) -> bool {  // false: stop
        if (r.size() >= options.max_beliefs) {
            if (r.beliefs.find(x) != BeliefIndex::npos) return true;
            exhausted(detail::message("the budget of max_beliefs = ", options.max_beliefs,
                                      " distinct beliefs is exhausted"),
                      depth);
            return false;
        }
        try {
            if (!r.beliefs.insert(x).second) return true;  // already stored (within the tolerance)
        } catch (const budget_error& e) {
            exhausted(detail::message("the budget of max_bytes = ", options.max_bytes, " bytes is exhausted (",
                                      e.what(), ")"),
                      depth);
            return false;
        }
        ++r.new_per_depth.back();
        return true;
    };

    r.first_of_depth.push_back(0);
    r.new_per_depth.push_back(0);
    const bool prior_stored = add(prior, 0);
    r.first_of_depth.push_back(r.size());
    if (!prior_stored) return r;

    for (std::size_t d = 0; d < options.max_depth; ++d) {
        const std::size_t begin = r.first_of_depth[d], end = r.first_of_depth[d + 1];
        if (begin == end) break;  // saturated: no new belief at depth d
        r.new_per_depth.push_back(0);
        for (std::size_t id = begin; id < end; ++id) {
            r.beliefs.dense(id, b);  // a copy: the arena may move while inserting
            for (std::size_t a = 0; a < A; ++a) {
                // Which states the prediction Σ_{s'} P(· | s', a) b(s') reaches: P(o | b, a) > 0
                // iff the likelihood column of o meets them (all terms are >= 0).
                reached.assign(S, 0);
                for (Eigen::Index sp = 0; sp < Si; ++sp) {
                    if (b[sp] == 0.0) continue;
                    const SparseDistribution row = model.transition(static_cast<std::size_t>(sp), a);
                    for (std::size_t k = 0; k < row.size(); ++k)
                        if (row.probability[k] > 0.0) reached[static_cast<std::size_t>(row.index[k])] = 1;
                }
                for (std::size_t o = 0; o < O; ++o) {
                    const SparseDistribution like = model.likelihood(a, o);
                    bool possible = false;
                    for (std::size_t k = 0; k < like.size() && !possible; ++k)
                        possible = like.probability[k] > 0.0 && reached[static_cast<std::size_t>(like.index[k])] != 0;
                    if (possible) {
                        next = b;
                        try {
                            filter.update(next, a, o);  // the filter's own arithmetic: bit-identical beliefs
                        } catch (const zero_likelihood_error&) {
                            possible = false;  // the evidence underflowed to 0
                        }
                    }
                    if (!possible) {
                        ++r.zero_likelihood_skipped;
                        continue;
                    }
                    ++r.successors;
                    if (!add(next, d + 1)) {
                        r.first_of_depth.push_back(r.size());
                        return r;
                    }
                }
            }
        }
        r.first_of_depth.push_back(r.size());
        if (r.new_per_depth.back() == 0) {  // nothing new: the set is closed under the update
            r.new_per_depth.pop_back();
            r.first_of_depth.pop_back();
            break;
        }
    }
    return r;
}

/// Algorithm 2 from the uniform prior (the paper's b_1 = U(S), as BayesFilter's default).
template <class M>
[[nodiscard]] ReachableBeliefs reachable_beliefs(const M& model, const ReachableOptions& options) {
    static_assert(require_tabular_pomdp<M>());
    const auto S = static_cast<Eigen::Index>(model.num_states());
    const Eigen::VectorXd prior = Eigen::VectorXd::Constant(S, 1.0 / static_cast<double>(S));
    return reachable_beliefs(model, prior, options);
}

}  // namespace maxent
