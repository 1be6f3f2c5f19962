// maxent/belief/bayes_filter.hpp — the exact Bayes filter over a tabular POMDP.
//
// Paper, Section 2.1 ("Belief"): the prior is b_1 = U(S) and, after action a and
// observation o, the posterior is
//     b'(s) = Obs(o | s) Σ_{s'} P(s | s', a) b(s')  /  Σ_{s} Obs(o | s) Σ_{s'} P(s | s', a) b(s'),
// the operator called b' = B^{ao}(b) in the paper (here with the library's generalisation
// Obs(o | s, a), see model/concepts.hpp). `BayesFilter<M>` applies it in place to a dense
// Eigen vector in O(S + nnz) per step: it predicts Σ_{s'} P(s | s', a) b(s') on the support of
// the sparse likelihood column Obs(o | ·, a) only (reading the transposed transition matrix
// when the model has one, else scattering the rows of the states with positive belief),
// multiplies by the likelihood and normalises. It satisfies BeliefUpdater (belief/concepts.hpp); the noisy
// oracle of the paper's Section 6.3 (Assumption 5.1) decorates it (belief/noisy_belief.hpp).
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <ostream>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/support.hpp"

namespace maxent {

/// The value of the optional trailing `step` argument of the belief updaters when the
/// caller does not give one: the updaters count nothing themselves, so a
/// zero_likelihood_error thrown without a step reports `step() == unknown_step` and its
/// message omits "at step N".
inline constexpr std::size_t unknown_step = std::numeric_limits<std::size_t>::max();

namespace detail {

/// "'label'" when the model's label type can be streamed, "#i" otherwise. Uses the
/// model's LabelSet (`actions().describe(i)`, ...) when it has one.
template <class M>
[[nodiscard]] std::string describe_action(const M& m, std::size_t a) {
    if constexpr (requires { { m.actions().describe(a) } -> std::convertible_to<std::string>; }) {
        return m.actions().describe(a);
    } else if constexpr (requires(std::ostream& os) { os << m.action_label(a); }) {
        std::ostringstream out;
        out << '\'' << m.action_label(a) << '\'';
        return out.str();
    } else {
        std::string out(1, '#');  // not "#" + ...: GCC 12 reports a false -Wrestrict
        return out.append(std::to_string(a));
    }
}

template <class M>
[[nodiscard]] std::string describe_observation(const M& m, std::size_t o) {
    if constexpr (requires { { m.observations().describe(o) } -> std::convertible_to<std::string>; }) {
        return m.observations().describe(o);
    } else if constexpr (requires(std::ostream& os) { os << m.observation_label(o); }) {
        std::ostringstream out;
        out << '\'' << m.observation_label(o) << '\'';
        return out.str();
    } else {
        std::string out(1, '#');  // not "#" + ...: GCC 12 reports a false -Wrestrict
        return out.append(std::to_string(o));
    }
}

template <class M>
[[nodiscard]] std::string describe_state(const M& m, std::size_t s) {
    if constexpr (requires { { m.states().describe(s) } -> std::convertible_to<std::string>; }) {
        return m.states().describe(s);
    } else if constexpr (requires(std::ostream& os) { os << m.state_label(s); }) {
        std::ostringstream out;
        out << '\'' << m.state_label(s) << '\'';
        return out.str();
    } else {
        std::string out(1, '#');  // not "#" + ...: GCC 12 reports a false -Wrestrict
        return out.append(std::to_string(s));
    }
}

}  // namespace detail

/// Exact Bayes filter b' = B^{ao}(b) over a TabularPomdp (paper, Section 2.1).
///
/// * Lifetime: the filter keeps a pointer to the model, which must outlive the filter
///   (and every copy of it). Constructing from a temporary model is a compile error.
/// * Prior: uniform over the states by default (the paper's b_1 = U(S), used even when μ
///   is a point mass); any distribution over the states on request (constructor or
///   set_prior), validated.
/// * Support: update_on_support(b, support, ...) gives update()'s posterior to the last bit
///   while keeping the list of the belief's non-zero states, in O(|support| + the transitions
///   out of it + one likelihood column), nothing in O(S): the rollout uses it when
///   support_tracking_pays() (short likelihood columns, large grids). SupportTrackingUpdater.
///   update_from_prior(b, support, ...) is initial(b, support) followed by that update, to the
///   last bit, without writing the S-long prior into b: with a spread prior (the uniform b_1)
///   and transition_matrix_transposed, O(the transitions into one likelihood column).
/// * Cost: O(S + nnz) per update. With FinitePomdp (transition_matrix_transposed): O(S) for
///   the checks of b and the write of b', plus the transitions into the support of one
///   likelihood column. Other TabularPomdp models: the transition rows of the states with
///   positive belief, then that column. No allocation per call (the scratch vectors are
///   sized at construction). The scratch makes `update` non-const: use one filter per thread.
/// * Failure: an observation with zero likelihood under the predicted belief throws
///   zero_likelihood_error naming the action, the observation and (when given) the step;
///   the belief is then left unchanged (strong guarantee). Bad indices or a belief of the
///   wrong size, with a negative or non-finite entry, or with no positive entry throw
///   config_error. The input belief need not be normalised; the output is.
/// Satisfies BeliefUpdater and SupportTrackingUpdater.
/// Tag for a filter whose prior b_1 is the model's own initial distribution μ:
/// `maxent::BayesFilter(model, maxent::model_prior)`. The default stays the paper's uniform
/// b_1 = U(S); any other prior is `BayesFilter(model, prior_vector)`.
struct ModelPrior {
    explicit constexpr ModelPrior() = default;
};
inline constexpr ModelPrior model_prior{};

template <class M>  // checked by static_assert(require_tabular_pomdp<M>()) inside
class BayesFilter {
    static_assert(require_tabular_pomdp<M>());

public:
    using model_type = M;

