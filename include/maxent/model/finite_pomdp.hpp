// maxent/model/finite_pomdp.hpp — the finite POMDP over the user's own label types.
//
// Paper, Section 2.1: M = (S, A, O, P, Obs, T, μ). `FinitePomdp<State, Action, Observation>`
// stores the sets as LabelSets of the user's types (a grid-cell struct, an enum, strings
// read from a file) and the dynamics sparse:
//   * P(· | s, a): one S x S row-major sparse matrix per action (rows = s, columns = s');
//   * Obs(· | s', a): one S x O row-major sparse matrix, shared by all actions (the paper's
//     Obs(o | s)) or one per action (the POMDP file format's O: a : s' : o), together with
//     its transpose, so the filter reads the likelihood column Obs(o | ·, a) in O(nnz);
//   * the distribution of the first observation o_1 given s_1 (default: the shared
//     observation matrix; for action-dependent models, uniform over O unless set);
//   * μ as a dense vector, and the horizon T.
// Everything is validated on construction (tolerance 1e-9 on row sums by default); each
// failure is a model_error whose message names the matrix, row, column and value.
// Construction costs O(S + nnz) time and memory: no dense S x S or S x O intermediate, and
// no copy of a sparse matrix (Eigen 3.4's SparseMatrix has no move constructor, so matrices
// are swapped into place, `detail::append_by_swap`); the first-observation law shares the
// observation matrix and its running sums when they are the same.
// It satisfies TabularPomdp and LabelledPomdp (model/concepts.hpp).
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/labels.hpp"

namespace maxent {

/// Row-major sparse matrix used for transition and observation models.
using SparseMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, sparse_index>;

/// Options of model validation.
struct ValidationOptions {
    /// Largest accepted |row sum - 1| for every transition and observation row and for μ.
    double tolerance = 1e-9;
};

namespace detail {
/// Appends m to v by swapping it into a new empty element: Eigen 3.4's SparseMatrix has no
/// move constructor, so push_back(std::move(m)) would copy every entry. Leaves m empty.
/// Reserve v first: a vector that grows copies the matrices it holds, for the same reason.
inline void append_by_swap(std::vector<SparseMatrix>& v, SparseMatrix& m) {
    v.emplace_back();
    v.back().swap(m);
}
}  // namespace detail

/// Converts a dense matrix to the library's sparse form, keeping every entry that is not
/// exactly zero (so negative or NaN entries survive to be reported by validation).
[[nodiscard]] inline SparseMatrix to_sparse(const Eigen::Ref<const Eigen::MatrixXd>& dense) {
    std::vector<Eigen::Triplet<double, sparse_index>> entries;
    for (Eigen::Index r = 0; r < dense.rows(); ++r)
        for (Eigen::Index c = 0; c < dense.cols(); ++c)
            if (dense(r, c) != 0.0)
                entries.emplace_back(static_cast<sparse_index>(r), static_cast<sparse_index>(c), dense(r, c));
    SparseMatrix m(dense.rows(), dense.cols());
    m.setFromTriplets(entries.begin(), entries.end());
    m.makeCompressed();
    return m;
}

// Unconstrained on purpose: LabelSet's static_asserts say in one message what a label type
// lacks (e.g. `operator==` on a struct state), where a constraint here would print the
// standard library's whole concept trace.
template <class State, class Action, class Observation>
class FinitePomdp {
public:
    using state_type = State;
    using action_type = Action;
    using observation_type = Observation;

    /// From sparse matrices. `transitions` holds one S x S matrix per action;
    /// `observations` holds one S x O matrix (shared by all actions) or one per action.
    FinitePomdp(std::vector<State> states, std::vector<Action> actions, std::vector<Observation> observations,
                std::vector<SparseMatrix> transitions, std::vector<SparseMatrix> observation_matrices,
                Eigen::VectorXd initial, std::size_t horizon, ValidationOptions options = {})
        : states_(std::move(states), "state"),
          actions_(std::move(actions), "action"),
          observations_(std::move(observations), "observation"),
          transitions_(std::move(transitions)),
          obs_(std::move(observation_matrices)),
          initial_(std::move(initial)),
          horizon_(horizon),
          tolerance_(options.tolerance) {
        validate_and_index();
    }

