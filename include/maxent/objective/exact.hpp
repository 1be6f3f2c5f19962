// maxent/objective/exact.hpp — the exact objective J(θ) and its exact gradient ∇J(θ) of a
// small POMDP, by enumerating every trajectory.
//
// Paper, Eq. 2–4, Theorems 4.1 and 5.1: J(θ) = E_{τ ~ p_θ}[F(τ)] for a feedback F, and
// ∇J(θ) = E[F(τ) Σ_t ∇_θ log π_θ(a_t | i_t)]. For a few states, observations and actions and a
// horizon of 4 or 5 both sums over τ are finite and small, and are computed EXACTLY:
//     J(θ) = Σ_τ p_θ(τ) F(τ),     ∇J(θ) = Σ_τ p_θ(τ) F(τ) Σ_t ∇_θ log π_θ(a_t | i_t).
// The ground truth the Monte Carlo estimators are tested against; a tool for tiny POMDPs.
//
// Enumerated: exactly the process `Sampler` samples (s_1, o_1, b_1 = the updater's prior; then
// a_k, s_{k+1}, o_{k+1}, b_{k+1} over the supports, K = T - 1 or T actions by StateCounting;
// every believed state s̃_t ∈ supp b_t of the T counted steps when the feedback needs them),
// zero-probability branches pruned. Each leaf is a `Trajectory` filled as the Sampler records
// it, so any Feedback works; the authors' uncounted s̃_{T+1} holds a placeholder (feedbacks read
// `Trajectory::counted_believed`). Requirements:
//   * the policy is used through its marginal `probabilities` and `log_gradient`, so a policy
//     with internal randomness (acting on a believed state) is exact too;
//   * the updater is deterministic (is_deterministic_updater; NoisyBelief is rejected at
//     compile time); the feedback is a function of the trajectory (it gets one fixed-seed
//     generator; the built-in ones never draw).
// Cost: one feedback call per leaf, one log_gradient call per action edge (the gradient is
// accumulated bottom-up). Checked in this order before enumerating: dimensions (config_error),
// then exact_leaf_bound against ExactOptions::max_leaves, the horizon against max_horizon (the
// enumeration recurses once per step) and the per-depth buffers against max_buffer_bytes
// (core/budget.hpp), each a budget_error naming both numbers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

/// Options of the exact enumeration.
struct ExactOptions {
    /// Which steps are counted and how many actions are taken (core/trajectory.hpp).
    StateCounting counting = StateCounting::paper;
    /// Largest accepted upper bound on the number of enumerated trajectories (leaves);
    /// exact_objective throws budget_error when exact_leaf_bound exceeds it. The default is
    /// seconds on one core (docs/performance.md).
    std::size_t max_leaves = 50'000'000;
    /// Largest accepted horizon T (the recursion depth grows with T, up to about 2 KB of stack
    /// per step: 1000 steps fit in the 8 MB of a Linux main or worker thread); exact_objective
    /// throws budget_error above it. Raise it only with the stack to match. Only models with a
    /// single branch per step get past max_leaves at such horizons.
    std::size_t max_horizon = 1000;
};

/// What exact_objective computes.
struct ExactResult {
    double objective = 0.0;         ///< J(θ) = Σ_τ p(τ) F(τ)
    Eigen::MatrixXd gradient;       ///< ∇_θ J(θ), the shape of the policy's parameters
    std::size_t leaves = 0;         ///< trajectories with p(τ) > 0 actually enumerated
    std::size_t leaf_bound = 0;     ///< the upper bound checked against max_leaves
    double probability = 0.0;       ///< Σ_τ p(τ) over the leaves: 1 up to rounding (a sanity check)
};