    /// Filter with the uniform prior b_1 = U(S).
    explicit BayesFilter(const M& model)
        : model_(&model),
          prior_(Eigen::VectorXd::Constant(size_of(model), 1.0 / static_cast<double>(model.num_states()))),
          predicted_(Eigen::VectorXd::Zero(size_of(model))),
          dense_prediction_(Eigen::VectorXd::Zero(size_of(model))) {
        prepare_scratch();
        support_of(prior_, prior_support_);
    }

    /// Filter with the given prior (validated as in set_prior).
    BayesFilter(const M& model, const Eigen::Ref<const Eigen::VectorXd>& prior)
        : model_(&model),
          prior_(Eigen::VectorXd::Zero(size_of(model))),
          predicted_(Eigen::VectorXd::Zero(size_of(model))),
          dense_prediction_(Eigen::VectorXd::Zero(size_of(model))) {
        prepare_scratch();
        set_prior(prior);
    }

    /// Filter whose prior is the model's initial distribution μ (validated as in set_prior).
    BayesFilter(const M& model, ModelPrior) : BayesFilter(model, model.initial_distribution()) {}

    /// The model must outlive the filter: binding a temporary is rejected.
    explicit BayesFilter(const M&& model) = delete;
    BayesFilter(const M&& model, const Eigen::Ref<const Eigen::VectorXd>& prior) = delete;
    BayesFilter(const M&& model, ModelPrior) = delete;

    [[nodiscard]] std::size_t num_states() const noexcept { return static_cast<std::size_t>(prior_.size()); }
    /// The length of its beliefs: its own model's number of states (BeliefUpdater).
    [[nodiscard]] std::size_t dimension() const noexcept { return num_states(); }
    [[nodiscard]] const M& model() const noexcept { return *model_; }
    [[nodiscard]] const Eigen::VectorXd& prior() const noexcept { return prior_; }

    /// Replaces the prior. It must have one entry per state, every entry finite and >= 0,
    /// and sum to 1 within 1e-9; otherwise config_error names the offending entry (or the
    /// sum) and the prior is left unchanged. The prior is stored as given (not renormalised).
    void set_prior(const Eigen::Ref<const Eigen::VectorXd>& prior) {
        const std::size_t S = model_->num_states();
        if (static_cast<std::size_t>(prior.size()) != S)
            throw config_error(detail::message("BayesFilter: the prior has ", prior.size(), " entries for ", S,
                                               " states"));
        double sum = 0.0;
        for (Eigen::Index s = 0; s < prior.size(); ++s) {
            const double v = prior[s];
            if (!std::isfinite(v) || v < 0.0)
                throw config_error(detail::message("BayesFilter: prior entry ", s, " (state ",
                                                   detail::describe_state(*model_, static_cast<std::size_t>(s)),
                                                   ") is ", v, ", not a finite probability >= 0"));
            sum += v;
        }
        if (!(std::abs(sum - 1.0) <= 1e-9))
            throw config_error(detail::message("BayesFilter: the prior sums to ", sum, ", not 1 within 1e-9"));
        prior_ = prior;
        support_of(prior_, prior_support_);
    }