    /// From dense matrices (same layout as the sparse constructor).
    FinitePomdp(std::vector<State> states, std::vector<Action> actions, std::vector<Observation> observations,
                const std::vector<Eigen::MatrixXd>& transitions, const std::vector<Eigen::MatrixXd>& observation_matrices,
                Eigen::VectorXd initial, std::size_t horizon, ValidationOptions options = {})
        : FinitePomdp(std::move(states), std::move(actions), std::move(observations), sparse_all(transitions),
                      sparse_all(observation_matrices), std::move(initial), horizon, options) {}

    /// From functions over the user's types.
    ///  * `transition(const State& s, const Action& a)` returns a range of (State, double)
    ///    pairs: the successors s' with P(s' | s, a); repeated successors add up;
    ///  * `observation(const State& s')` (or `observation(const Action& a, const State& s')`)
    ///    returns a range of (Observation, double) pairs;
    ///  * `initial` lists (State, probability) pairs of μ.
    /// A returned label outside its set is an unknown_label_error naming it and where it came
    /// from (the source state and action of a successor, the state of an observation).
    template <class TransitionFn, class ObservationFn>
    [[nodiscard]] static FinitePomdp from_functions(std::vector<State> states, std::vector<Action> actions,
                                                    std::vector<Observation> observations, TransitionFn&& transition,
                                                    ObservationFn&& observation,
                                                    const std::vector<std::pair<State, double>>& initial,
                                                    std::size_t horizon, ValidationOptions options = {}) {
        const LabelSet<State> S(states, "state");
        const LabelSet<Action> A(actions, "action");
        const LabelSet<Observation> O(observations, "observation");
        const auto nS = static_cast<sparse_index>(S.size());
        const auto nO = static_cast<sparse_index>(O.size());
        std::vector<SparseMatrix> P;
        P.reserve(A.size());
        for (std::size_t a = 0; a < A.size(); ++a) {
            std::vector<Eigen::Triplet<double, sparse_index>> entries;
            for (std::size_t s = 0; s < S.size(); ++s)
                for (const auto& [next, p] : std::invoke(transition, S[s], A[a]))
                    entries.emplace_back(static_cast<sparse_index>(s),
                                         static_cast<sparse_index>(lookup(S, next, [&] {
                                             return detail::message("transition(", S.describe(s), ", ",
                                                                    A.describe(a), ")");
                                         })),
                                         static_cast<double>(p));
            P.emplace_back(nS, nS);
            P.back().setFromTriplets(entries.begin(), entries.end());
        }
        std::vector<SparseMatrix> Z;
        auto fill_obs = [&](auto&& row_of, auto&& where) {
            std::vector<Eigen::Triplet<double, sparse_index>> entries;
            for (std::size_t s = 0; s < S.size(); ++s)
                for (const auto& [o, p] : row_of(S[s]))
                    entries.emplace_back(static_cast<sparse_index>(s),
                                         static_cast<sparse_index>(lookup(O, o, [&] { return where(s); })),
                                         static_cast<double>(p));
            Z.emplace_back(nS, nO);
            Z.back().setFromTriplets(entries.begin(), entries.end());
        };
        if constexpr (std::invocable<ObservationFn&, const State&>) {
            fill_obs([&](const State& s) { return std::invoke(observation, s); },
                     [&](std::size_t s) { return detail::message("observation(", S.describe(s), ")"); });
        } else {
            static_assert(std::invocable<ObservationFn&, const Action&, const State&>,
                          "FinitePomdp::from_functions: the observation function must be callable as "
                          "observation(const State&) or observation(const Action&, const State&)");
            for (std::size_t a = 0; a < A.size(); ++a)
                fill_obs([&](const State& s) { return std::invoke(observation, A[a], s); }, [&](std::size_t s) {
                    return detail::message("observation(", A.describe(a), ", ", S.describe(s), ")");
                });
        }
        Eigen::VectorXd mu = Eigen::VectorXd::Zero(nS);
        for (const auto& [s, p] : initial)
            mu[static_cast<Eigen::Index>(lookup(S, s, [] { return std::string("the initial distribution"); }))] += p;
        return FinitePomdp(std::move(states), std::move(actions), std::move(observations), std::move(P), std::move(Z),
                           std::move(mu), horizon, options);
    }