// ---------------------------------------------------------------------------------------
// Deterministic belief updaters: updaters whose update(b, a, o, g) never draws from g, so
// that b_{t+1} is a function of (b_t, a_t, o_{t+1}) and can be enumerated.
// `is_deterministic_updater<U>::value` is true for BayesFilter<M> and for any U declaring
// `static constexpr bool deterministic = true;`; false otherwise (e.g. NoisyBelief).
// ---------------------------------------------------------------------------------------
namespace detail {
template <class U>
consteval bool declares_deterministic() {
    return updater_declares_deterministic<U>;
}
}  // namespace detail

template <class U>
struct is_deterministic_updater : std::bool_constant<detail::declares_deterministic<U>()> {};
template <TabularPomdp M>
struct is_deterministic_updater<BayesFilter<M>> : std::true_type {};

namespace detail {
/// a * b, saturating at the largest std::size_t.
[[nodiscard]] constexpr std::size_t saturating_product(std::size_t a, std::size_t b) noexcept {
    constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
    if (a == 0 || b == 0) return 0;
    return a > top / b ? top : a * b;
}
/// base^exponent, saturating at the largest std::size_t; stops multiplying as soon as the
/// result saturates, so it takes at most about 64 steps for any exponent.
[[nodiscard]] constexpr std::size_t saturating_power(std::size_t base, std::size_t exponent) noexcept {
    constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
    if (exponent == 0) return 1;
    if (base <= 1) return base;
    std::size_t r = 1;
    for (std::size_t i = 0; i < exponent && r != top; ++i) r = saturating_product(r, base);
    return r;
}
[[nodiscard]] inline std::size_t positive_entries(const SparseDistribution& d) noexcept {
    std::size_t n = 0;
    for (const double p : d.probability) n += p > 0.0 ? 1 : 0;
    return n;
}
}  // namespace detail

namespace detail {
/// a + b, saturating at the largest std::size_t.
[[nodiscard]] constexpr std::size_t saturating_sum(std::size_t a, std::size_t b) noexcept {
    constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
    return a > top - b ? top : a + b;
}

/// The coarse bound, O(S · A) scans: |supp μ| · max |supp initial_observation(s)|
/// · (A · max |supp P(· | s, a)| · max |supp Obs(· | s', a)|)^K · S^T (the last factor only with
/// believed states). The fallback of leaf_bound when its recursion would take too long.
template <ExplicitPomdp M>
[[nodiscard]] std::size_t product_leaf_bound(const M& model, RolloutNeeds needs, StateCounting counting) {
    const std::size_t S = model.num_states();
    const std::size_t A = model.num_actions();
    const std::size_t T = model.horizon();
    const std::size_t K = Trajectory::actions_for(counting, T);
    const Eigen::VectorXd& mu = model.initial_distribution();
    std::size_t starts = 0;
    std::size_t first_obs = 0;
    for (std::size_t s = 0; s < S; ++s) {
        if (!(mu[static_cast<Eigen::Index>(s)] > 0.0)) continue;
        ++starts;
        first_obs = std::max(first_obs, positive_entries(model.initial_observation(s)));
    }
    std::size_t max_next = 0;
    std::size_t max_obs = 0;
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t s = 0; s < S; ++s) {
            max_next = std::max(max_next, positive_entries(model.transition(s, a)));
            max_obs = std::max(max_obs, positive_entries(model.observation(a, s)));
        }
    std::size_t bound = saturating_product(starts, first_obs);
    const std::size_t per_step = saturating_product(saturating_product(A, max_next), max_obs);
    bound = saturating_product(bound, saturating_power(per_step, K));
    if (needs.believed_states) bound = saturating_product(bound, saturating_power(S, T));
    return bound;
}