    /// Writes the prior b_1 into b (resized only if its size differs).
    void initial(Eigen::VectorXd& b) const {
        if (b.size() != prior_.size()) b.resize(prior_.size());
        b = prior_;
    }

    /// b <- B^{ao}(b). The generator is unused (the filter is exact); it is taken so that
    /// exact and noisy updaters share the BeliefUpdater concept. `step` only labels the
    /// error message (default unknown_step: no step in the message).
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& /*g*/, std::size_t step = unknown_step) {
        update(b, a, o, step);
    }

    /// b <- B^{ao}(b), without a generator.
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, std::size_t step = unknown_step) {
        check_indices(b.size(), a, o, "update");
        const SparseDistribution like = model_->likelihood(a, o);
        const double z = predict_and_weigh(b, a, like, "update");
        if (!(z > 0.0) || !std::isfinite(z)) zero_likelihood(a, o, step, z);
        b.setZero();
        const double inv_z = 1.0 / z;
        double* out = b.data();
        const double* pred = predicted_.data();  // compact: entry k belongs to state like.index[k]
        for (std::size_t k = 0; k < like.size(); ++k) {
            const auto s = like.index[k];
            out[s] = pred[k] * like.probability[k] * inv_z;
        }
    }

    /// Writes the prior into b and its support (the ascending indices of its non-zero
    /// entries) into `support`; the pair then feeds update_on_support.
    void initial(Eigen::VectorXd& b, std::vector<sparse_index>& support) const {
        initial(b);
        support.assign(prior_support_.begin(), prior_support_.end());
    }

    /// The prior's support: the ascending indices of its non-zero entries (what
    /// initial(b, support) writes into `support`).
    [[nodiscard]] std::span<const sparse_index> prior_support() const noexcept { return prior_support_; }

    /// b <- B^{ao}(b_1) of the prior b_1, and `support` <- the posterior's non-zero entries:
    /// exactly what `initial(b, support); update_on_support(b, support, a, o, g, step);`
    /// computes, to the last bit, without writing the prior into b. On entry b must be zero
    /// outside `support` (any order; e.g. the previous episode's posterior and its support:
    /// the rollout keeps them so, optim/rollout.hpp); those entries are cleared. With a
    /// spread prior (the paper's uniform b_1, more than S/8 states) this costs the
    /// prediction on one likelihood column: the transitions into it with
    /// transition_matrix_transposed (FinitePomdp), else one forward scatter over the prior
    /// (O(S + nnz), as update() on the prior). With a small prior it is literally the two
    /// calls above. Failures as update_on_support (the prior being valid, only
    /// zero_likelihood_error can occur): b and `support` are then left unchanged with a
    /// spread prior, and are the prior and its support otherwise (zero outside `support`
    /// either way).
    template <std::uniform_random_bit_generator G>
    void update_from_prior(Eigen::VectorXd& b, std::vector<sparse_index>& support, std::size_t a, std::size_t o,
                           G& g, std::size_t step = unknown_step) {
        if (support_pays(prior_support_.size(), num_states())) {
            initial(b, support);
            update_on_support(b, support, a, o, g, step);
            return;
        }
        // update_on_support would take its dense branch: update() on a copy of the prior,
        // whose checks the validated prior passes; the same prediction (predict() reads the
        // prior's entries, the same values in the same order), evidence and posterior.
        check_indices(b.size(), a, o, "update");
        const SparseDistribution like = model_->likelihood(a, o);
        const double z = predict(prior_.data(), prior_.size(), a, like);
        if (!(z > 0.0) || !std::isfinite(z)) zero_likelihood(a, o, step, z);
        for (const sparse_index s : support) b[s] = 0.0;
        const double inv_z = 1.0 / z;
        double* out = b.data();
        const double* pred = predicted_.data();
        const std::size_t m = like.size();
        support.resize(m);
        sparse_index* listed = support.data();
        std::size_t count = 0;
        for (std::size_t k = 0; k < m; ++k) {
            const auto s = like.index[k];
            const double v = pred[k] * like.probability[k] * inv_z;
            out[s] = v;
            listed[count] = s;
            count += v != 0.0 ? 1 : 0;
        }
        support.resize(count);
    }

    /// Whether tracking the support is worth it on this model: the posterior lives on one
    /// likelihood column, so when the columns are short against S (on average at most S/4
    /// states, e.g. the Gaussian grid observations with k = 10 on grids of 10 x 10 and more)
    /// beliefs stay concentrated and update_on_support skips the O(S) work; with long columns
    /// (k = 0.1, or the 5 x 5 room) the dense loops are as fast and the rollout keeps to
    /// update() (measured, docs/performance.md). Either way the results are the same.
    [[nodiscard]] bool support_tracking_pays() const noexcept { return support_tracking_pays_; }

    /// b <- B^{ao}(b), as update() computes it to the last bit, for a b whose non-zero
    /// entries are all listed in `support` (ascending, no repeats; entries outside it must be
    /// exactly 0, which is not checked); `support` is then set to the posterior's non-zero
    /// entries, ascending. This is what the rollout calls (SupportTrackingUpdater): starting
    /// from initial(b, support), a step costs O(|support| + the transitions out of it + the
    /// length of the likelihood column) and nothing in O(S), which on large grids, where the
    /// belief concentrates on a few states, is most of the filter's work.
    /// Checks, failures and the strong guarantee are those of update(), the checks of b
    /// restricted to the support.
    template <std::uniform_random_bit_generator G>
    [[gnu::noinline]] void update_on_support(Eigen::VectorXd& b, std::vector<sparse_index>& support, std::size_t a,
                                             std::size_t o, G& /*g*/, std::size_t step = unknown_step) {
        if (!support_pays(support.size(), num_states())) {
            // A large support (the uniform prior, early steps): update()'s dense path; the
            // posterior lives on the likelihood column, whose non-zero entries are the new support.
            update(b, a, o, step);
            const SparseDistribution like = model_->likelihood(a, o);
            support.resize(like.size());
            sparse_index* out = support.data();
            std::size_t count = 0;
            for (std::size_t k = 0; k < like.size(); ++k) {
                out[count] = like.index[k];
                count += b[like.index[k]] != 0.0 ? 1 : 0;
            }
            support.resize(count);
            return;
        }
        check_indices(b.size(), a, o, "update");
        // One pass over the support: check and sum b, scatter the transition rows of its
        // states into the dense prediction in ascending s' (the order in which both of
        // update()'s paths add the products), note the states reached, and clear b there
        // (kept in saved_ so that a failure can restore it).
        double* dense = dense_prediction_.data();
        reached_.clear();
        saved_.clear();
        double mass = 0.0;
        bool valid = true;
        const std::size_t S = num_states();
        for (const sparse_index sp : support) {
            if (static_cast<std::size_t>(sp) >= S) {  // also catches negative indices
                restore(b, support);
                bad_support_index(sp);
            }
            const double w = b[sp];
            saved_.push_back(w);
            b[sp] = 0.0;
            mass += w;
            valid = valid && w >= 0.0;
            if (w == 0.0) continue;
            const SparseDistribution row = model_->transition(static_cast<std::size_t>(sp), a);
            for (std::size_t k = 0; k < row.size(); ++k) {
                const sparse_index t = row.index[k];
                if (dense[t] == 0.0) reached_.push_back(t);  // first visit (or an underflow: listed twice, harmless)
                dense[t] += row.probability[k] * w;
            }
        }
        if (!valid || !std::isfinite(mass) || !(mass > 0.0)) {
            restore(b, support);
            if (!valid || !std::isfinite(mass)) bad_entry("update", b);
            bad_mass("update", mass);
        }

        // The prediction on the likelihood column, gathered as update()'s forward path does,
        // and the evidence and the posterior computed by the same expressions as there.
        const SparseDistribution like = model_->likelihood(a, o);
        const std::size_t m = like.size();
        const sparse_index* idx = like.index.data();
        const double* pr = like.probability.data();
        double* pred = predicted_.data();
        for (std::size_t k = 0; k < m; ++k) pred[k] = dense[idx[k]];
        for (const sparse_index s : reached_) dense[s] = 0.0;
        const double z = evidence(pred, pr, m);
        if (!(z > 0.0) || !std::isfinite(z)) {
            restore(b, support);
            zero_likelihood(a, o, step, z);
        }

        // Normalise and collect the non-zero entries (branch-free).
        const double inv_z = 1.0 / z;
        support.resize(m);
        sparse_index* out = support.data();
        std::size_t count = 0;
        for (std::size_t k = 0; k < m; ++k) {
            const auto s = idx[k];
            const double v = pred[k] * pr[k] * inv_z;
            b[s] = v;
            out[count] = s;
            count += v != 0.0 ? 1 : 0;
        }
        support.resize(count);
    }

    /// P(o | b, a) = Σ_s Obs(o | s, a) Σ_{s'} P(s | s', a) b(s') / Σ_{s'} b(s'): the
    /// probability of observing o after action a from belief b (b need not be normalised;
    /// same checks as update). Non-const: uses the scratch vector.
    [[nodiscard]] double predicted_observation_probability(const Eigen::Ref<const Eigen::VectorXd>& b, std::size_t a,
                                                           std::size_t o) {
        check_indices(b.size(), a, o, "predicted_observation_probability");
        return predict_and_weigh(b, a, model_->likelihood(a, o), "predicted_observation_probability") / mass_;
    }