    // --- sizes and labels (Pomdp concept) ---------------------------------------------
    [[nodiscard]] std::size_t num_states() const noexcept { return states_.size(); }
    [[nodiscard]] std::size_t num_actions() const noexcept { return actions_.size(); }
    [[nodiscard]] std::size_t num_observations() const noexcept { return observations_.size(); }
    [[nodiscard]] std::size_t horizon() const noexcept { return horizon_; }

    [[nodiscard]] const State& state_label(std::size_t i) const { return states_[i]; }
    [[nodiscard]] const Action& action_label(std::size_t i) const { return actions_[i]; }
    [[nodiscard]] const Observation& observation_label(std::size_t i) const { return observations_[i]; }
    [[nodiscard]] std::size_t state_index(const State& x) const { return states_.index(x); }
    [[nodiscard]] std::size_t action_index(const Action& x) const { return actions_.index(x); }
    [[nodiscard]] std::size_t observation_index(const Observation& x) const { return observations_.index(x); }
    [[nodiscard]] const LabelSet<State>& states() const noexcept { return states_; }
    [[nodiscard]] const LabelSet<Action>& actions() const noexcept { return actions_; }
    [[nodiscard]] const LabelSet<Observation>& observations() const noexcept { return observations_; }

    // --- dynamics (Pomdp / TabularPomdp concepts) ---------------------------------------
    [[nodiscard]] const Eigen::VectorXd& initial_distribution() const noexcept { return initial_; }

    /// P(· | s, a) as a sparse view (valid while the model lives), with its running sums.
    [[nodiscard]] SparseDistribution transition(std::size_t s, std::size_t a) const {
        check_state(s, "transition");
        check_action(a, "transition");
        return row(transitions_[a], s, transition_cdf_[a]);
    }
    /// Obs(· | s, a): the observation emitted on arriving in s after action a.
    [[nodiscard]] SparseDistribution observation(std::size_t a, std::size_t s) const {
        check_action(a, "observation");
        check_state(s, "observation");
        return row(obs_[obs_slot(a)], s, obs_cdf_[obs_slot(a)]);
    }
    /// Distribution of the first observation o_1 given s_1.
    [[nodiscard]] SparseDistribution initial_observation(std::size_t s) const {
        check_state(s, "initial_observation");
        return initial_obs_shared_ ? row(obs_[0], s, obs_cdf_[0]) : row(initial_obs_, s, initial_obs_cdf_);
    }
    /// The non-zero entries of the column Obs(o | ·, a), indexed by state.
    [[nodiscard]] SparseDistribution likelihood(std::size_t a, std::size_t o) const {
        check_action(a, "likelihood");
        if (o >= num_observations())
            throw config_error(detail::message("likelihood: observation index ", o, " is outside [0, ",
                                               num_observations(), ")"));
        return row(obs_t_[obs_slot(a)], o);
    }

    [[nodiscard]] double transition_probability(std::size_t s, std::size_t a, std::size_t next) const {
        return transition(s, a)(next);
    }
    [[nodiscard]] double observation_probability(std::size_t a, std::size_t s, std::size_t o) const {
        return observation(a, s)(o);
    }

