// maxent/belief/learned_model.hpp — belief models learned from action–observation data: an
// input–output hidden Markov model (IOHMM) fitted by expectation–maximisation (Baum–Welch).
//
// The agent's belief model need not be the world's (docs/architecture.md, "the world and the
// agent"): here it is learned from what an agent can record, the actions it took and the
// observations it received, with L latent states chosen by the user. The fitted model
// becomes a FinitePomdp over those L states (`to_finite_pomdp`) that BayesFilter accepts as
// the agent's model while the world stays the real one.
//
// Data. One `ActionObservationSequence` holds the actions a_1..a_K and the observations
// o_1..o_{K+1}, in the layout `maxent::Trajectory` records: o_1 is seen before the first
// action, o_{k+1} on arriving after a_k. `to_sequence(trajectory)` takes one from a
// rollout; `read_sequences_csv` reads a file (format below).
//
// Model (indices z = 0..L-1 for latent states; actions and observations are the world's
// indices 0..A-1, 0..O-1):
//   μ̂(z_1)                   the initial distribution;
//   P̂_a(z' | z)              one L x L matrix per action (rows z, columns z');
//   Ô(o | z')                 one L x O matrix shared by all actions (EmissionModel::shared,
//                             the default; it also emits o_1 from z_1), or
//   Ô_a(o | z'), Ô_1(o | z_1) one L x O matrix per action plus one for the first observation
//                             (EmissionModel::per_action).
//   P(o_1..o_{K+1} | a_1..a_K) = Σ_z μ̂(z_1) Ô_1(o_1 | z_1) Π_k P̂_{a_k}(z_{k+1} | z_k) Ô_{a_k}(o_{k+1} | z_{k+1}).
//
// Fitting (`fit_iohmm`):
//   * E step: scaled forward–backward per sequence (every forward vector is normalised and
//     the log-likelihood is Σ_k log c_k), so no underflow whatever the length; expected
//     counts of the initial state, of the transitions per action and of the emissions.
//     Cost O((K + 1) L²) per sequence (two matrix–vector products and one rank-one update
//     per step).
//   * M step with Dirichlet (add-α) smoothing, α = IohmmOptions::smoothing >= 0: every
//     distribution is (expected counts + α) / (their total + n α). For α > 0 this is the
//     MAP estimate under a Dirichlet(α + 1) prior on each row, and EM never decreases the
//     penalised log-likelihood ℓ(θ) + α Σ log θ (summed over every entry of μ̂ and of every
//     row of P̂, Ô, Ô_1); `IohmmFit::penalized_log_likelihood` records it. For α = 0 it is
//     maximum likelihood and the log-likelihood itself never decreases. A row whose
//     expected counts are all zero (possible only with α = 0: a state never occupied when
//     an action is taken) keeps its previous values (the EM objective does not depend on it).
//   * Restarts: restart r starts from random rows drawn from maxent::stream(seed, r, 0):
//     every entry is an Exp(1) draw -log(1 - u), u = uniform01(g), plus 1e-3, and each row
//     is normalised (a Dirichlet(1) draw kept away from 0); drawn in the order μ̂, P̂_0 ..
//     P̂_{A-1} row by row, Ô (or Ô_0 .. Ô_{A-1}) row by row, then Ô_1 (per_action only).
//     Then, with the same generator, each latent state z = 0..L-1 draws an anchor observation
//     among those seen in the training data, with probability proportional to its count and
//     without replacement while unused ones remain, and its emission rows become
//     (1 - w) row + w one-hot(anchor), w = IohmmOptions::anchor_weight (default 0.5; 0 keeps
//     the plain random rows). Why: with informative observations, plain random emissions
//     leave EM in poor local optima (the 6 x 6 four rooms with L = 36: -0.245 nats per
//     observation after 600 iterations, against -0.132 from anchored starts in 25, the true
//     model scoring -0.134; bench/bench_learned_model.cpp). The restart with the highest
//     final training log-likelihood is kept (the lowest index on ties).
//   * Stopping: after computing ℓ(θ_i), when i >= 1 and |ℓ(θ_i) - ℓ(θ_{i-1})| <= tolerance ·
//     |ℓ(θ_{i-1})|, or when i = max_iterations. The returned parameters are θ_i, whose ℓ is
//     the last entry of the history: the history has iterations + 1 entries (θ_0 is the
//     random start).
//   * Held-out sequences, if given, are scored (forward pass only) for every θ_i of every
//     restart; the chosen restart's values are reported.
//   * Threads: the sequences are split into blocks of IohmmOptions::block_size consecutive
//     sequences (independent of the thread count); each block's expected counts and
//     log-likelihood are computed by one job of run_parallel (core/parallel.hpp), and the
//     blocks are added in index order, so the results are identical (==) for any number of
//     threads. (They may differ in the last bits for another block_size.)
//
// Zero probabilities. With α > 0 every parameter is positive, so every sequence has a positive
// probability. With α = 0 an EM step never lowers the training log-likelihood, so the training
// sequences keep a positive probability (they have one under the random start); should one
// still get probability 0 (the forward normaliser c_k underflowing to 0), `fit_iohmm` throws
// numeric_error naming the sequence, its step, the restart and the iteration. A held-out
// sequence of probability 0 (an observation never seen in training, with α = 0) is not an
// error: its log-likelihood, and the held-out total, are -infinity. Nothing returns NaN.
//
// CSV format (`read_sequences_csv`): a header line `sequence,step,action,observation`, then
// one row per step k = 1..K+1 of each sequence: its id (any text without commas, at least one
// character), k, the action a_k (empty on the last step K+1, which has no action) and the
// observation o_k. Actions and observations are non-negative decimal integers (the world's
// indices). The rows of one sequence are contiguous, with steps 1, 2, 3, ...; a sequence ends
// with its row whose action is empty; an id cannot come back after its sequence has ended.
// Spaces and tabs around fields are ignored, as are blank lines and a trailing '\r'. Every
// error is a parse_error "source:line:column: ..." naming the field and the value.
//
// Errors (all derived from maxent::error, messages naming the value): config_error for
// L = 0, A = 0 or O = 0, a negative or non-finite smoothing or tolerance, an anchor weight
// outside [0, 1], zero restarts or
// block size, an empty set of training sequences, a sequence without observations or whose
// number of observations is not its number of actions + 1, an action or observation outside
// [0, A) or [0, O) (naming the sequence, its id and the step); numeric_error as above;
// parse_error from the CSV reader; model_error from to_finite_pomdp for parameters that are
// not distributions.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace maxent {

