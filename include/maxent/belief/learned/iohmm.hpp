// maxent/belief/learned/iohmm.hpp — an input–output hidden Markov model (IOHMM) over L latent
// states, and the likelihood of action–observation sequences under it.
//
// Indices z = 0..L-1 for latent states; actions and observations are the world's indices
// 0..A-1, 0..O-1:
//   μ̂(z_1)                   the initial distribution;
//   P̂_a(z' | z)              one L x L matrix per action (rows z, columns z');
//   Ô(o | z')                 one L x O matrix shared by all actions (EmissionModel::shared,
//                             the default; it also emits o_1 from z_1), or
//   Ô_a(o | z'), Ô_1(o | z_1) one L x O matrix per action plus one for the first observation
//                             (EmissionModel::per_action).
//   P(o_1..o_{K+1} | a_1..a_K) = Σ_z μ̂(z_1) Ô_1(o_1 | z_1) Π_k P̂_{a_k}(z_{k+1} | z_k) Ô_{a_k}(o_{k+1} | z_{k+1}).
//
// The forward pass is scaled (every forward vector is normalised and log P = Σ_k log c_k), so
// it cannot underflow whatever the length; forward–backward costs O((K + 1) L²) per sequence.
// A sequence of probability 0 (the normaliser c_k is 0 or not finite) has log-likelihood -inf:
// not an error here; nothing returns NaN. Sums over many sequences are taken in blocks of
// consecutive sequences added in index order, so they are identical (==) for any number of
// threads (they may differ in the last bits for another block size).
//
// Errors: config_error (naming the value) for a model whose matrices have inconsistent sizes,
// and for a sequence without observations, whose number of observations is not its number of
// actions + 1, or with an action or observation outside [0, A) or [0, O); model_error for a
// model that is not a distribution (an entry negative or not finite, naming matrix, row,
// column and value; a row not summing to 1 within iohmm_sum_tolerance).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/learned/sequences.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"

namespace maxent {

/// Whether observations depend on the latent state only, or on the state and the last action.
enum class EmissionModel {
    shared,     ///< Ô(o | z'), also for o_1
    per_action  ///< Ô_a(o | z') after action a, and Ô_1(o | z_1) for o_1
};

/// The parameters of an IOHMM over L latent states. Every vector and row is a distribution.
struct IohmmModel {
    EmissionModel emission_model = EmissionModel::shared;
    Eigen::VectorXd initial;                   ///< μ̂, L entries
    std::vector<Eigen::MatrixXd> transitions;  ///< A matrices L x L: P̂_a(z' | z), rows z
    std::vector<Eigen::MatrixXd> emissions;    ///< 1 (shared) or A matrices L x O: Ô(o | z'[, a])
    Eigen::MatrixXd initial_emission;          ///< L x O: Ô_1(o_1 | z_1); per_action only (fit_iohmm sets it
                                               ///< to emissions[0] when shared, but it is then not read)

    [[nodiscard]] std::size_t num_latent_states() const noexcept { return static_cast<std::size_t>(initial.size()); }
    [[nodiscard]] std::size_t num_actions() const noexcept { return transitions.size(); }
    [[nodiscard]] std::size_t num_observations() const noexcept {
        return emissions.empty() ? 0 : static_cast<std::size_t>(emissions[0].cols());
    }
    /// The emission matrix used after action a.
    [[nodiscard]] const Eigen::MatrixXd& emission(std::size_t a) const noexcept {
        return emissions[emission_model == EmissionModel::shared ? 0 : a];
    }
    /// The emission matrix of the first observation o_1.
    [[nodiscard]] const Eigen::MatrixXd& first_emission() const noexcept {
        return emission_model == EmissionModel::shared ? emissions[0] : initial_emission;
    }