private:
    /// Whether the prediction reads the model's transposed transitions (see predict_and_weigh).
    static constexpr bool reads_backward = model_has_transposed_transitions<M>;

    static Eigen::Index size_of(const M& model) { return static_cast<Eigen::Index>(model.num_states()); }

    /// Sizes update_on_support's scratch (no allocation per call) and decides
    /// support_tracking_pays_ from the mean length of the likelihood columns.
    void prepare_scratch() {
        const std::size_t S = model_->num_states();
        reached_.reserve(S);
        saved_.reserve(S);
        std::size_t entries = 0;
        const std::size_t A = model_->num_actions(), O = model_->num_observations();
        for (std::size_t a = 0; a < A; ++a)
            for (std::size_t o = 0; o < O; ++o) entries += model_->likelihood(a, o).size();
        const std::size_t mean_column = A * O == 0 ? S : (entries + A * O - 1) / (A * O);
        support_tracking_pays_ = 4 * mean_column <= S;
    }

    void check_indices(Eigen::Index size, std::size_t a, std::size_t o, const char* where) const {
        if (static_cast<std::size_t>(size) != num_states())
            throw config_error(detail::message("BayesFilter::", where, ": the belief has ", size, " entries for ",
                                               num_states(), " states"));
        if (a >= model_->num_actions())
            throw config_error(detail::message("BayesFilter::", where, ": action index ", a, " is outside [0, ",
                                               model_->num_actions(), ")"));
        if (o >= model_->num_observations())
            throw config_error(detail::message("BayesFilter::", where, ": observation index ", o,
                                               " is outside [0, ", model_->num_observations(), ")"));
    }

    /// Sets predicted_[k] = Σ_{s'} P(s | s', a) b(s') for the k-th state s of the support of
    /// the likelihood Obs(o | ·, a) (the only states the posterior can have), mass_ = Σ b, and
    /// returns the unnormalised evidence Σ_k Obs(o | s_k, a) predicted_[k]. Does not touch b.
    ///
    /// Models exposing transition_matrix_transposed (FinitePomdp) are read backwards: each
    /// predicted entry is a sum over the state's predecessors, so the cost is the number of
    /// transitions into the likelihood's support, not a pass over all S entries of b. The
    /// sums are added in ascending s' from 0.0, as the forward scatter over s' adds them (a
    /// zero b(s') adds an exact +0.0), so both ways give the same bits.
    double predict_and_weigh(const Eigen::Ref<const Eigen::VectorXd>& b, std::size_t a, const SparseDistribution& like,
                             const char* where) {
        // Validation and the total mass are vectorised reductions (cheap next to the scatter);
        // the scatter then needs no per-entry checks.
        // A NaN or infinite entry makes the sum non-finite; with a finite sum, the minimum
        // is well defined and catches negative entries.
        const double mass = b.sum();
        if (!std::isfinite(mass) || !(b.minCoeff() >= 0.0)) bad_entry(where, b);
        if (!(mass > 0.0)) bad_mass(where, mass);
        mass_ = mass;
        return predict(b.data(), b.size(), a, like);
    }

    /// predict_and_weigh's prediction and evidence for the n = S entries at bp, already
    /// validated (update_from_prior reads the prior there, update() the belief).
    double predict(const double* bp, Eigen::Index n, std::size_t a, const SparseDistribution& like) {
        const std::size_t m = like.size();
        const sparse_index* idx = like.index.data();
        const double* pr = like.probability.data();
        double* pred = predicted_.data();
        if constexpr (reads_backward) {
            const auto& Pt = model_->transition_matrix_transposed(a);  // row s: predecessors s', ascending
            const auto* outer = Pt.outerIndexPtr();
            const auto* inner = Pt.innerIndexPtr();
            const double* value = Pt.valuePtr();
            for (std::size_t k = 0; k < m; ++k) {
                const auto s = idx[k];
                double acc = 0.0;
                for (auto j = outer[s]; j < outer[s + 1]; ++j) acc += value[j] * bp[inner[j]];
                pred[k] = acc;
            }
        } else {
            // Forward: scatter the rows of the states with positive belief into a dense
            // prediction, then gather the likelihood's support.
            double* dense = dense_prediction_.data();  // all zero on entry (and left so)
            for (Eigen::Index sp = 0; sp < n; ++sp) {
                const double w = bp[sp];
                if (w == 0.0) continue;
                const SparseDistribution row = model_->transition(static_cast<std::size_t>(sp), a);
                for (std::size_t k = 0; k < row.size(); ++k) dense[row.index[k]] += row.probability[k] * w;
            }
            for (std::size_t k = 0; k < m; ++k) pred[k] = dense[idx[k]];
            dense_prediction_.setZero();
        }
        return evidence(pred, pr, m);
    }

    /// Undoes update_on_support's first pass: the scatter's scratch back to zero, b back to
    /// its values on the support (the strong guarantee of a failed update).
    void restore(Eigen::VectorXd& b, std::span<const sparse_index> support) noexcept {
        for (const sparse_index s : reached_) dense_prediction_[s] = 0.0;
        for (std::size_t j = 0; j < saved_.size(); ++j) b[support[j]] = saved_[j];
    }

    /// The evidence Σ_k Obs(o | s_k, a) predicted[k] over the likelihood column, with four
    /// partial sums (no long chain of additions); both update paths use it.
    static double evidence(const double* pred, const double* pr, std::size_t m) noexcept {
        double z0 = 0.0, z1 = 0.0, z2 = 0.0, z3 = 0.0;
        std::size_t k = 0;
        for (; k + 4 <= m; k += 4) {
            z0 += pred[k] * pr[k];
            z1 += pred[k + 1] * pr[k + 1];
            z2 += pred[k + 2] * pr[k + 2];
            z3 += pred[k + 3] * pr[k + 3];
        }
        for (; k < m; ++k) z0 += pred[k] * pr[k];
        return (z0 + z1) + (z2 + z3);
    }

    [[noreturn]] [[gnu::noinline]] [[gnu::cold]] static void bad_entry(const char* where,
                                                                      const Eigen::Ref<const Eigen::VectorXd>& b) {
        for (Eigen::Index sp = 0; sp < b.size(); ++sp)
            if (!(b[sp] >= 0.0) || !std::isfinite(b[sp]))
                throw config_error(detail::message("BayesFilter::", where, ": belief entry ", sp, " is ", b[sp],
                                                   ", not a finite probability >= 0"));
        throw config_error(detail::message("BayesFilter::", where, ": the belief entries sum to ", b.sum(),
                                           " (it needs a positive, finite total)"));
    }

    [[noreturn]] [[gnu::noinline]] [[gnu::cold]] void bad_support_index(sparse_index s) const {
        throw config_error(detail::message("BayesFilter::update_on_support: support entry ", s, " is outside [0, ",
                                           num_states(), ")"));
    }

    [[noreturn]] [[gnu::noinline]] [[gnu::cold]] static void bad_mass(const char* where, double mass) {
        throw config_error(detail::message("BayesFilter::", where, ": the belief has total mass ", mass,
                                           " (it needs a positive, finite total)"));
    }

    [[noreturn]] void zero_likelihood(std::size_t a, std::size_t o, std::size_t step, double z) const {
        std::string at = step == unknown_step ? std::string() : detail::message(" at step ", step);
        throw zero_likelihood_error(
            a, o, step,
            detail::message("BayesFilter::update: observation ", o, " (", detail::describe_observation(*model_, o),
                            ") has zero likelihood after action ", a, " (", detail::describe_action(*model_, a), ")",
                            at, ": P(o | b, a) = ", z, " under the predicted belief"));
    }

    const M* model_;
    Eigen::VectorXd prior_;
    std::vector<sparse_index> prior_support_;  // the prior's non-zero entries, ascending
    Eigen::VectorXd predicted_;  // scratch: the predicted belief on the likelihood's support (compact)
    Eigen::VectorXd dense_prediction_;  // scratch of the forward scatters, all zero between calls
    std::vector<sparse_index> reached_;  // update_on_support: those states (capacity S)
    bool support_tracking_pays_ = false;
    std::vector<double> saved_;          // update_on_support: b on the support before the update
    double mass_ = 1.0;          // Σ b, set by predict_and_weigh for predicted_observation_probability
};

}  // namespace maxent
