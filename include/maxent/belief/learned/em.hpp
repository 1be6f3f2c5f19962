// maxent/belief/learned/em.hpp — fitting an IOHMM (iohmm.hpp) to action–observation
// sequences by expectation–maximisation (Baum–Welch), with random restarts.
//
//   * E step: forward–backward per sequence; expected counts of the initial state, of the
//     transitions per action and of the emissions.
//   * M step: every row is (expected counts + α) / (their total + n α), α =
//     IohmmOptions::smoothing >= 0: MAP under a Dirichlet(α + 1) prior (EM never decreases
//     ℓ(θ) + α Σ log θ, `IohmmFit::penalized_log_likelihood`), maximum likelihood for α = 0
//     (a row without counts then keeps its values). IohmmOptions::fixed blocks are held bit
//     for bit; IohmmOptions::prior gives each block a Dirichlet(c) instead, c < 1 by the exact
//     MAP row over entries >= a floor (IohmmBlocks, IohmmPrior say what each assumes).
//   * Restarts: restart r starts from maxent::stream(seed, r, 0) (detail::random_model and
//     detail::anchor_emissions), restart 0 from the data's moments with IohmmOptions::spectral
//     (spectral.hpp); the highest final training ℓ wins (the lowest index on ties).
//   * Stopping: when i >= 1 and |ℓ(θ_i) - ℓ(θ_{i-1})| <= tolerance · |ℓ(θ_{i-1})|, or at
//     i = max_iterations; the history has iterations + 1 entries. IohmmOptions::stop, read
//     before every M step and restart, ends a fit early (IohmmFit::stopped).
//   * Threads: blocks of block_size sequences, added in index order: identical for any count.
// Errors name the value: config_error for sizes or counts of 0, a smoothing, tolerance, anchor
// weight, prior concentration or floor out of range (a floor below min_iohmm_prior_floor
// would underflow), a given block of the wrong shape, no training data, a malformed sequence;
// budget_error when L (with A, O and the blocks) needs more than max_buffer_bytes, before
// anything is allocated; model_error for a start or given block that is not a
// distribution; numeric_error when a training sequence gets probability 0.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/learned/defaults.hpp"
#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

/// The largest smoothing α accepted: sums of α over a row stay finite (and far below that
/// every row is uniform in double precision anyway).
inline constexpr double max_iohmm_smoothing = 1e100;

/// Values for some parameter blocks of an IOHMM (the others: not given). Used to hold blocks
/// fixed (IohmmOptions::fixed) or to start EM from them (IohmmOptions::start).
struct IohmmBlocks {
    std::optional<Eigen::VectorXd> initial;                   ///< μ̂ (L entries)
    std::vector<std::optional<Eigen::MatrixXd>> transitions;  ///< empty, or A entries: P̂_a (L x L) or none
    std::vector<std::optional<Eigen::MatrixXd>> emissions;    ///< empty, or one per emission slot (1 shared, A
                                                              ///< per action): Ô (L x O) or none
    std::optional<Eigen::MatrixXd> initial_emission;          ///< Ô_1 (L x O); per-action emissions only

    [[nodiscard]] bool empty() const {
        auto none = [](const auto& v) {
            for (const auto& x : v)
                if (x) return false;
            return true;
        };
        return !initial && none(transitions) && none(emissions) && !initial_emission;
    }
};

/// The blocks an agent that knows how its actions move it (odometry) would hold fixed: every
/// P̂_a of `m` (e.g. to_iohmm(world) with L = S: the latent states are then the world's states,
/// and EM learns the sensor).
[[nodiscard]] inline IohmmBlocks known_motion(const IohmmModel& m) {
    IohmmBlocks b;
    for (const auto& P : m.transitions) b.transitions.emplace_back(P);
    return b;
}

/// The blocks an agent that knows its sensor would hold fixed: every emission matrix of `m`
/// (and Ô_1 with per-action emissions); EM learns the dynamics.
[[nodiscard]] inline IohmmBlocks known_sensor(const IohmmModel& m) {
    IohmmBlocks b;
    for (const auto& E : m.emissions) b.emissions.emplace_back(E);
    if (m.emission_model == EmissionModel::per_action) b.initial_emission = m.initial_emission;
    return b;
}