    /// Same shape and the same entries, bit for bit.
    friend bool operator==(const IohmmModel& x, const IohmmModel& y) {
        auto same = [](const auto& p, const auto& q) {
            return p.rows() == q.rows() && p.cols() == q.cols() && (p.array() == q.array()).all();
        };
        auto same_all = [&](const std::vector<Eigen::MatrixXd>& p, const std::vector<Eigen::MatrixXd>& q) {
            if (p.size() != q.size()) return false;
            for (std::size_t i = 0; i < p.size(); ++i)
                if (!same(p[i], q[i])) return false;
            return true;
        };
        return x.emission_model == y.emission_model && same(x.initial, y.initial) &&
               same_all(x.transitions, y.transitions) && same_all(x.emissions, y.emissions) &&
               same(x.initial_emission, y.initial_emission);
    }
};

/// Posteriors of one sequence under a model (for inspection and tests).
struct IohmmPosteriors {
    double log_likelihood = 0.0;              ///< log P(o_1..o_{K+1} | a_1..a_K); -inf if impossible
    Eigen::MatrixXd state;                    ///< L x (K+1): column k = P(z_{k+1} | all data)
    std::vector<Eigen::MatrixXd> transition;  ///< K matrices L x L: P(z_k = z, z_{k+1} = z' | all data)
};

namespace detail {

inline Eigen::Index eidx(std::size_t i) noexcept { return static_cast<Eigen::Index>(i); }

/// Checks one sequence against the sizes; `what` is "training sequence" or "held-out sequence".
inline void check_sequence(const ActionObservationSequence& s, std::size_t n, std::size_t A, std::size_t O,
                           const char* where, const char* what) {
    const std::string name = s.id.empty() ? std::string() : detail::message(" ('", s.id, "')");
    if (s.observations.empty())
        throw config_error(detail::message(where, ": ", what, " ", n, name, " has no observations (it needs o_1)"));
    if (s.observations.size() != s.actions.size() + 1)
        throw config_error(detail::message(where, ": ", what, " ", n, name, " has ", s.actions.size(),
                                           " actions and ", s.observations.size(),
                                           " observations; it needs one more observation than actions"));
    for (std::size_t k = 0; k < s.actions.size(); ++k)
        if (s.actions[k] >= A)
            throw config_error(detail::message(where, ": ", what, " ", n, name, ", step ", k + 1, ": action ",
                                               s.actions[k], " is outside [0, ", A, ")"));
    for (std::size_t k = 0; k < s.observations.size(); ++k)
        if (s.observations[k] >= O)
            throw config_error(detail::message(where, ": ", what, " ", n, name, ", step ", k + 1, ": observation ",
                                               s.observations[k], " is outside [0, ", O, ")"));
}

/// Checks that a model's matrices have consistent sizes (not that they are distributions).
inline void check_model_shape(const IohmmModel& m, const char* where) {
    const auto L = m.initial.size();
    const std::size_t A = m.transitions.size();
    if (L == 0) throw config_error(detail::message(where, ": the model has 0 latent states"));
    if (A == 0) throw config_error(detail::message(where, ": the model has no transition matrices (0 actions)"));
    for (std::size_t a = 0; a < A; ++a)
        if (m.transitions[a].rows() != L || m.transitions[a].cols() != L)
            throw config_error(detail::message(where, ": transition matrix ", a, " is ", m.transitions[a].rows(),
                                               " x ", m.transitions[a].cols(), ", expected ", L, " x ", L));
    const std::size_t slots = m.emission_model == EmissionModel::shared ? 1 : A;
    if (m.emissions.size() != slots)
        throw config_error(detail::message(where, ": ", m.emissions.size(), " emission matrices for ", A, " actions (",
                                           m.emission_model == EmissionModel::shared ? "shared emissions need one"
                                                                                     : "per-action emissions need one per action",
                                           ")"));
    const auto O = m.emissions[0].cols();
    if (O == 0) throw config_error(detail::message(where, ": the emission matrices have 0 columns (0 observations)"));
    if (m.emission_model == EmissionModel::per_action &&
        (m.initial_emission.rows() != L || m.initial_emission.cols() != O))
        throw config_error(detail::message(where, ": the initial emission matrix is ", m.initial_emission.rows(),
                                           " x ", m.initial_emission.cols(), ", expected ", L, " x ", O));
    for (std::size_t k = 0; k < m.emissions.size(); ++k)
        if (m.emissions[k].rows() != L || m.emissions[k].cols() != O)
            throw config_error(detail::message(where, ": emission matrix ", k, " is ", m.emissions[k].rows(), " x ",
                                               m.emissions[k].cols(), ", expected ", L, " x ", O));
}

}  // namespace detail

/// How far a row (and μ̂) of an IohmmModel may sum from 1: FinitePomdp's default tolerance.
inline constexpr double iohmm_sum_tolerance = 1e-9;

namespace detail {

/// Checks that every row of `x` is a distribution; `name` says which matrix ("transition matrix 1").
inline void check_rows(const Eigen::MatrixXd& x, const std::string& name, const char* where) {
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        double sum = 0.0;
        for (Eigen::Index c = 0; c < x.cols(); ++c) {
            const double v = x(r, c);
            if (!(v >= 0.0) || !std::isfinite(v))
                throw model_error(detail::message(where, ": ", name, ", row ", r, ", column ", c, " is ", v,
                                                  "; probabilities must be finite and >= 0"));
            sum += v;
        }
        if (!(std::abs(sum - 1.0) <= iohmm_sum_tolerance))
            throw model_error(detail::message(where, ": ", name, ", row ", r, " sums to ", sum, ", not 1 within ",
                                              iohmm_sum_tolerance));
    }
}

/// Checks that a model of consistent shape is made of distributions: μ̂, every row of every
/// P̂_a and Ô (and Ô_1 with per-action emissions; with shared emissions it is not read).
inline void check_model_values(const IohmmModel& m, const char* where) {
    double sum = 0.0;
    for (Eigen::Index z = 0; z < m.initial.size(); ++z) {
        const double v = m.initial[z];
        if (!(v >= 0.0) || !std::isfinite(v))
            throw model_error(detail::message(where, ": the initial distribution, entry ", z, " is ", v,
                                              "; probabilities must be finite and >= 0"));
        sum += v;
    }
    if (!(std::abs(sum - 1.0) <= iohmm_sum_tolerance))
        throw model_error(detail::message(where, ": the initial distribution sums to ", sum, ", not 1 within ",
                                          iohmm_sum_tolerance));
    for (std::size_t a = 0; a < m.transitions.size(); ++a)
        check_rows(m.transitions[a], detail::message("transition matrix ", a), where);
    for (std::size_t k = 0; k < m.emissions.size(); ++k)
        check_rows(m.emissions[k], detail::message("emission matrix ", k), where);
    if (m.emission_model == EmissionModel::per_action) check_rows(m.initial_emission, "the initial emission matrix", where);
}

/// check_model_shape, then check_model_values.
inline void check_model(const IohmmModel& m, const char* where) {
    check_model_shape(m, where);
    check_model_values(m, where);
}

/// Scaled forward pass: alpha (L x (K+1)) column k = P(z_{k+1} | o_1..o_{k+1}), c[k] = P(o_{k+1} | o_1..o_k)
/// (all given the actions). Returns 0, or the 1-based step at which the normaliser is not a
/// positive finite number (the sequence is impossible under the model, or underflowed).
inline std::size_t forward(const IohmmModel& m, const ActionObservationSequence& s, Eigen::MatrixXd& alpha,
                           Eigen::VectorXd& c) {
    const std::size_t steps = s.observations.size();
    const auto L = m.initial.size();
    alpha.resize(L, eidx(steps));
    c.resize(eidx(steps));
    alpha.col(0) = m.initial.cwiseProduct(m.first_emission().col(eidx(s.observations[0])));
    double z = alpha.col(0).sum();
    if (!(z > 0.0) || !std::isfinite(z)) return 1;
    c[0] = z;
    alpha.col(0) /= z;
    for (std::size_t k = 1; k < steps; ++k) {
        const std::size_t a = s.actions[k - 1];
        const auto col = eidx(k);
        alpha.col(col).noalias() = m.transitions[a].transpose() * alpha.col(col - 1);
        alpha.col(col).array() *= m.emission(a).col(eidx(s.observations[k])).array();
        z = alpha.col(col).sum();
        if (!(z > 0.0) || !std::isfinite(z)) return k + 1;
        c[col] = z;
        alpha.col(col) /= z;
    }
    return 0;
}

/// Σ_k log c_k over the first `steps` normalisers.
inline double sum_log(const Eigen::VectorXd& c, std::size_t steps) {
    double ll = 0.0;
    for (std::size_t k = 0; k < steps; ++k) ll += std::log(c[eidx(k)]);
    return ll;
}

/// Log-likelihood of sequences [begin, end) (forward passes); -inf if one is impossible.
/// `stop` (optional) is read before every sequence: once true, the block returns 0 at once
/// and sets `*stopped` (the sum is then partial; the same bits when it never reads true).
inline double block_log_likelihood(const IohmmModel& m, std::span<const ActionObservationSequence> data,
                                   std::size_t begin, std::size_t end, const std::atomic<bool>* stop = nullptr,
                                   std::atomic<bool>* stopped = nullptr) {
    Eigen::MatrixXd alpha;
    Eigen::VectorXd c;
    double ll = 0.0;
    for (std::size_t n = begin; n < end; ++n) {
        if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
            stopped->store(true, std::memory_order_relaxed);
            return 0.0;
        }
        if (forward(m, data[n], alpha, c) != 0) return -std::numeric_limits<double>::infinity();
        ll += sum_log(c, data[n].observations.size());
    }
    return ll;
}