/// The leaf bound by counting branches per state (see exact_leaf_bound). `prior_support` is
/// |supp b_1|; `column` (A · O entries, or empty) the size of the likelihood column
/// |{s' : Obs(o | s', a) > 0}| of each (a, o), which bounds the support of a Bayes filter's
/// belief after (a, o); empty means S.
template <ExplicitPomdp M>
[[nodiscard]] std::size_t leaf_bound(const M& model, RolloutNeeds needs, StateCounting counting,
                                     std::size_t prior_support, const std::vector<std::size_t>& column) {
    const std::size_t S = model.num_states();
    const std::size_t A = model.num_actions();
    const std::size_t O = model.num_observations();
    const std::size_t T = model.horizon();
    const std::size_t K = Trajectory::actions_for(counting, T);
    const bool believed = needs.believed_states;
    // One edge s -> s' per (a, s' in supp P(s, a)), weighted by its observations: `plain`
    // counts them, `counted` weighs each by the believed states of the node it enters.
    struct Edge {
        std::size_t to, plain, counted;
    };
    std::vector<std::vector<Edge>> edges(S);
    std::size_t work = 0;
    for (std::size_t s = 0; s < S; ++s) {
        std::vector<Edge>& out = edges[s];
        for (std::size_t a = 0; a < A; ++a) {
            const SparseDistribution next = model.transition(s, a);
            for (std::size_t i = 0; i < next.size(); ++i) {
                if (!(next.probability[i] > 0.0)) continue;
                const auto s2 = static_cast<std::size_t>(next.index[i]);
                const SparseDistribution emit = model.observation(a, s2);
                std::size_t plain = 0, counted = 0;
                for (std::size_t j = 0; j < emit.size(); ++j) {
                    if (!(emit.probability[j] > 0.0)) continue;
                    ++plain;
                    const std::size_t support =
                        column.empty() ? S : column[a * O + static_cast<std::size_t>(emit.index[j])];
                    counted = saturating_sum(counted, believed ? support : 1);
                }
                out.push_back({s2, plain, counted});
            }
        }
        std::sort(out.begin(), out.end(), [](const Edge& x, const Edge& y) { return x.to < y.to; });
        std::size_t kept = 0;  // merge the edges of several actions into one state
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (kept > 0 && out[kept - 1].to == out[i].to) {
                out[kept - 1].plain = saturating_sum(out[kept - 1].plain, out[i].plain);
                out[kept - 1].counted = saturating_sum(out[kept - 1].counted, out[i].counted);
            } else {
                out[kept++] = out[i];
            }
        }
        out.resize(kept);
        work += kept + 1;
    }
    // below[s]: leaves under a node of depth k in state s, not counting that node's own
    // believed states; from k = K (a leaf: 1) back to k = 0. The edge into depth k + 1
    // weighs by believed states when step k + 1 is counted (k + 1 < T). The map is the same
    // at every depth except, under the authors' counting, the last; so once `below` stops
    // changing it never changes again, which ends the loop for any horizon on models with
    // one branch per step, and saturated values stop changing too. Models whose counts grow
    // slowly (polynomially) over a very long horizon fall back to the coarse bound.
    constexpr std::size_t max_work = std::size_t{1} << 22;
    std::vector<std::size_t> below(S, 1), above(S, 0);
    for (std::size_t k = K; k-- > 0;) {
        const bool counted_step = believed && k + 1 < T;
        for (std::size_t s = 0; s < S; ++s) {
            std::size_t total = 0;
            for (const Edge& e : edges[s])
                total = saturating_sum(total, saturating_product(counted_step ? e.counted : e.plain, below[e.to]));
            above[s] = total;
        }
        const bool same_map_next = k > 0 && (k + 1 < T || !believed);
        const bool fixed = above == below;
        below.swap(above);
        if (fixed && same_map_next) break;
        if (k > 0 && saturating_product(K - k, work) > max_work) return product_leaf_bound(model, needs, counting);
    }
    const Eigen::VectorXd& mu = model.initial_distribution();
    const std::size_t first_factor = believed ? prior_support : 1;
    std::size_t bound = 0;
    for (std::size_t s = 0; s < S; ++s) {
        if (!(mu[static_cast<Eigen::Index>(s)] > 0.0)) continue;
        const std::size_t branches = saturating_product(positive_entries(model.initial_observation(s)), first_factor);
        bound = saturating_sum(bound, saturating_product(branches, below[s]));
    }
    return bound;
}