/// A symmetric Dirichlet(c) prior on every row of a block, by block; an unset block uses the
/// smoothing α (c = α + 1). c < 1 favours sparse, near-deterministic rows (a structural
/// prior: "each action leads to few places", assuming nothing else of the agent). M step:
/// for c >= 1 the MAP row (counts + c - 1) / total. For c < 1 the MAP over the simplex is
/// unbounded at its faces (a zero entry has prior density +inf), so, as MAP-with-sparsity
/// usually does, rows are kept at least `floor`: the M step maximises Σ_j (n_j + c - 1) log θ_j
/// over {θ_j >= floor} exactly (entries with n_j + c - 1 <= 0 at the floor, the others
/// water-filled ∝ n_j + c - 1; no positive weight: the largest takes the rest), so the MAP
/// objective never decreases and no probability is 0 (the agent's filter can update on
/// every observation).
struct IohmmPrior {
    std::optional<double> initial;      ///< c of μ̂
    std::optional<double> transitions;  ///< c of every row of every P̂_a
    std::optional<double> emissions;    ///< c of every row of every Ô (and Ô_1)
    double floor = 1e-8;                ///< least entry of a row of a block with c < 1; in
                                        ///< [min_iohmm_prior_floor, 1/row length)
};

/// The least IohmmPrior::floor accepted (with a concentration below 1): 2^-511, so the product
/// of two floored probabilities (a transition and an emission) is still a normal double.
inline constexpr double min_iohmm_prior_floor = 0x1p-511;

/// What fit_iohmm (and, in part, refit_iohmm) is asked to do.
struct IohmmOptions {
    std::size_t latent_states = 0;     ///< L >= 1
    std::size_t num_actions = 0;       ///< A >= 1: the world's actions (data outside [0, A) is an error)
    std::size_t num_observations = 0;  ///< O >= 1: the world's observations
    EmissionModel emission = EmissionModel::shared;
    double smoothing = learned_belief_defaults.smoothing;  ///< α in [0, max_iohmm_smoothing]: added to every expected count
    std::size_t restarts = learned_belief_defaults.restarts;  ///< random starts (>= 1); the best final log-likelihood wins
    double anchor_weight = 0.5;        ///< w in [0, 1): weight of each latent state's anchor observation in
                                       ///< its initial emission rows (0 = plain random rows; see anchor_emissions;
                                       ///< 1 would make observations no state is anchored on impossible)
    std::size_t max_iterations = learned_belief_defaults.em_iterations;  ///< M steps per restart at most
    double tolerance = 1e-6;           ///< stop when the relative change of ℓ is at most this
    std::uint64_t seed = 0;            ///< restart r starts from maxent::stream(seed, r, 0)
    std::size_t threads = 1;           ///< worker threads (0 = all hardware threads); results do not depend on it
    std::size_t block_size = 32;       ///< sequences per block of work (the results depend on it, not on threads)
    /// Optional stop flag (must outlive the fit): when it reads true before an M step or a
    /// restart, the fit returns what it has, marked IohmmFit::stopped. nullptr: never stops.
    const std::atomic<bool>* stop = nullptr;
    /// Blocks held at these values through EM, bit for bit (known parts; see IohmmBlocks,
    /// known_motion, known_sensor). Every restart and refit uses them.
    IohmmBlocks fixed{};
    /// Blocks every restart of fit_iohmm starts from (a partially known model; EM learns them
    /// further); the other blocks start random. Not read by refit_iohmm (its start is given).
    IohmmBlocks start{};
    /// Dirichlet prior per block (unset blocks: smoothing α, i.e. c = α + 1).
    IohmmPrior prior{};
    /// Restart 0 starts from spectral_iohmm_start (spectral.hpp: a start read off the data's
    /// moments) instead of a random start; restarts 1, 2, ... are random as without it.
    /// fit_iohmm only (start and fixed blocks are applied to it as to a random start).
    bool spectral = false;
};