// ---------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------

/// One recorded sequence: actions a_1..a_K and observations o_1..o_{K+1} (Trajectory's layout).
struct ActionObservationSequence {
    std::vector<std::size_t> actions;       ///< a_1 .. a_K
    std::vector<std::size_t> observations;  ///< o_1 .. o_{K+1}
    std::string id;                         ///< optional name, used in messages (the CSV's sequence column)

    friend bool operator==(const ActionObservationSequence&, const ActionObservationSequence&) = default;
};

/// The actions and observations of a rollout (its true states, beliefs, ... are not used).
/// Throws config_error when the trajectory does not hold one more observation than actions.
[[nodiscard]] inline ActionObservationSequence to_sequence(const Trajectory& t, std::string id = {}) {
    if (t.observations.size() != t.actions.size() + 1)
        throw config_error(detail::message("to_sequence: the trajectory has ", t.actions.size(), " actions and ",
                                           t.observations.size(),
                                           " observations; it needs one more observation than actions"));
    return {t.actions, t.observations, std::move(id)};
}

namespace detail {

/// [begin, end) of s without the spaces and tabs around it.
inline std::string_view trim_blanks(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
    return s.substr(b, e - b);
}

}  // namespace detail

/// Reads sequences in the CSV format described at the top of this header. `source` names the
/// input in messages ("source:line:column: ..."). Throws parse_error.
[[nodiscard]] inline std::vector<ActionObservationSequence> read_sequences_csv(std::istream& in,
                                                                               const std::string& source = "<csv>") {
    static constexpr const char* field_names[4] = {"sequence", "step", "action", "observation"};
    std::vector<ActionObservationSequence> out;
    std::unordered_map<std::string, std::size_t> seen;  // id -> line of its first row
    bool header = false;
    bool open = false;  // the last sequence still expects rows (no empty action yet)
    std::size_t open_last_line = 0;
    std::string line;
    std::size_t line_number = 0;
    auto fail = [&](std::size_t ln, std::size_t column, const std::string& what) {
        throw parse_error(detail::message(source, ":", ln, ":", column, ": ", what));
    };
    while (std::getline(in, line)) {
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (detail::trim_blanks(line).empty()) continue;
        // Split into fields, remembering the 1-based column where each begins.
        std::vector<std::string_view> fields;
        std::vector<std::size_t> columns;
        const std::string_view text(line);
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = text.find(',', start);
            const std::string_view raw = text.substr(start, comma == std::string_view::npos ? text.size() - start
                                                                                             : comma - start);
            std::size_t lead = 0;
            while (lead < raw.size() && (raw[lead] == ' ' || raw[lead] == '\t')) ++lead;
            fields.push_back(detail::trim_blanks(raw));
            columns.push_back(start + lead + 1);
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        if (fields.size() != 4)
            fail(line_number, 1,
                 detail::message("expected 4 fields (sequence,step,action,observation), got ", fields.size()));
        if (!header) {
            for (std::size_t f = 0; f < 4; ++f)
                if (fields[f] != field_names[f])
                    fail(line_number, columns[f],
                         detail::message("the header must be 'sequence,step,action,observation'; field ", f + 1,
                                         " is '", fields[f], "', expected '", field_names[f], "'"));
            header = true;
            continue;
        }
        auto number = [&](std::size_t f) {
            const std::string_view v = fields[f];
            std::size_t value = 0;
            const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
            if (v.empty() || ec != std::errc{} || ptr != v.data() + v.size())
                fail(line_number, columns[f],
                     detail::message("field '", field_names[f], "': '", v, "' is not a non-negative integer",
                                     ec == std::errc::result_out_of_range ? " (too large)" : ""));
            return value;
        };
        const std::string id(fields[0]);
        if (id.empty()) fail(line_number, columns[0], "field 'sequence' is empty (a sequence needs an id)");
        const std::size_t step = number(1);
        const bool continues = open && out.back().id == id;
        if (!continues) {
            if (open)
                fail(line_number, columns[0],
                     detail::message("sequence '", out.back().id, "' (last row at line ", open_last_line,
                                     ") ends without a row whose action is empty; now sequence '", id, "' begins"));
            if (const auto it = seen.find(id); it != seen.end())
                fail(line_number, columns[0],
                     detail::message("sequence '", id, "' appears again; its rows began at line ", it->second,
                                     " and it has ended (the rows of a sequence must be contiguous)"));
            seen.emplace(id, line_number);
            out.push_back({{}, {}, id});
            open = true;
        }
        ActionObservationSequence& s = out.back();
        const std::size_t expected = s.observations.size() + 1;
        if (step != expected)
            fail(line_number, columns[1],
                 detail::message("field 'step': '", fields[1], "' in sequence '", id, "', expected ", expected,
                                 " (steps count 1, 2, 3, ... within a sequence)"));
        const bool last = fields[2].empty();
        if (!last) s.actions.push_back(number(2));
        s.observations.push_back(number(3));
        open = !last;
        open_last_line = line_number;
    }
    if (in.bad()) throw parse_error(detail::message(source, ":", line_number, ":0: reading failed"));
    if (!header) throw parse_error(detail::message(source, ":", line_number + 1, ":1: no header line "
                                                                                    "'sequence,step,action,observation'"));
    if (open)
        throw parse_error(detail::message(source, ":", open_last_line, ":1: sequence '", out.back().id,
                                          "' ends at the end of the input without a row whose action is empty"));
    return out;
}