/// |{s' : Obs(o | s', a) > 0}| for every (a, o), at index a · O + o.
template <ExplicitPomdp M>
[[nodiscard]] std::vector<std::size_t> likelihood_column_sizes(const M& model) {
    const std::size_t A = model.num_actions();
    const std::size_t O = model.num_observations();
    std::vector<std::size_t> column(A * O, 0);
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t s = 0; s < model.num_states(); ++s) {
            const SparseDistribution emit = model.observation(a, s);
            for (std::size_t j = 0; j < emit.size(); ++j)
                if (emit.probability[j] > 0.0) ++column[a * O + static_cast<std::size_t>(emit.index[j])];
        }
    return column;
}
}  // namespace detail

/// An upper bound on the number of trajectories exact_objective enumerates for this model,
/// with a feedback needing `needs` and the `counting` convention (K actions, T counted steps),
/// by counting branches per state rather than assuming the widest everywhere:
///   below_K(s) = 1,
///   below_k(s) = Σ_a Σ_{s' ∈ supp P(·|s,a)} Σ_{o ∈ supp Obs(·|s',a)} w_{k+1} · below_{k+1}(s'),
///   bound      = Σ_{s ∈ supp μ} |supp initial_observation(s)| · w_0 · below_0(s),
/// where w_k = S when believed states are enumerated at step k (k < T; one per counted step,
/// from a belief of at most S states) and 1 otherwise. This is exactly the number of leaves
/// when the policy gives every action positive probability and beliefs have full support,
/// and an upper bound otherwise. The recursion stops early once it stops changing; on
/// models whose counts grow slowly over very long horizons it falls back to the coarser
///   |supp μ| · max |supp initial_observation| · (A · max |supp P| · max |supp Obs|)^K · S^T.
/// Saturates at the largest std::size_t.
template <ExplicitPomdp M>
[[nodiscard]] std::size_t exact_leaf_bound(const M& model, RolloutNeeds needs, StateCounting counting) {
    static_assert(require_pomdp<M>());
    return detail::leaf_bound(model, needs, counting, model.num_states(), {});
}

/// The same bound for the enumeration with this Bayes filter: b_1 has |supp prior| states,
/// and when the filter is the model's own (filter.model() is `model`), the belief after
/// (a, o) lives on the states that can emit o after a, so w_k is that likelihood column's
/// size instead of S. With believed states this is the bound exact_objective checks.
template <TabularPomdp M>
[[nodiscard]] std::size_t exact_leaf_bound(const M& model, const BayesFilter<M>& filter, RolloutNeeds needs,
                                           StateCounting counting) {
    static_assert(require_tabular_pomdp<M>());
    const Eigen::VectorXd& prior = filter.prior();
    std::size_t support = 0;
    for (Eigen::Index s = 0; s < prior.size(); ++s) support += prior[s] > 0.0 ? 1 : 0;
    const bool own = &filter.model() == &model;
    return detail::leaf_bound(model, needs, counting, support,
                              own && needs.believed_states ? detail::likelihood_column_sizes(model)
                                                           : std::vector<std::size_t>{});
}