/// spectral.hpp's start (declared here for fit_iohmm's IohmmOptions::spectral).
[[nodiscard]] inline IohmmModel spectral_iohmm_start(std::span<const ActionObservationSequence> train,
                                                     const IohmmOptions& options);

/// The result of fit_iohmm / refit_iohmm: the model and its EM history.
struct IohmmFit {
    IohmmModel model;                            ///< θ_n of the chosen restart
    std::vector<double> log_likelihood;          ///< ℓ(θ_0) .. ℓ(θ_n) on the training sequences (chosen restart)
    std::vector<double> penalized_log_likelihood;  ///< ℓ(θ_i) + Σ_b (c_b - 1) Σ log θ_i over the learned blocks b
                                                   ///< (= ℓ + α Σ log θ_i without a prior; ℓ for α = 0): never decreases
    std::vector<double> heldout_log_likelihood;  ///< ℓ of the held-out sequences under θ_0 .. θ_n (empty if none)
    std::vector<double> restart_log_likelihood;  ///< final training ℓ of every restart
    std::vector<std::size_t> restart_iterations; ///< M steps run by every restart
    std::size_t restart = 0;                     ///< the restart chosen
    std::size_t iterations = 0;                  ///< n: the M steps run by the chosen restart
    bool converged = false;                      ///< stopped by the tolerance rather than max_iterations
    bool stopped = false;                        ///< cut short by IohmmOptions::stop: `model` is the last θ_i
                                                 ///< reached (a valid model, not converged); restarts not begun
                                                 ///< are missing from the restart vectors

    [[nodiscard]] double final_log_likelihood() const { return log_likelihood.back(); }
};

namespace detail {

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

/// The MAP row for pseudo-count c - 1 < 0 with entries at least `floor` (this header's
/// comment): w = counts + c - 1; entries with w <= 0 at the floor, the others ∝ w water-filled
/// above it; with no positive w, the largest w (lowest index on ties) takes the rest.
template <class Row, class Counts>
void sparse_row(Row&& row, const Counts& counts, double pseudo, double floor) {
    const Eigen::Index n = counts.size();
    Eigen::VectorXd w = (counts.array() + pseudo).matrix();
    std::vector<char> free(static_cast<std::size_t>(n), 0);
    std::size_t nfree = 0;
    for (Eigen::Index j = 0; j < n; ++j)
        if (w[j] > 0.0) {
            free[static_cast<std::size_t>(j)] = 1;
            ++nfree;
        }
    if (nfree == 0) {
        Eigen::Index best = 0;
        for (Eigen::Index j = 1; j < n; ++j)
            if (w[j] > w[best]) best = j;
        row.setConstant(floor);
        row[best] = 1.0 - static_cast<double>(n - 1) * floor;
        return;
    }
    double lambda = 0.0;
    for (bool changed = true; changed;) {
        changed = false;
        double total = 0.0;
        for (Eigen::Index j = 0; j < n; ++j)
            if (free[static_cast<std::size_t>(j)] != 0) total += w[j];
        lambda = total / (1.0 - static_cast<double>(static_cast<std::size_t>(n) - nfree) * floor);
        for (Eigen::Index j = 0; j < n; ++j)
            if (free[static_cast<std::size_t>(j)] != 0 && w[j] < floor * lambda) {
                free[static_cast<std::size_t>(j)] = 0;
                --nfree;
                changed = true;
            }
    }
    for (Eigen::Index j = 0; j < n; ++j) row[j] = free[static_cast<std::size_t>(j)] != 0 ? w[j] / lambda : floor;
}

/// A row's M step for pseudo-count `pseudo` = c - 1: smoothed_row for c >= 1, sparse_row below.
template <class Row, class Counts>
void map_row(Row&& row, const Counts& counts, double pseudo, double floor);

/// row <- (counts + α) / total, unless the total is 0 (then the row is kept).
template <class Row, class Counts>
void smoothed_row(Row&& row, const Counts& counts, double alpha) {
    const double total = counts.sum() + alpha * static_cast<double>(counts.size());
    if (!(total > 0.0)) return;
    row = ((counts.array() + alpha) / total).matrix();
}

template <class Row, class Counts>
void map_row(Row&& row, const Counts& counts, double pseudo, double floor) {
    if (pseudo >= 0.0)
        smoothed_row(row, counts, pseudo);
    else
        sparse_row(row, counts, pseudo, floor);
}

/// The M step's settings: pseudo-count c - 1 per block, the floor for c < 1, and which
/// blocks are held fixed (not re-estimated, not in the prior).
struct MStep {
    double initial = 0.0, transitions = 0.0, emissions = 0.0;  // c - 1 per block
    double floor = 1e-8;
    bool fix_initial = false, fix_initial_emission = false;
    std::vector<char> fix_transitions, fix_emissions;  // one per action / per emission slot