    /// The S x S transition matrix of action a (rows s, columns s').
    [[nodiscard]] const SparseMatrix& transition_matrix(std::size_t a) const {
        check_action(a, "transition_matrix");
        return transitions_[a];
    }
    /// Its transpose (rows s', columns s; within a row the columns s ascend): row s' lists
    /// the predecessors s with P(s' | s, a) > 0. The Bayes filter predicts from it only the
    /// states an observation can come from. Costs as much memory as transition_matrix.
    [[nodiscard]] const SparseMatrix& transition_matrix_transposed(std::size_t a) const {
        check_action(a, "transition_matrix_transposed");
        return transitions_t_[a];
    }
    /// The S x O observation matrix used after action a.
    [[nodiscard]] const SparseMatrix& observation_matrix(std::size_t a) const {
        check_action(a, "observation_matrix");
        return obs_[obs_slot(a)];
    }
    [[nodiscard]] const SparseMatrix& initial_observation_matrix() const noexcept {
        return initial_obs_shared_ ? obs_[0] : initial_obs_;
    }
    [[nodiscard]] bool observation_depends_on_action() const noexcept { return obs_.size() > 1; }
    [[nodiscard]] double tolerance() const noexcept { return tolerance_; }

    // --- modifiers ------------------------------------------------------------------------
    /// Sets the horizon T (>= 1).
    void set_horizon(std::size_t horizon) {
        if (horizon == 0) throw model_error("horizon must be at least 1, got 0");
        horizon_ = horizon;
    }
    /// Sets the distribution of o_1 given s_1 (S x O, rows on the simplex).
    void set_initial_observation(SparseMatrix m) {
        validate_stochastic(m, num_states(), num_observations(), "initial observation matrix Obs(o_1 | s_1)",
                            [this](std::size_t r) { return states_.describe(r); },
                            [this](std::size_t c) { return observations_.describe(c); });
        initial_obs_.swap(m);
        initial_obs_.makeCompressed();
        initial_obs_cdf_ = running_sums(initial_obs_);
        initial_obs_shared_ = false;
    }

private:
    /// The index of label `x` in `set`, or an unknown_label_error naming `x` and
    /// `where()` it was returned: "unknown state 'c' returned by transition('b', 'go')".
    template <class Set, class X, class Where>
    static std::size_t lookup(const Set& set, const X& x, Where&& where) {
        if (const auto i = set.find(x)) return *i;
        throw unknown_label_error(detail::message("unknown ", set.what(), " ", set.describe_value(x),
                                                  " returned by ", where(), " (not one of the ", set.size(), " ",
                                                  set.what(), " labels)"));
    }

    static std::vector<SparseMatrix> sparse_all(const std::vector<Eigen::MatrixXd>& dense) {
        std::vector<SparseMatrix> out;
        out.reserve(dense.size());
        for (const auto& d : dense) {
            SparseMatrix m = to_sparse(d);
            detail::append_by_swap(out, m);
        }
        return out;
    }

    static SparseDistribution row(const SparseMatrix& m, std::size_t r) {
        const auto begin = m.outerIndexPtr()[r];
        const auto end = m.outerIndexPtr()[r + 1];
        const auto n = static_cast<std::size_t>(end - begin);
        return {std::span<const sparse_index>(m.innerIndexPtr() + begin, n),
                std::span<const double>(m.valuePtr() + begin, n)};
    }
    /// A row with its running sums (`cdf` is running_sums(m)).
    static SparseDistribution row(const SparseMatrix& m, std::size_t r, const std::vector<double>& cdf) {
        SparseDistribution d = row(m, r);
        d.cumulative = std::span<const double>(cdf.data() + m.outerIndexPtr()[r], d.size());
        return d;
    }
    /// Appends the transpose of m to `out`, by Eigen's storage-order conversion (O(nnz), no
    /// copy), which lists each row's columns in ascending order (the Bayes filter's sums rely
    /// on it; tested).
    static void append_transpose(std::vector<SparseMatrix>& out, const SparseMatrix& m) {
        out.emplace_back();
        out.back() = m.transpose();
        out.back().makeCompressed();
    }
    /// Per row of a compressed matrix, the running sums of its values in storage order,
    /// added exactly as sample_categorical's linear scan adds them (core/distribution.hpp).
    static std::vector<double> running_sums(const SparseMatrix& m) {
        std::vector<double> out(static_cast<std::size_t>(m.nonZeros()));
        for (Eigen::Index r = 0; r < m.outerSize(); ++r) {
            double cumulative = 0.0;
            for (auto k = m.outerIndexPtr()[r]; k < m.outerIndexPtr()[r + 1]; ++k) {
                cumulative += m.valuePtr()[k];
                out[static_cast<std::size_t>(k)] = cumulative;
            }
        }
        return out;
    }