namespace detail {

/// The leaf bound of the enumeration with this updater (refined for the model's own Bayes
/// filter), checked against options.max_leaves.
template <ExplicitPomdp M, class U, Feedback F>
std::size_t checked_leaf_bound(const M& model, const U& updater, const F& feedback, const ExactOptions& options) {
    const RolloutNeeds needs = feedback.needs();
    std::size_t bound = 0;
    if constexpr (std::is_same_v<U, BayesFilter<M>>)
        bound = exact_leaf_bound(model, updater, needs, options.counting);
    else
        bound = exact_leaf_bound(model, needs, options.counting);
    if (bound > options.max_leaves) {
        const bool saturated = bound == std::numeric_limits<std::size_t>::max();
        throw budget_error(detail::message(
            "exact_objective: ",
            saturated ? std::string("more trajectories (leaves) to enumerate than a std::size_t can count")
                      : detail::message("up to ", bound, " trajectories (leaves) to enumerate"),
            ", above the limit ExactOptions::max_leaves = ", options.max_leaves,
            " (S = ", model.num_states(), ", A = ", model.num_actions(), ", O = ", model.num_observations(),
            ", T = ", model.horizon(), ", K = ", Trajectory::actions_for(options.counting, model.horizon()),
            " actions", needs.believed_states ? ", one believed state per counted step" : "",
            "); raise max_leaves or use a smaller model or horizon"));
    }
    return bound;
}

/// The depth-first enumeration behind exact_objective / exact_objective_value. Holds the
/// trajectory being built and one scratch buffer per depth; nothing is allocated per node
/// (beyond what the policy's own probabilities/log_gradient allocate). The constructor runs
/// every check, in the order this header's comment gives, before allocating.
template <ExplicitPomdp M, BeliefUpdater U, Policy P, Feedback F>
class ExactEnumerator {
public:
    ExactEnumerator(const M& model, U& updater, const P& policy, const F& feedback, const ExactOptions& options)
        : model_(model), updater_(updater), policy_(policy), feedback_(feedback), need_(feedback.needs()) {
        const std::size_t S = model.num_states();
        const std::size_t A = model.num_actions();
        const std::size_t O = model.num_observations();
        const std::size_t T = model.horizon();
        if (T == 0) throw config_error("exact_objective: horizon 0");
        // The enumeration keeps beliefs in the model's state space (beliefs over another
        // space, e.g. a learned model's, are a Sampler-only feature for now).
        if (updater.dimension() != S)
            throw config_error(detail::message("exact_objective: the belief updater has ", updater.dimension(),
                                               " states, the model ", S, "; the exact enumeration needs them equal"));
        policy.check_dimensions({S, A, O});
        if (policy.num_actions() != A)
            throw config_error(detail::message("exact_objective: the policy has ", policy.num_actions(),
                                               " actions, the model ", A));
        updater_.initial(prior_);
        if (static_cast<std::size_t>(prior_.size()) != S)
            throw config_error(detail::message("exact_objective: the updater's prior has ", prior_.size(),
                                               " entries for ", S, " states"));
        const StateCounting counting = options.counting;
        leaf_bound_ = checked_leaf_bound(model, updater, feedback, options);
        if (T > options.max_horizon)
            throw budget_error(detail::message(
                "exact_objective: horizon T = ", T, " is above the limit ExactOptions::max_horizon = ",
                options.max_horizon, " (the enumeration recurses once per step, so the limit bounds its stack use)"));
        K_ = Trajectory::actions_for(counting, T);
        track_ = policy_needs_belief<P> || need_.belief_entropy || need_.believed_states || need_.beliefs;
        {
            // The record, π and b_k per depth, and (when tracked) O candidate next beliefs per depth.
            BufferCost cost = trajectory_record_cost(S, K_, need_);
            const std::size_t per_depth = sizeof(Eigen::VectorXd) + sizeof(const Eigen::VectorXd*);
            cost.add({K_, A}, sizeof(double)).add({A}, sizeof(double)).add({K_}, per_depth).add({1}, per_depth);
            if (track_) {
                cost.add({K_, O, S}, sizeof(double)).add({O, S}, sizeof(double));
                cost.add({K_, O}, sizeof(Eigen::VectorXd) + 1).add({O}, sizeof(Eigen::VectorXd) + 1);
            }
            check_buffer_budget(cost, "exact_objective: the buffers for horizon T = ", T, " (S = ", S, ", A = ", A,
                                ", O = ", O, ")");
        }

        traj_.counting = counting;
        traj_.horizon = T;
        traj_.num_states = S;
        traj_.num_observations = O;
        traj_.belief_dimension = S;
        traj_.states.assign(K_ + 1, 0);
        traj_.observations.assign(K_ + 1, 0);
        traj_.actions.assign(K_, 0);
        if (need_.belief_entropy) traj_.belief_entropy.assign(K_ + 1, 0.0);
        if (need_.believed_states) traj_.believed.assign(K_ + 1, 0);
        if (need_.beliefs) traj_.beliefs.resize(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(K_ + 1));
        // The believed states counted (core/trajectory.hpp): s̃_1 .. s̃_T under both
        // conventions; under StateCounting::authors the entry of s̃_{T+1} is not counted and
        // holds a placeholder (set at the leaf).
        counted_begin_ = traj_.counted_begin(Counted::believed_states);
        counted_end_ = counted_begin_ + T;

        probs_.assign(K_ + 1, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(A)));
        belief_at_.assign(K_ + 1, &prior_);
        if (track_) {
            next_.assign((K_ + 1) * O, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(S)));
            ready_.assign((K_ + 1) * O, 0);
        }
    }

    /// Runs the enumeration; adds ∇J into *gradient when it is not null (which needs a
    /// DifferentiablePolicy). Returns J.
    double run(Eigen::MatrixXd* gradient) {
        gradient_ = gradient;
        if (gradient_ != nullptr) {
            if constexpr (DifferentiablePolicy<P>) {
                const Eigen::MatrixXd& theta = policy_.parameters();
                gradient_->setZero(theta.rows(), theta.cols());
                score_.setZero(theta.rows(), theta.cols());
            }
        }
        leaves_ = 0;
        mass_ = 0.0;
        const Eigen::VectorXd& mu = model_.initial_distribution();
        double total = 0.0;
        for (std::size_t s = 0; s < model_.num_states(); ++s) {
            const double ps = mu[static_cast<Eigen::Index>(s)];
            if (!(ps > 0.0)) continue;
            const SparseDistribution first = model_.initial_observation(s);
            for (std::size_t i = 0; i < first.size(); ++i) {
                const double po = first.probability[i];
                if (!(po > 0.0)) continue;
                belief_at_[0] = &prior_;
                total += node(0, s, static_cast<std::size_t>(first.index[i]), ps * po);
            }
        }
        return total;
    }

    [[nodiscard]] std::size_t leaves() const noexcept { return leaves_; }
    [[nodiscard]] std::size_t leaf_bound() const noexcept { return leaf_bound_; }
    [[nodiscard]] double probability() const noexcept { return mass_; }