    MStep(const IohmmOptions& o, std::size_t A, std::size_t slots) {
        const double a = o.smoothing;
        initial = o.prior.initial ? *o.prior.initial - 1.0 : a;
        transitions = o.prior.transitions ? *o.prior.transitions - 1.0 : a;
        emissions = o.prior.emissions ? *o.prior.emissions - 1.0 : a;
        floor = o.prior.floor;
        fix_initial = o.fixed.initial.has_value();
        fix_initial_emission = o.fixed.initial_emission.has_value();
        fix_transitions.assign(A, 0);
        for (std::size_t k = 0; k < o.fixed.transitions.size() && k < A; ++k) fix_transitions[k] = o.fixed.transitions[k] ? 1 : 0;
        fix_emissions.assign(slots, 0);
        for (std::size_t k = 0; k < o.fixed.emissions.size() && k < slots; ++k) fix_emissions[k] = o.fixed.emissions[k] ? 1 : 0;
    }
    /// Whether a learned block has c < 1 (its rows are kept at least `floor`).
    [[nodiscard]] bool sparse() const { return initial < 0.0 || transitions < 0.0 || emissions < 0.0; }
    [[nodiscard]] bool all_emissions_fixed() const {
        for (const char f : fix_emissions)
            if (f == 0) return false;
        return true;
    }
};

/// c Σ log θ over the entries of x (0 for c = 0, whatever θ).
template <class X>
double weighted_log_sum(const X& x, double c) {
    return c == 0.0 ? 0.0 : c * x.array().log().sum();
}

/// Σ_b (c_b - 1) Σ log θ over the learned blocks b of the model (the log prior up to a constant).
inline double log_prior(const IohmmModel& m, const MStep& p) {
    double sum = p.fix_initial ? 0.0 : weighted_log_sum(m.initial, p.initial);
    for (std::size_t a = 0; a < m.transitions.size(); ++a)
        if (p.fix_transitions[a] == 0) sum += weighted_log_sum(m.transitions[a], p.transitions);
    for (std::size_t k = 0; k < m.emissions.size(); ++k)
        if (p.fix_emissions[k] == 0) sum += weighted_log_sum(m.emissions[k], p.emissions);
    if (m.emission_model == EmissionModel::per_action && !p.fix_initial_emission)
        sum += weighted_log_sum(m.initial_emission, p.emissions);
    return sum;
}

/// A random row: every entry an Exp(1) draw -log(1 - u), u = uniform01(g), plus 1e-3, then
/// normalised (a Dirichlet(1) draw kept away from 0).
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

/// A random start: rows drawn by random_row in the order μ̂, P̂_0 .. P̂_{A-1} row by row, Ô (or
/// Ô_0 .. Ô_{A-1}) row by row, then Ô_1 (per_action only; shared: Ô_1 = Ô).
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
/// emission rows (every slot, and Ô_1) become (1 - w) row + w one-hot(anchor). Drawn with the
/// generator of random_model, after it. Why: with informative observations, plain random
/// emissions leave EM in poor local optima (docs/performance.md, "Learning the belief model").
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

/// The M step: every learned block <- its MAP rows given the expected counts (this header's
/// comment); fixed blocks are left as they are.
inline void maximise(const IohmmCounts& t, const MStep& p, IohmmModel& m) {
    if (!p.fix_initial) map_row(m.initial, t.initial, p.initial, p.floor);
    Eigen::MatrixXd xi;
    for (std::size_t a = 0; a < m.transitions.size(); ++a) {
        if (p.fix_transitions[a] != 0) continue;
        xi = m.transitions[a].cwiseProduct(t.outer[a]);
        for (Eigen::Index z = 0; z < xi.rows(); ++z) map_row(m.transitions[a].row(z), xi.row(z), p.transitions, p.floor);
    }
    for (std::size_t k = 0; k < m.emissions.size(); ++k) {
        if (p.fix_emissions[k] != 0) continue;
        for (Eigen::Index z = 0; z < t.emission[k].rows(); ++z)
            map_row(m.emissions[k].row(z), t.emission[k].row(z), p.emissions, p.floor);
    }
    if (t.initial_emission.size() > 0) {
        if (!p.fix_initial_emission)
            for (Eigen::Index z = 0; z < t.initial_emission.rows(); ++z)
                map_row(m.initial_emission.row(z), t.initial_emission.row(z), p.emissions, p.floor);
    } else {
        m.initial_emission = m.emissions[0];
    }
}

/// Checks one block of IohmmBlocks: shape rows x cols (cols = 0: a vector of `rows` entries) and
/// a distribution per row; `name` says which ("fixed transition matrix 2").
inline void check_block(const Eigen::MatrixXd& x, Eigen::Index rows, Eigen::Index cols, const std::string& name,
                        const char* where) {
    if (x.rows() != rows || x.cols() != cols)
        throw config_error(detail::message(where, ": the ", name, " is ", x.rows(), " x ", x.cols(), ", expected ",
                                           rows, " x ", cols));
    check_rows(x, name, where);
}

/// Checks given blocks (`what` = "fixed" or "start") against L, A, O and the emission model.
inline void check_blocks(const IohmmBlocks& b, std::size_t L, std::size_t A, std::size_t O, EmissionModel emission,
                         const char* what, const char* where) {
    const auto l = eidx(L), o = eidx(O);
    const std::size_t slots = emission == EmissionModel::shared ? 1 : A;
    if (b.initial) {
        if (b.initial->size() != l)
            throw config_error(detail::message(where, ": the ", what, " initial distribution has ", b.initial->size(),
                                               " entries, expected ", L));
        check_rows(Eigen::MatrixXd(b.initial->transpose()), detail::message(what, " initial distribution"), where);
    }
    if (!b.transitions.empty() && b.transitions.size() != A)
        throw config_error(detail::message(where, ": ", b.transitions.size(), " ", what,
                                           " transition entries for ", A, " actions (give none or one per action)"));
    for (std::size_t a = 0; a < b.transitions.size(); ++a)
        if (b.transitions[a]) check_block(*b.transitions[a], l, l, detail::message(what, " transition matrix ", a), where);
    if (!b.emissions.empty() && b.emissions.size() != slots)
        throw config_error(detail::message(where, ": ", b.emissions.size(), " ", what, " emission entries, expected ",
                                           slots, emission == EmissionModel::shared ? " (shared emissions)"
                                                                                    : " (one per action)"));
    for (std::size_t k = 0; k < b.emissions.size(); ++k)
        if (b.emissions[k]) check_block(*b.emissions[k], l, o, detail::message(what, " emission matrix ", k), where);
    if (b.initial_emission) {
        if (emission == EmissionModel::shared)
            throw config_error(detail::message(where, ": a ", what, " initial emission matrix is given, but emissions "
                                                      "are shared (o_1 is emitted by the shared matrix)"));
        check_block(*b.initial_emission, l, o, detail::message(what, " initial emission matrix"), where);
    }
}

/// m's blocks given in b replaced by b's values (then Ô_1 = Ô again with shared emissions).
inline void apply_blocks(const IohmmBlocks& b, IohmmModel& m) {
    if (b.initial) m.initial = *b.initial;
    for (std::size_t a = 0; a < b.transitions.size(); ++a)
        if (b.transitions[a]) m.transitions[a] = *b.transitions[a];
    for (std::size_t k = 0; k < b.emissions.size(); ++k)
        if (b.emissions[k]) m.emissions[k] = *b.emissions[k];
    if (b.initial_emission) m.initial_emission = *b.initial_emission;
    if (m.emission_model == EmissionModel::shared) m.initial_emission = m.emissions[0];
}

/// Checks the prior: concentrations finite and > 0, the floor in (0, 1/longest row) when a
/// concentration is below 1.
inline void check_prior(const IohmmPrior& p, std::size_t L, std::size_t O, const char* where) {
    bool sparse = false;
    auto one = [&](const std::optional<double>& c, const char* name) {
        if (!c) return;
        if (!std::isfinite(*c) || !(*c > 0.0))
            throw config_error(detail::message(where, ": the prior concentration of the ", name,
                                               " must be finite and > 0, got ", *c));
        if (*c > max_iohmm_smoothing)
            throw config_error(detail::message(where, ": the prior concentration of the ", name, " must be at most ",
                                               max_iohmm_smoothing, ", got ", *c));
        sparse = sparse || *c < 1.0;
    };
    one(p.initial, "initial distribution");
    one(p.transitions, "transitions");
    one(p.emissions, "emissions");
    if (!sparse) return;
    const double longest = static_cast<double>(std::max(L, O));
    if (!std::isfinite(p.floor) || !(p.floor > 0.0) || !(p.floor * longest < 1.0))
        throw config_error(detail::message(where, ": the prior floor must be in (0, 1/", std::max(L, O),
                                           ") with a concentration below 1, got ", p.floor));
    if (p.floor < min_iohmm_prior_floor)
        throw config_error(detail::message(where, ": the prior floor (IohmmPrior::floor) must be at least 2^-511 = ",
                                           min_iohmm_prior_floor, ", got ", p.floor,
                                           ": below it the product of a floored transition and a floored emission "
                                           "probability underflows, and the forward pass would find a possible "
                                           "sequence impossible"));
}

/// Throws budget_error when EM with L latent states, A actions, O observations (`slots`
/// emission matrices) on `sequences` training sequences in blocks of `block` would reserve more
/// than max_buffer_bytes (core/budget.hpp): the model, the expected counts of every block (the
/// E step keeps one set per block, to add them in index order), their total, the best restart's
/// model and the start, before anything is allocated.
inline void check_em_memory(std::size_t L, std::size_t A, std::size_t O, std::size_t slots, std::size_t sequences,
                            std::size_t block, const char* where) {
    const std::size_t copies = block_count(sequences, block) + 4;
    BufferCost cost;
    cost.add({copies, A, L, L}, sizeof(double)).add({copies, slots + 1, L, O}, sizeof(double)).add({copies, L},
                                                                                                   sizeof(double));
    check_buffer_budget(cost, where, ": EM with L = ", L, " latent states, ", A, " actions and ", O,
                        " observations (", copies - 4, " blocks of sequences)");
}

}  // namespace detail

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
    if (options.smoothing > max_iohmm_smoothing)
        throw config_error(detail::message(where, ": the smoothing α must be at most ", max_iohmm_smoothing,
                                           " (sums of α over a row would overflow), got ", options.smoothing));
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