inline std::size_t block_count(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

}  // namespace detail

/// Forward–backward on one sequence: its log-likelihood and the posteriors of the latent
/// states and of consecutive pairs. Throws config_error for a malformed sequence or model
/// shape, model_error for a model that is not a distribution; an impossible sequence gives
/// log_likelihood = -inf and empty posteriors.
[[nodiscard]] inline IohmmPosteriors iohmm_posteriors(const IohmmModel& m, const ActionObservationSequence& s) {
    detail::check_model(m, "iohmm_posteriors");
    detail::check_sequence(s, 0, m.num_actions(), m.num_observations(), "iohmm_posteriors", "sequence");
    IohmmPosteriors out;
    Eigen::MatrixXd alpha;
    Eigen::VectorXd c;
    if (detail::forward(m, s, alpha, c) != 0) {
        out.log_likelihood = -std::numeric_limits<double>::infinity();
        return out;
    }
    const std::size_t steps = s.observations.size();
    out.log_likelihood = detail::sum_log(c, steps);
    const auto L = m.initial.size();
    out.state.resize(L, detail::eidx(steps));
    out.transition.assign(steps - 1, Eigen::MatrixXd(L, L));
    Eigen::VectorXd beta = Eigen::VectorXd::Ones(L), w(L);
    for (std::size_t k = steps - 1; k >= 1; --k) {
        const std::size_t a = s.actions[k - 1];
        const auto col = detail::eidx(k);
        out.state.col(col) = alpha.col(col).cwiseProduct(beta);
        w = m.emission(a).col(detail::eidx(s.observations[k])).cwiseProduct(beta) / c[col];
        out.transition[k - 1] = m.transitions[a].cwiseProduct(alpha.col(col - 1) * w.transpose());
        beta = m.transitions[a] * w;
    }
    out.state.col(0) = alpha.col(0).cwiseProduct(beta);
    return out;
}