private:
    /// Step k (0-based) with true state s, observation o, belief *belief_at_[k] and path
    /// probability w: records the step, then branches on the action (unless k == K).
    /// Returns Σ p(τ) F(τ) over the leaves below.
    double node(std::size_t k, std::size_t s, std::size_t o, double w) {
        const Eigen::VectorXd& b = *belief_at_[k];
        traj_.states[k] = s;
        traj_.observations[k] = o;
        if (need_.belief_entropy) traj_.belief_entropy[k] = entropy_unchecked(b);
        if (need_.beliefs) traj_.beliefs.col(static_cast<Eigen::Index>(k)) = b;
        if (k == K_) {
            if (need_.believed_states && counted_end_ <= K_) traj_.believed[K_] = first_in_support(b);
            return believed(counted_begin_, w);
        }

        const AgentView view{k, o, b};
        Eigen::VectorXd& pi = probs_[k];
        policy_.probabilities(view, pi);
        const std::size_t A = model_.num_actions();
        if (static_cast<std::size_t>(pi.size()) != A)
            throw config_error(detail::message("exact_objective: the policy returned ", pi.size(),
                                               " action probabilities at step ", k, ", the model has ", A,
                                               " actions"));
        const std::size_t O = model_.num_observations();
        double total = 0.0;
        for (std::size_t a = 0; a < A; ++a) {
            const double pa = pi[static_cast<Eigen::Index>(a)];
            if (!std::isfinite(pa) || pa < 0.0)
                throw config_error(detail::message("exact_objective: the policy gives action ", a, " probability ",
                                                   pa, " at step ", k));
            if (pa == 0.0) continue;
            traj_.actions[k] = a;
            if (track_)
                for (std::size_t j = 0; j < O; ++j) ready_[(k + 1) * O + j] = 0;  // no next belief computed yet
            double sub = 0.0;
            const SparseDistribution next = model_.transition(s, a);
            for (std::size_t i = 0; i < next.size(); ++i) {
                const double pt = next.probability[i];
                if (!(pt > 0.0)) continue;
                const auto s2 = static_cast<std::size_t>(next.index[i]);
                const SparseDistribution emit = model_.observation(a, s2);
                for (std::size_t j = 0; j < emit.size(); ++j) {
                    const double po = emit.probability[j];
                    if (!(po > 0.0)) continue;
                    const auto o2 = static_cast<std::size_t>(emit.index[j]);
                    belief_at_[k + 1] = track_ ? &next_belief(k, b, a, o2, s2) : &prior_;
                    sub += node(k + 1, s2, o2, w * pa * pt * po);
                }
            }
            total += sub;
            if constexpr (DifferentiablePolicy<P>) {
                if (gradient_ != nullptr && sub != 0.0) {
                    score_.setZero();
                    policy_.log_gradient(view, a, score_);
                    gradient_->noalias() += sub * score_;
                }
            }
        }
        return total;
    }

    /// b_{k+1} = updater(b_k, a, o2), computed once per (action edge, observation).
    const Eigen::VectorXd& next_belief(std::size_t k, const Eigen::VectorXd& b, std::size_t a, std::size_t o2,
                                       std::size_t s2) {
        const std::size_t slot = (k + 1) * model_.num_observations() + o2;
        Eigen::VectorXd& out = next_[slot];
        if (ready_[slot] == 0) {
            out = b;
            try {
                updater_.update(out, a, o2, rng_);
            } catch (const zero_likelihood_error& e) {
                throw zero_likelihood_error(a, o2, k + 1,
                                            detail::message(e.what(), " [exact enumeration: update after step ", k + 1,
                                                            ", true state index ", s2, "]"));
            }
            ready_[slot] = 1;
        }
        return out;
    }

    /// The first state with positive belief (the placeholder of an uncounted believed state).
    [[nodiscard]] static std::size_t first_in_support(const Eigen::VectorXd& b) {
        for (Eigen::Index s = 0; s < b.size(); ++s)
            if (b[s] > 0.0) return static_cast<std::size_t>(s);
        return 0;
    }

    /// Enumerates the believed states of the counted steps k..counted_end-1 (when the
    /// feedback needs them), then evaluates the feedback on the finished trajectory.
    double believed(std::size_t k, double w) {
        if (!need_.believed_states || k == counted_end_) {
            const double f = feedback_(traj_, rng_);
            if (!std::isfinite(f))
                throw config_error(detail::message("exact_objective: the feedback is ", f,
                                                   " on a trajectory of probability ", w));
            ++leaves_;
            mass_ += w;
            return w * f;
        }
        const Eigen::VectorXd& b = *belief_at_[k];
        double sum = 0.0;
        for (Eigen::Index s = 0; s < b.size(); ++s) {
            const double ps = b[s];
            if (!(ps > 0.0)) continue;
            traj_.believed[k] = static_cast<std::size_t>(s);
            sum += believed(k + 1, w * ps);
        }
        return sum;
    }

    const M& model_;
    U& updater_;
    const P& policy_;
    const F& feedback_;
    RolloutNeeds need_;
    std::size_t K_ = 0;
    bool track_ = false;
    std::size_t counted_begin_ = 0;
    std::size_t counted_end_ = 0;
    Trajectory traj_;
    Eigen::VectorXd prior_;
    std::vector<Eigen::VectorXd> probs_;               // π(· | i_k) per depth
    std::vector<const Eigen::VectorXd*> belief_at_;   // b_k per depth (prior_ or a slot of next_)
    std::vector<Eigen::VectorXd> next_;                // (K+1) x O candidate next beliefs
    std::vector<unsigned char> ready_;                 // which of next_ are computed for the current edge
    Eigen::MatrixXd score_;                            // ∇ log π(a | i) of one edge
    Eigen::MatrixXd* gradient_ = nullptr;
    DefaultRng rng_{0};  // handed to the updater and the feedback; deterministic ones ignore it
    std::size_t leaves_ = 0;
    double mass_ = 0.0;
    std::size_t leaf_bound_ = 0;
};