/// read_sequences_csv on a file; parse_error if it cannot be opened or read.
[[nodiscard]] inline std::vector<ActionObservationSequence> read_sequences_csv_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw parse_error(detail::message(path, ":0:0: cannot open the file for reading"));
    return read_sequences_csv(in, path);
}

/// Writes sequences in the CSV format read_sequences_csv reads (ids: the sequence's id, or
/// its index when the id is empty; ids must not contain commas or newlines).
inline void write_sequences_csv(std::ostream& out, std::span<const ActionObservationSequence> sequences) {
    out << "sequence,step,action,observation\n";
    for (std::size_t n = 0; n < sequences.size(); ++n) {
        const auto& s = sequences[n];
        const std::string id = s.id.empty() ? std::to_string(n) : s.id;
        for (std::size_t k = 0; k < s.observations.size(); ++k) {
            out << id << ',' << k + 1 << ',';
            if (k < s.actions.size()) out << s.actions[k];
            out << ',' << s.observations[k] << '\n';
        }
    }
}

// ---------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------

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

struct IohmmOptions {
    std::size_t latent_states = 0;     ///< L >= 1
    std::size_t num_actions = 0;       ///< A >= 1: the world's actions (data outside [0, A) is an error)
    std::size_t num_observations = 0;  ///< O >= 1: the world's observations
    EmissionModel emission = EmissionModel::shared;
    double smoothing = 1e-3;           ///< α >= 0 (finite): added to every expected count
    std::size_t restarts = 3;          ///< random starts (>= 1); the best final log-likelihood wins
    double anchor_weight = 0.5;        ///< w in [0, 1]: weight of each latent state's anchor observation in
                                       ///< its initial emission rows (0 = plain random rows; see the header)
    std::size_t max_iterations = 200;  ///< M steps per restart at most
    double tolerance = 1e-6;           ///< stop when the relative change of ℓ is at most this
    std::uint64_t seed = 0;            ///< restart r starts from maxent::stream(seed, r, 0)
    std::size_t threads = 1;           ///< worker threads (0 = all hardware threads); results do not depend on it
    std::size_t block_size = 32;       ///< sequences per block of work (the results depend on it, not on threads)
};