namespace detail {

/// Σ log P(sequence) in blocks of `block_size` added in index order; once `*stop` reads true
/// (read before every sequence) the blocks end early and `stopped` is set (the sum is then
/// partial).
inline double log_likelihood_in_blocks(const IohmmModel& m, std::span<const ActionObservationSequence> sequences,
                                       std::size_t threads, std::size_t block_size, const std::atomic<bool>* stop,
                                       bool& stopped, const char* where) {
    check_model(m, where);
    if (block_size == 0) throw config_error(detail::message(where, ": the block size must be at least 1, got 0"));
    for (std::size_t n = 0; n < sequences.size(); ++n)
        check_sequence(sequences[n], n, m.num_actions(), m.num_observations(), where, "sequence");
    const std::size_t blocks = block_count(sequences.size(), block_size);
    std::atomic<bool> skipped{false};
    const auto lls = run_parallel(blocks, threads, [&](std::size_t b) {
        return block_log_likelihood(m, sequences, b * block_size, std::min(sequences.size(), (b + 1) * block_size),
                                    stop, &skipped);
    });
    stopped = skipped.load();
    double total = 0.0;
    for (const double v : lls) total += v;
    return total;
}

}  // namespace detail

/// Σ log P(sequence) over the sequences, in blocks of `block_size` added in index order
/// (identical for any thread count); -inf if one is impossible. Throws config_error for a
/// malformed sequence or model shape, model_error for a model that is not a distribution.
[[nodiscard]] inline double iohmm_log_likelihood(const IohmmModel& m,
                                                 std::span<const ActionObservationSequence> sequences,
                                                 std::size_t threads = 1, std::size_t block_size = 32) {
    bool stopped = false;
    return detail::log_likelihood_in_blocks(m, sequences, threads, block_size, nullptr, stopped,
                                            "iohmm_log_likelihood");
}

}  // namespace maxent