template <class U>
consteval bool require_deterministic_updater() {
    static_assert(is_deterministic_updater<U>::value,
                  "maxent::exact_objective: the belief updater must be deterministic (its update must not draw "
                  "from the generator) so that beliefs can be enumerated; NoisyBelief cannot be. A user updater "
                  "that ignores the generator declares `static constexpr bool deterministic = true;`");
    return true;
}

}  // namespace detail

/// J(θ) and ∇J(θ) exactly, with the given deterministic belief updater (copied; its prior
/// is b_1). Throws budget_error when exact_leaf_bound exceeds options.max_leaves, the
/// horizon exceeds options.max_horizon or the buffers max_buffer_bytes,
/// config_error when the policy or updater does not fit the model or the feedback is not
/// finite, zero_likelihood_error when the updater cannot explain a possible observation
/// (as the Sampler would).
template <ExplicitPomdp M, BeliefUpdater U, DifferentiablePolicy P, Feedback F>
[[nodiscard]] ExactResult exact_objective(const M& model, U updater, const P& policy, const F& feedback,
                                          const ExactOptions& options = {}) {
    static_assert(require_pomdp<M>());
    static_assert(require_belief_updater<U>());
    static_assert(detail::require_deterministic_updater<U>());
    static_assert(require_differentiable_policy<P>());
    static_assert(require_feedback<F>());
    ExactResult result;
    detail::ExactEnumerator<M, U, P, F> enumerate(model, updater, policy, feedback, options);
    result.leaf_bound = enumerate.leaf_bound();
    result.objective = enumerate.run(&result.gradient);
    result.leaves = enumerate.leaves();
    result.probability = enumerate.probability();
    return result;
}