struct IohmmFit {
    IohmmModel model;                            ///< θ_n of the chosen restart
    std::vector<double> log_likelihood;          ///< ℓ(θ_0) .. ℓ(θ_n) on the training sequences (chosen restart)
    std::vector<double> penalized_log_likelihood;  ///< ℓ(θ_i) + α Σ log θ_i (= ℓ for α = 0): never decreases
    std::vector<double> heldout_log_likelihood;  ///< ℓ of the held-out sequences under θ_0 .. θ_n (empty if none)
    std::vector<double> restart_log_likelihood;  ///< final training ℓ of every restart
    std::vector<std::size_t> restart_iterations; ///< M steps run by every restart
    std::size_t restart = 0;                     ///< the restart chosen
    std::size_t iterations = 0;                  ///< n: the M steps run by the chosen restart
    bool converged = false;                      ///< stopped by the tolerance rather than max_iterations

    [[nodiscard]] double final_log_likelihood() const { return log_likelihood.back(); }
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

/// Expected counts of one block of sequences (before the transitions are multiplied by P̂).
struct IohmmCounts {
    Eigen::VectorXd initial;                // Σ γ_1
    std::vector<Eigen::MatrixXd> outer;     // per action: Σ_k α̂_k w_kᵀ; times P̂_a entrywise = expected transitions
    std::vector<Eigen::MatrixXd> emission;  // per emission slot: L x O expected emissions (shared: with o_1)
    Eigen::MatrixXd initial_emission;       // per_action only: L x O expected o_1 emissions
    double log_likelihood = 0.0;