/// The dense E step and held-out score (expected_counts, block_log_likelihood).
struct DenseEm {
    IohmmCounts counts(const IohmmModel& m, std::span<const ActionObservationSequence> data, std::size_t begin,
                       std::size_t end, bool per_action, ImpossibleSequence& bad) const {
        return expected_counts(m, data, begin, end, per_action, bad);
    }
    double score(const IohmmModel& m, std::span<const ActionObservationSequence> data, std::size_t begin,
                 std::size_t end) const {
        return block_log_likelihood(m, data, begin, end);
    }
};

/// EM from the start `m` until the tolerance or options.max_iterations, with the E step and
/// held-out score of `em` (DenseEm, or the cloned HMM's); `r` is the restart's index, only for
/// messages and IohmmFit::restart.
template <class Em = DenseEm>
IohmmFit run_em(IohmmModel m, std::span<const ActionObservationSequence> train, const IohmmOptions& options,
                std::span<const ActionObservationSequence> heldout, std::size_t r, const char* where, const Em& em = {}) {
    const bool per_action = options.emission == EmissionModel::per_action;
    const double alpha = options.smoothing;
    const detail::MStep mstep(options, m.num_actions(), m.emissions.size());
    const std::size_t block = options.block_size;
    const std::size_t train_blocks = detail::block_count(train.size(), block);
    const std::size_t heldout_blocks = detail::block_count(heldout.size(), block);
    IohmmFit fit;
    fit.restart = r;
    for (std::size_t it = 0;; ++it) {
        // E step over the blocks, added in index order.
        std::vector<detail::ImpossibleSequence> bad(train_blocks);
        std::vector<detail::IohmmCounts> parts = run_parallel(train_blocks, options.threads, [&](std::size_t b) {
            return em.counts(m, train, b * block, std::min(train.size(), (b + 1) * block), per_action, bad[b]);
        });
        for (const auto& x : bad)
            if (x.step != 0) {
                const auto& s = train[x.sequence];
                const std::string what = detail::message(
                    where, ": training sequence ", x.sequence,
                    s.id.empty() ? std::string() : detail::message(" ('", s.id, "')"), " has probability 0 under ");
                if (it == 0)
                    throw numeric_error(detail::message(what, "the start model at step ", x.step, " (restart ", r,
                                                        "): a probability it needs is 0 in the start"));
                if (alpha == 0.0)
                    throw numeric_error(detail::message(
                        what, "the model at step ", x.step, " (restart ", r, ", iteration ", it,
                        "): with smoothing α = 0 a parameter reached 0 or the forward normaliser underflowed; "
                        "use α > 0"));
                throw numeric_error(detail::message(
                    what, "the model at step ", x.step, " (restart ", r, ", iteration ", it,
                    "): the forward normaliser underflowed (smoothing α = ", alpha,
                    mstep.sparse() ? detail::message(", prior floor = ", mstep.floor) : std::string(), ")"));
            }
        detail::IohmmCounts total = std::move(parts[0]);
        for (std::size_t b = 1; b < parts.size(); ++b) total.add(parts[b]);
        const double ll = total.log_likelihood;
        fit.log_likelihood.push_back(ll);
        fit.penalized_log_likelihood.push_back(ll + detail::log_prior(m, mstep));
        if (!heldout.empty()) {
            const auto lls = run_parallel(heldout_blocks, options.threads, [&](std::size_t b) {
                return em.score(m, heldout, b * block, std::min(heldout.size(), (b + 1) * block));
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
        if (options.stop != nullptr && options.stop->load()) {
            fit.stopped = true;
            break;
        }
        detail::maximise(total, mstep, m);
        fit.iterations = it + 1;
    }
    fit.model = std::move(m);
    fit.restart_log_likelihood.push_back(fit.log_likelihood.back());
    fit.restart_iterations.push_back(fit.iterations);
    return fit;
}

/// Restart r = 0, 1, ... of `run(r)` (an IohmmFit) up to options.restarts; keeps the highest
/// final log-likelihood (the lowest index on ties) with every restart's final ℓ and M steps.
/// options.stop, read before every restart after the first, ends the loop (IohmmFit::stopped).
template <class Run>
IohmmFit best_of_restarts(const IohmmOptions& options, Run&& run) {
    IohmmFit best;
    bool have_best = false, stopped = false;
    for (std::size_t r = 0; r < options.restarts; ++r) {
        if (r > 0 && options.stop != nullptr && options.stop->load()) {
            stopped = true;
            break;
        }
        IohmmFit fit = run(r);
        stopped = stopped || fit.stopped;
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
    best.stopped = stopped;
    return best;
}

/// Throws config_error when a refit's start has other numbers of actions or observations than
/// the options.
inline void check_start_sizes(const IohmmModel& start, const IohmmOptions& options, const char* where) {
    if (start.num_actions() != options.num_actions || start.num_observations() != options.num_observations)
        throw config_error(detail::message(where, ": the start model has ", start.num_actions(), " actions and ",
                                           start.num_observations(), " observations; the options say ",
                                           options.num_actions, " and ", options.num_observations));
}

}  // namespace detail

/// Fits an IOHMM with L = options.latent_states latent states to the training sequences by
/// EM with random restarts (as this header's comment says); held-out sequences are only scored.
/// Each restart's random start (same draws whatever is given) takes options.start's blocks,
/// then options.fixed's, which EM then holds.
[[nodiscard]] inline IohmmFit fit_iohmm(std::span<const ActionObservationSequence> train, const IohmmOptions& options,
                                        std::span<const ActionObservationSequence> heldout = {}) {
    constexpr const char* where = "fit_iohmm";
    const std::size_t L = options.latent_states;
    if (L == 0) throw config_error("fit_iohmm: the number of latent states L must be at least 1, got 0");
    if (options.restarts == 0) throw config_error("fit_iohmm: the number of restarts must be at least 1, got 0");
    if (!(options.anchor_weight >= 0.0 && options.anchor_weight < 1.0))
        throw config_error(detail::message("fit_iohmm: the anchor weight must be in [0, 1), got ",
                                           options.anchor_weight,
                                           " (1 makes each latent state's emission rows one-hot: observations no "
                                           "state is anchored on would be impossible)"));
    detail::check_fit_inputs(train, options, heldout, where);
    detail::check_em_memory(L, options.num_actions, options.num_observations,
                            options.emission == EmissionModel::shared ? 1 : options.num_actions, train.size(),
                            options.block_size, where);
    detail::check_prior(options.prior, L, options.num_observations, where);
    detail::check_blocks(options.fixed, L, options.num_actions, options.num_observations, options.emission, "fixed",
                         where);
    detail::check_blocks(options.start, L, options.num_actions, options.num_observations, options.emission, "start",
                         where);

    return detail::best_of_restarts(options, [&](std::size_t r) {
        IohmmModel m;
        if (options.spectral && r == 0) {
            m = spectral_iohmm_start(train, options);
        } else {
            DefaultRng g = stream(options.seed, r, 0);
            m = detail::random_model(L, options.num_actions, options.num_observations, options.emission, g);
            detail::anchor_emissions(m, train, options.anchor_weight, g);
        }
        detail::apply_blocks(options.start, m);
        detail::apply_blocks(options.fixed, m);
        return detail::run_em(std::move(m), train, options, heldout, r, where);
    });
}

/// Warm-started EM: continues from `start` (one run, no random restart, so latent state z of
/// the result is still the state z of `start` — what keeps a policy over the latent states
/// meaningful across refits). Uses options.num_actions, num_observations, smoothing,
/// max_iterations, tolerance, threads and block_size; latent_states, emission, restarts,
/// anchor_weight, seed and `start` are taken from `start` or unused; `fixed` blocks replace
/// the start's and are held; `prior` as fit_iohmm. The history starts with ℓ(start).
/// Uses options.stop as fit_iohmm. Throws config_error when `start` does not have the options'
/// sizes or is malformed, model_error when it is not a distribution (iohmm.hpp), config_error
/// for the inputs fit_iohmm refuses; numeric_error when a training sequence is impossible
/// under `start` or becomes so (α = 0, or underflow).
[[nodiscard]] inline IohmmFit refit_iohmm(const IohmmModel& start, std::span<const ActionObservationSequence> train,
                                          const IohmmOptions& options,
                                          std::span<const ActionObservationSequence> heldout = {}) {
    constexpr const char* where = "refit_iohmm";
    detail::check_model(start, where);
    detail::check_fit_inputs(train, options, heldout, where);
    detail::check_start_sizes(start, options, where);
    detail::check_em_memory(start.num_latent_states(), options.num_actions, options.num_observations,
                            start.emissions.size(), train.size(), options.block_size, where);
    detail::check_prior(options.prior, start.num_latent_states(), options.num_observations, where);
    detail::check_blocks(options.fixed, start.num_latent_states(), options.num_actions, options.num_observations,
                         start.emission_model, "fixed", where);
    IohmmOptions o = options;
    o.emission = start.emission_model;
    if (options.fixed.empty()) return detail::run_em(start, train, o, heldout, 0, where);
    IohmmModel m = start;
    detail::apply_blocks(options.fixed, m);
    return detail::run_em(std::move(m), train, o, heldout, 0, where);
}

}  // namespace maxent

#include "maxent/belief/learned/spectral.hpp"  // defines spectral_iohmm_start (it needs this header)