/// J(θ) and ∇J(θ) exactly, with the exact BayesFilter and its uniform prior b_1 = U(S).
template <TabularPomdp M, DifferentiablePolicy P, Feedback F>
[[nodiscard]] ExactResult exact_objective(const M& model, const P& policy, const F& feedback,
                                          const ExactOptions& options = {}) {
    static_assert(require_tabular_pomdp<M>());
    return exact_objective(model, BayesFilter<M>(model), policy, feedback, options);
}

/// J(θ) only (no log_gradient calls; any Policy), e.g. for finite differences. Same
/// checks and exceptions as exact_objective.
template <ExplicitPomdp M, BeliefUpdater U, Policy P, Feedback F>
[[nodiscard]] double exact_objective_value(const M& model, U updater, const P& policy, const F& feedback,
                                           const ExactOptions& options = {}) {
    static_assert(require_pomdp<M>());
    static_assert(require_belief_updater<U>());
    static_assert(detail::require_deterministic_updater<U>());
    static_assert(require_policy<P>());
    static_assert(require_feedback<F>());
    detail::ExactEnumerator<M, U, P, F> enumerate(model, updater, policy, feedback, options);
    return enumerate.run(nullptr);
}

/// J(θ) only, with the exact BayesFilter and its uniform prior.
template <TabularPomdp M, Policy P, Feedback F>
[[nodiscard]] double exact_objective_value(const M& model, const P& policy, const F& feedback,
                                           const ExactOptions& options = {}) {
    static_assert(require_tabular_pomdp<M>());
    return exact_objective_value(model, BayesFilter<M>(model), policy, feedback, options);
}

}  // namespace maxent