    [[nodiscard]] std::size_t obs_slot(std::size_t a) const noexcept { return obs_.size() == 1 ? 0 : a; }

    // Inline range checks with the message built out of line (they sit on the rollout's hot path).
    void check_state(std::size_t s, const char* where) const {
        if (s >= num_states()) [[unlikely]]
            out_of_range(where, "state", s, num_states());
    }
    void check_action(std::size_t a, const char* where) const {
        if (a >= num_actions()) [[unlikely]]
            out_of_range(where, "action", a, num_actions());
    }
    [[noreturn]] [[gnu::noinline]] [[gnu::cold]] static void out_of_range(const char* where, const char* what,
                                                                         std::size_t i, std::size_t n) {
        throw config_error(detail::message(where, ": ", what, " index ", i, " is outside [0, ", n, ")"));
    }

    template <class RowName, class ColName>
    void validate_stochastic(SparseMatrix& m, std::size_t rows, std::size_t cols, const std::string& what,
                             RowName row_name, ColName col_name) const {
        if (static_cast<std::size_t>(m.rows()) != rows || static_cast<std::size_t>(m.cols()) != cols)
            throw model_error(detail::message(what, " is ", m.rows(), " x ", m.cols(), ", expected ", rows, " x ",
                                              cols));
        m.makeCompressed();
        for (std::size_t r = 0; r < rows; ++r) {
            double sum = 0.0;
            for (SparseMatrix::InnerIterator it(m, static_cast<Eigen::Index>(r)); it; ++it) {
                const double v = it.value();
                const auto c = static_cast<std::size_t>(it.col());
                if (!std::isfinite(v))
                    throw model_error(detail::message(what, ": row ", r, " (", row_name(r), "), column ", c, " (",
                                                      col_name(c), ") is ", v, ", not a finite probability"));
                if (v < 0.0)
                    throw model_error(detail::message(what, ": row ", r, " (", row_name(r), "), column ", c, " (",
                                                      col_name(c), ") is negative: ", v));
                sum += v;
            }
            if (!(std::abs(sum - 1.0) <= tolerance_))
                throw model_error(detail::message(what, ": row ", r, " (", row_name(r), ") sums to ", sum,
                                                  ", not 1 within ", tolerance_));
        }
        m.prune(0.0, 0.0);  // drop explicit zeros so views list only positive entries
        m.makeCompressed();
    }