    IohmmCounts(const IohmmModel& m, bool per_action) {
        const auto L = m.initial.size();
        const auto O = eidx(m.num_observations());
        initial = Eigen::VectorXd::Zero(L);
        outer.assign(m.transitions.size(), Eigen::MatrixXd::Zero(L, L));
        emission.assign(m.emissions.size(), Eigen::MatrixXd::Zero(L, O));
        if (per_action) initial_emission = Eigen::MatrixXd::Zero(L, O);
    }
    void add(const IohmmCounts& o) {
        initial += o.initial;
        for (std::size_t a = 0; a < outer.size(); ++a) outer[a] += o.outer[a];
        for (std::size_t k = 0; k < emission.size(); ++k) emission[k] += o.emission[k];
        if (initial_emission.size() > 0) initial_emission += o.initial_emission;
        log_likelihood += o.log_likelihood;
    }
};

/// Where a training sequence became impossible (thrown after the parallel section).
struct ImpossibleSequence {
    std::size_t sequence = 0;
    std::size_t step = 0;
};

/// The E step on sequences [begin, end): expected counts and log-likelihood. Returns the
/// first impossible sequence through `bad` (and the counts so far) when one is found.
inline IohmmCounts expected_counts(const IohmmModel& m, std::span<const ActionObservationSequence> data,
                                   std::size_t begin, std::size_t end, bool per_action, ImpossibleSequence& bad) {
    IohmmCounts counts(m, per_action);
    Eigen::MatrixXd alpha;
    Eigen::VectorXd c, beta, w, gamma;
    const auto L = m.initial.size();
    beta.resize(L);
    w.resize(L);
    gamma.resize(L);
    Eigen::MatrixXd& first_emission = per_action ? counts.initial_emission : counts.emission[0];
    for (std::size_t n = begin; n < end; ++n) {
        const ActionObservationSequence& s = data[n];
        const std::size_t steps = s.observations.size();
        if (const std::size_t failed = forward(m, s, alpha, c); failed != 0) {
            bad = {n, failed};
            return counts;
        }
        counts.log_likelihood += sum_log(c, steps);
        beta.setOnes();
        for (std::size_t k = steps - 1; k >= 1; --k) {
            const std::size_t a = s.actions[k - 1];
            const auto o = eidx(s.observations[k]);
            const auto col = eidx(k);
            gamma = alpha.col(col).cwiseProduct(beta);  // P(z_{k+1} | all)
            counts.emission[per_action ? a : 0].col(o) += gamma;
            w = m.emission(a).col(o).cwiseProduct(beta) / c[col];
            counts.outer[a].noalias() += alpha.col(col - 1) * w.transpose();
            beta.noalias() = m.transitions[a] * w;
        }
        gamma = alpha.col(0).cwiseProduct(beta);
        counts.initial += gamma;
        first_emission.col(eidx(s.observations[0])) += gamma;
    }
    return counts;
}

/// Log-likelihood of sequences [begin, end) (forward passes); -inf if one is impossible.
inline double block_log_likelihood(const IohmmModel& m, std::span<const ActionObservationSequence> data,
                                   std::size_t begin, std::size_t end) {
    Eigen::MatrixXd alpha;
    Eigen::VectorXd c;
    double ll = 0.0;
    for (std::size_t n = begin; n < end; ++n) {
        if (forward(m, data[n], alpha, c) != 0) return -std::numeric_limits<double>::infinity();
        ll += sum_log(c, data[n].observations.size());
    }
    return ll;
}

inline std::size_t block_count(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

/// row <- (counts + α) / total, unless the total is 0 (then the row is kept).
template <class Row, class Counts>
void smoothed_row(Row&& row, const Counts& counts, double alpha) {
    const double total = counts.sum() + alpha * static_cast<double>(counts.size());
    if (!(total > 0.0)) return;
    row = ((counts.array() + alpha) / total).matrix();
}

/// α Σ log θ over every distribution of the model (0 for α = 0).
inline double log_prior(const IohmmModel& m, double alpha) {
    if (alpha == 0.0) return 0.0;
    double sum = m.initial.array().log().sum();
    for (const auto& P : m.transitions) sum += P.array().log().sum();
    for (const auto& E : m.emissions) sum += E.array().log().sum();
    if (m.emission_model == EmissionModel::per_action) sum += m.initial_emission.array().log().sum();
    return alpha * sum;
}

/// A random row: Exp(1) + 1e-3 entries, normalised (see the header's comment).
template <class Row, class G>
void random_row(Row&& row, G& g) {
    double total = 0.0;
    for (Eigen::Index j = 0; j < row.size(); ++j) {
        const double v = -std::log(1.0 - uniform01(g)) + 1e-3;
        row[j] = v;
        total += v;
    }
    row /= total;
}

template <class G>
IohmmModel random_model(std::size_t L, std::size_t A, std::size_t O, EmissionModel emission, G& g) {
    IohmmModel m;
    m.emission_model = emission;
    const auto l = eidx(L), o = eidx(O);
    m.initial.resize(l);
    random_row(m.initial, g);
    m.transitions.assign(A, Eigen::MatrixXd(l, l));
    for (auto& P : m.transitions)
        for (Eigen::Index z = 0; z < l; ++z) random_row(P.row(z), g);
    m.emissions.assign(emission == EmissionModel::shared ? 1 : A, Eigen::MatrixXd(l, o));
    for (auto& E : m.emissions)
        for (Eigen::Index z = 0; z < l; ++z) random_row(E.row(z), g);
    if (emission == EmissionModel::shared) {
        m.initial_emission = m.emissions[0];
    } else {
        m.initial_emission.resize(l, o);
        for (Eigen::Index z = 0; z < l; ++z) random_row(m.initial_emission.row(z), g);
    }
    return m;
}

/// Anchors the emission rows of a random start: latent state z gets an anchor observation,
/// drawn from the observations seen in `data` with probability proportional to their counts,
/// without replacement while unused ones remain (then afresh from all of them), and its
/// emission rows (every slot, and Ô_1) become (1 - w) row + w one-hot(anchor).
template <class G>
void anchor_emissions(IohmmModel& m, std::span<const ActionObservationSequence> data, double w, G& g) {
    if (w == 0.0) return;
    const std::size_t O = m.num_observations(), L = m.num_latent_states();
    std::vector<double> counts(O, 0.0);
    for (const auto& s : data)
        for (const std::size_t o : s.observations) counts[o] += 1.0;
    std::vector<double> left = counts;
    for (std::size_t z = 0; z < L; ++z) {
        double total = 0.0;
        for (const double c : left) total += c;
        if (!(total > 0.0)) {
            left = counts;
            for (const double c : left) total += c;
        }
        const double u = uniform01(g) * total;
        double cumulative = 0.0;
        std::size_t anchor = O;
        for (std::size_t o = 0; o < O; ++o) {
            if (left[o] == 0.0) continue;
            anchor = o;  // the last observation with weight, should rounding leave u beyond the total
            cumulative += left[o];
            if (u < cumulative) break;
        }
        left[anchor] = 0.0;
        const auto zi = eidx(z), oi = eidx(anchor);
        for (auto& E : m.emissions) {
            E.row(zi) *= 1.0 - w;
            E(zi, oi) += w;
        }
        if (m.emission_model == EmissionModel::per_action) {
            m.initial_emission.row(zi) *= 1.0 - w;
            m.initial_emission(zi, oi) += w;
        }
    }
    if (m.emission_model == EmissionModel::shared) m.initial_emission = m.emissions[0];
}

/// The M step: m <- the smoothed normalised expected counts (see the header's comment).
inline void maximise(const IohmmCounts& t, double alpha, IohmmModel& m) {
    smoothed_row(m.initial, t.initial, alpha);
    Eigen::MatrixXd xi;
    for (std::size_t a = 0; a < m.transitions.size(); ++a) {
        xi = m.transitions[a].cwiseProduct(t.outer[a]);
        for (Eigen::Index z = 0; z < xi.rows(); ++z) smoothed_row(m.transitions[a].row(z), xi.row(z), alpha);
    }
    for (std::size_t k = 0; k < m.emissions.size(); ++k)
        for (Eigen::Index z = 0; z < t.emission[k].rows(); ++z)
            smoothed_row(m.emissions[k].row(z), t.emission[k].row(z), alpha);
    if (t.initial_emission.size() > 0) {
        for (Eigen::Index z = 0; z < t.initial_emission.rows(); ++z)
            smoothed_row(m.initial_emission.row(z), t.initial_emission.row(z), alpha);
    } else {
        m.initial_emission = m.emissions[0];
    }
}

}  // namespace detail

/// Forward–backward on one sequence: its log-likelihood and the posteriors of the latent
/// states and of consecutive pairs. Throws config_error for a malformed sequence or model
/// shape; an impossible sequence gives log_likelihood = -inf and empty posteriors.
[[nodiscard]] inline IohmmPosteriors iohmm_posteriors(const IohmmModel& m, const ActionObservationSequence& s) {
    detail::check_model_shape(m, "iohmm_posteriors");
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

/// Σ log P(sequence) over the sequences, in blocks of `block_size` added in index order
/// (identical for any thread count); -inf if one is impossible. Throws config_error for a
/// malformed sequence or model shape.
[[nodiscard]] inline double iohmm_log_likelihood(const IohmmModel& m,
                                                 std::span<const ActionObservationSequence> sequences,
                                                 std::size_t threads = 1, std::size_t block_size = 32) {
    detail::check_model_shape(m, "iohmm_log_likelihood");
    if (block_size == 0) throw config_error("iohmm_log_likelihood: the block size must be at least 1, got 0");
    for (std::size_t n = 0; n < sequences.size(); ++n)
        detail::check_sequence(sequences[n], n, m.num_actions(), m.num_observations(), "iohmm_log_likelihood",
                               "sequence");
    const std::size_t blocks = detail::block_count(sequences.size(), block_size);
    const auto lls = run_parallel(blocks, threads, [&](std::size_t b) {
        return detail::block_log_likelihood(m, sequences, b * block_size,
                                            std::min(sequences.size(), (b + 1) * block_size));
    });
    double total = 0.0;
    for (const double v : lls) total += v;
    return total;
}

namespace detail {

/// Checks the options (except the model size) and the sequences; config_error naming the value.
inline void check_fit_inputs(std::span<const ActionObservationSequence> train, const IohmmOptions& options,
                             std::span<const ActionObservationSequence> heldout, const char* where) {
    const std::size_t A = options.num_actions, O = options.num_observations;
    if (A == 0) throw config_error(detail::message(where, ": the number of actions must be at least 1, got 0"));
    if (O == 0) throw config_error(detail::message(where, ": the number of observations must be at least 1, got 0"));
    if (!std::isfinite(options.smoothing) || !(options.smoothing >= 0.0))
        throw config_error(detail::message(where, ": the smoothing α must be finite and >= 0, got ",
                                           options.smoothing));
    if (!std::isfinite(options.tolerance) || !(options.tolerance >= 0.0))
        throw config_error(detail::message(where, ": the tolerance must be finite and >= 0, got ",
                                           options.tolerance));
    if (options.block_size == 0) throw config_error(detail::message(where, ": the block size must be at least 1, got 0"));
    if (train.empty()) throw config_error(detail::message(where, ": no training sequences (the set is empty)"));
    for (std::size_t n = 0; n < train.size(); ++n)
        detail::check_sequence(train[n], n, A, O, where, "training sequence");
    for (std::size_t n = 0; n < heldout.size(); ++n)
        detail::check_sequence(heldout[n], n, A, O, where, "held-out sequence");
}

/// EM from the start `m` until the tolerance or options.max_iterations; `r` is the restart's
/// index, only for messages and IohmmFit::restart.
inline IohmmFit run_em(IohmmModel m, std::span<const ActionObservationSequence> train, const IohmmOptions& options,
                       std::span<const ActionObservationSequence> heldout, std::size_t r, const char* where) {
    const bool per_action = options.emission == EmissionModel::per_action;
    const double alpha = options.smoothing;
    const std::size_t block = options.block_size;
    const std::size_t train_blocks = detail::block_count(train.size(), block);
    const std::size_t heldout_blocks = detail::block_count(heldout.size(), block);
    IohmmFit fit;
    fit.restart = r;
    for (std::size_t it = 0;; ++it) {
        // E step over the blocks, added in index order.
        std::vector<detail::ImpossibleSequence> bad(train_blocks);
        std::vector<detail::IohmmCounts> parts = run_parallel(train_blocks, options.threads, [&](std::size_t b) {
            return detail::expected_counts(m, train, b * block, std::min(train.size(), (b + 1) * block), per_action,
                                           bad[b]);
        });
        for (const auto& x : bad)
            if (x.step != 0) {
                const auto& s = train[x.sequence];
                throw numeric_error(detail::message(
                    where, ": training sequence ", x.sequence,
                    s.id.empty() ? std::string() : detail::message(" ('", s.id, "')"),
                    " has probability 0 under the model at step ", x.step, " (restart ", r, ", iteration ", it,
                    "; with smoothing α = 0 the forward normaliser underflowed or a parameter reached 0; "
                    "use α > 0)"));
            }
        detail::IohmmCounts total = std::move(parts[0]);
        for (std::size_t b = 1; b < parts.size(); ++b) total.add(parts[b]);
        const double ll = total.log_likelihood;
        fit.log_likelihood.push_back(ll);
        fit.penalized_log_likelihood.push_back(ll + detail::log_prior(m, alpha));
        if (!heldout.empty()) {
            const auto lls = run_parallel(heldout_blocks, options.threads, [&](std::size_t b) {
                return detail::block_log_likelihood(m, heldout, b * block, std::min(heldout.size(), (b + 1) * block));
            });
            double h = 0.0;
            for (const double v : lls) h += v;
            fit.heldout_log_likelihood.push_back(h);
        }
        if (it >= 1) {
            const double previous = fit.log_likelihood[it - 1];
            if (std::abs(ll - previous) <= options.tolerance * std::abs(previous)) {
                fit.converged = true;
                break;
            }
        }
        if (it == options.max_iterations) break;
        detail::maximise(total, alpha, m);
        fit.iterations = it + 1;
    }
    fit.model = std::move(m);
    fit.restart_log_likelihood.push_back(fit.log_likelihood.back());
    fit.restart_iterations.push_back(fit.iterations);
    return fit;
}

}  // namespace detail

/// Fits an IOHMM with L = options.latent_states latent states to the training sequences by
/// EM with random restarts (see the header's comment); held-out sequences are only scored.
[[nodiscard]] inline IohmmFit fit_iohmm(std::span<const ActionObservationSequence> train, const IohmmOptions& options,
                                        std::span<const ActionObservationSequence> heldout = {}) {
    constexpr const char* where = "fit_iohmm";
    const std::size_t L = options.latent_states;
    if (L == 0) throw config_error("fit_iohmm: the number of latent states L must be at least 1, got 0");
    if (options.restarts == 0) throw config_error("fit_iohmm: the number of restarts must be at least 1, got 0");
    if (!(options.anchor_weight >= 0.0 && options.anchor_weight <= 1.0))
        throw config_error(detail::message("fit_iohmm: the anchor weight must be in [0, 1], got ",
                                           options.anchor_weight));
    detail::check_fit_inputs(train, options, heldout, where);

    IohmmFit best;
    bool have_best = false;
    for (std::size_t r = 0; r < options.restarts; ++r) {
        DefaultRng g = stream(options.seed, r, 0);
        IohmmModel m = detail::random_model(L, options.num_actions, options.num_observations, options.emission, g);
        detail::anchor_emissions(m, train, options.anchor_weight, g);
        IohmmFit fit = detail::run_em(std::move(m), train, options, heldout, r, where);
        best.restart_log_likelihood.push_back(fit.log_likelihood.back());
        best.restart_iterations.push_back(fit.iterations);
        if (!have_best || fit.log_likelihood.back() > best.log_likelihood.back()) {
            auto restarts = std::move(best.restart_log_likelihood);
            auto iterations = std::move(best.restart_iterations);
            best = std::move(fit);
            best.restart_log_likelihood = std::move(restarts);
            best.restart_iterations = std::move(iterations);
            have_best = true;
        }
    }
    return best;
}

/// Warm-started EM: continues from `start` (one run, no random restart, so latent state z of
/// the result is still the state z of `start` — what keeps a policy over the latent states
/// meaningful across refits). Uses options.num_actions, num_observations, smoothing,
/// max_iterations, tolerance, threads and block_size; latent_states, emission, restarts,
/// anchor_weight and seed are taken from `start` or unused. The history starts with ℓ(start).
/// Throws config_error when `start` does not have the options' sizes or is malformed, or for
/// the inputs fit_iohmm refuses; numeric_error as fit_iohmm (with α = 0 only).
[[nodiscard]] inline IohmmFit refit_iohmm(const IohmmModel& start, std::span<const ActionObservationSequence> train,
                                          const IohmmOptions& options,
                                          std::span<const ActionObservationSequence> heldout = {}) {
    constexpr const char* where = "refit_iohmm";
    detail::check_model_shape(start, where);
    detail::check_fit_inputs(train, options, heldout, where);
    if (start.num_actions() != options.num_actions || start.num_observations() != options.num_observations)
        throw config_error(detail::message(where, ": the start model has ", start.num_actions(), " actions and ",
                                           start.num_observations(), " observations; the options say ",
                                           options.num_actions, " and ", options.num_observations));
    IohmmOptions o = options;
    o.emission = start.emission_model;
    return detail::run_em(start, train, o, heldout, 0, where);
}

/// The learned model as the agent's FinitePomdp over its L latent states: state labels
/// 0..L-1, action and observation labels 0..A-1 and 0..O-1 (so indices agree with the
/// world's), the given horizon. Rows are renormalised (divided by their sums) before
/// FinitePomdp validates them (tolerance 1e-9); with per-action emissions, Ô_1 becomes the
/// distribution of the first observation (set_initial_observation). Use it as the agent's
/// belief model: `maxent::BayesFilter(pomdp)` (uniform prior b_1, as the paper) or
/// `maxent::BayesFilter(pomdp, pomdp.initial_distribution())` (the learned μ̂). Throws
/// config_error for inconsistent sizes, model_error for entries that are not probabilities
/// (negative, non-finite, or a row summing to 0), and for horizon 0.
[[nodiscard]] inline FinitePomdp<std::size_t, std::size_t, std::size_t> to_finite_pomdp(const IohmmModel& m,
                                                                                        std::size_t horizon) {
    detail::check_model_shape(m, "to_finite_pomdp");
    const std::size_t L = m.num_latent_states(), A = m.num_actions(), O = m.num_observations();
    auto iota = [](std::size_t n) {
        std::vector<std::size_t> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = i;
        return v;
    };
    auto normalised = [](Eigen::MatrixXd x) {
        for (Eigen::Index r = 0; r < x.rows(); ++r) {
            const double s = x.row(r).sum();
            if (s > 0.0 && std::isfinite(s)) x.row(r) /= s;  // else left for FinitePomdp to report
        }
        return x;
    };
    std::vector<Eigen::MatrixXd> P, E;
    for (const auto& x : m.transitions) P.push_back(normalised(x));
    for (const auto& x : m.emissions) E.push_back(normalised(x));
    Eigen::VectorXd mu = m.initial;
    if (const double s = mu.sum(); s > 0.0 && std::isfinite(s)) mu /= s;
    FinitePomdp<std::size_t, std::size_t, std::size_t> out(iota(L), iota(A), iota(O), P, E, std::move(mu), horizon);
    if (m.emission_model == EmissionModel::per_action)
        out.set_initial_observation(to_sparse(normalised(m.initial_emission)));
    return out;
}

/// The IOHMM parameters of a finite model (latent state z = the model's state index): for
/// scoring data under the true model, e.g. to compare a learned model's held-out
/// log-likelihood with the truth's. Emissions are shared when the model's observations do not
/// depend on the action and o_1 is drawn from the same matrix, per action otherwise (with the
/// model's initial observation matrix as Ô_1).
template <class State, class Action, class Observation>
[[nodiscard]] IohmmModel to_iohmm(const FinitePomdp<State, Action, Observation>& m) {
    IohmmModel out;
    const std::size_t A = m.num_actions();
    const bool shared = !m.observation_depends_on_action() &&
                        Eigen::MatrixXd(m.initial_observation_matrix()) == Eigen::MatrixXd(m.observation_matrix(0));
    out.emission_model = shared ? EmissionModel::shared : EmissionModel::per_action;
    out.initial = m.initial_distribution();
    for (std::size_t a = 0; a < A; ++a) out.transitions.push_back(Eigen::MatrixXd(m.transition_matrix(a)));
    if (out.emission_model == EmissionModel::shared) {
        out.emissions.push_back(Eigen::MatrixXd(m.observation_matrix(0)));
    } else {
        for (std::size_t a = 0; a < A; ++a) out.emissions.push_back(Eigen::MatrixXd(m.observation_matrix(a)));
    }
    out.initial_emission = Eigen::MatrixXd(m.initial_observation_matrix());
    return out;
}

}  // namespace maxent