    void validate_and_index() {
        const std::size_t S = num_states(), A = num_actions(), O = num_observations();
        if (!(tolerance_ >= 0.0) || !std::isfinite(tolerance_))
            throw model_error(detail::message("validation tolerance must be finite and >= 0, got ", tolerance_));
        if (horizon_ == 0) throw model_error("horizon must be at least 1, got 0");
        if (transitions_.size() != A)
            throw model_error(detail::message("got ", transitions_.size(), " transition matrices for ", A,
                                              " actions (one S x S matrix per action is required)"));
        for (std::size_t a = 0; a < A; ++a)
            validate_stochastic(transitions_[a], S, S,
                                detail::message("transition matrix P(s' | s, a) of action ", actions_.describe(a),
                                                " (index ", a, ")"),
                                [this](std::size_t r) { return detail::message("state ", states_.describe(r)); },
                                [this](std::size_t c) { return detail::message("state ", states_.describe(c)); });
        if (obs_.size() != 1 && obs_.size() != A)
            throw model_error(detail::message("got ", obs_.size(), " observation matrices for ", A,
                                              " actions (give one shared S x O matrix or one per action)"));
        for (std::size_t k = 0; k < obs_.size(); ++k)
            validate_stochastic(obs_[k], S, O,
                                obs_.size() == 1 ? std::string("observation matrix Obs(o | s)")
                                                 : detail::message("observation matrix Obs(o | s', a) of action ",
                                                                   actions_.describe(k), " (index ", k, ")"),
                                [this](std::size_t r) { return detail::message("state ", states_.describe(r)); },
                                [this](std::size_t c) {
                                    return detail::message("observation ", observations_.describe(c));
                                });
        if (static_cast<std::size_t>(initial_.size()) != S)
            throw model_error(detail::message("initial distribution has ", initial_.size(), " entries for ", S,
                                              " states"));
        double sum = 0.0;
        for (std::size_t s = 0; s < S; ++s) {
            const double v = initial_[static_cast<Eigen::Index>(s)];
            if (!std::isfinite(v) || v < 0.0)
                throw model_error(detail::message("initial distribution: entry ", s, " (state ", states_.describe(s),
                                                  ") is ", v, ", not a probability"));
            sum += v;
        }
        if (!(std::abs(sum - 1.0) <= tolerance_))
            throw model_error(detail::message("initial distribution sums to ", sum, ", not 1 within ", tolerance_));
        obs_t_.clear();
        obs_t_.reserve(obs_.size());
        obs_cdf_.clear();
        for (const auto& m : obs_) {
            append_transpose(obs_t_, m);
            obs_cdf_.push_back(running_sums(m));
        }
        transitions_t_.clear();
        transitions_t_.reserve(transitions_.size());
        transition_cdf_.clear();
        for (const auto& m : transitions_) {
            append_transpose(transitions_t_, m);
            transition_cdf_.push_back(running_sums(m));
        }
        initial_obs_ = SparseMatrix();
        initial_obs_cdf_.clear();
        initial_obs_shared_ = obs_.size() == 1;  // o_1 ~ the shared matrix's row: no copy
        if (!initial_obs_shared_) {
            // Uniform over O, written straight into the compressed arrays (S x O entries).
            if (S > static_cast<std::size_t>(std::numeric_limits<sparse_index>::max()) / O)
                throw model_error(detail::message("the uniform first-observation law of ", S, " states and ", O,
                                                  " observations has more entries than the sparse index allows (",
                                                  std::numeric_limits<sparse_index>::max(), ")"));
            initial_obs_.resize(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(O));
            initial_obs_.resizeNonZeros(static_cast<Eigen::Index>(S * O));
            const double p = 1.0 / double(O);
            for (std::size_t r = 0; r < S; ++r) {
                initial_obs_.outerIndexPtr()[r + 1] = static_cast<sparse_index>((r + 1) * O);
                for (std::size_t c = 0; c < O; ++c) {
                    initial_obs_.innerIndexPtr()[r * O + c] = static_cast<sparse_index>(c);
                    initial_obs_.valuePtr()[r * O + c] = p;
                }
            }
            initial_obs_cdf_ = running_sums(initial_obs_);
        }
    }

    LabelSet<State> states_;
    LabelSet<Action> actions_;
    LabelSet<Observation> observations_;
    std::vector<SparseMatrix> transitions_;
    std::vector<SparseMatrix> obs_;
    std::vector<SparseMatrix> obs_t_;
    std::vector<SparseMatrix> transitions_t_;  // transposes of transitions_ (Bayes filter)
    std::vector<std::vector<double>> transition_cdf_;  // running_sums of transitions_ (sampling)
    std::vector<std::vector<double>> obs_cdf_;         // running_sums of obs_
    SparseMatrix initial_obs_;              // empty while shared (initial_obs_shared_)
    std::vector<double> initial_obs_cdf_;   // running_sums of initial_obs_
    bool initial_obs_shared_ = false;       // o_1 follows obs_[0] (with obs_cdf_[0])
    Eigen::VectorXd initial_;
    std::size_t horizon_;
    double tolerance_;
};

}  // namespace maxent
