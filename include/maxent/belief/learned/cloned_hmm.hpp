// maxent/belief/learned/cloned_hmm.hpp — cloned hidden Markov models (clone-structured
// graphs): every latent state is a clone of one observation and emits only it; EM learns the
// action-conditioned transitions among clones, so aliased observations are told apart by
// where they occur (latent states that mean places), with no knowledge of the dynamics.
//
// A cloned HMM is an IohmmModel (iohmm.hpp) with shared one-hot emissions: observation o has
// clones_o >= 1 clones, numbered contiguously (observation 0's first), L = Σ_o clones_o.
// Because the clones of o_k are the only states possible at step k, forward–backward touches
// only the block P̂_a[clones(o_k), clones(o_{k+1})] per step: it costs O(Σ_k clones_{o_k}
// clones_{o_{k+1}}) per sequence instead of O(K L²), with the same scaled recursion (and the
// same values up to rounding) as the dense IOHMM's. The M step is em.hpp's, emissions held:
// smoothing α or IohmmOptions::prior on μ̂ and P̂_a (c < 1: sparse rows kept above a floor), and
// `fixed` / `start` blocks for μ̂ and P̂_a as fit_iohmm. Restart r starts from stream(seed, r, 0):
// μ̂, then P̂_0 .. P̂_{A-1} row by row, drawn as fit_iohmm's random rows.
// The result is an IohmmFit: to_finite_pomdp turns it into the agent's FinitePomdp and
// BayesFilter as any IOHMM (with α > 0 or a floor every observation stays possible).
// Errors (naming the value): config_error for a clone count of 0, clone counts that are not one
// per observation, do not add up to L or add up to more than an index can hold, L < O with the
// equal split, budget_error when the settings' L needs more memory than max_buffer_bytes (before
// allocating), per-action emissions,
// fixed or start emission blocks, a refit start that is not a cloned HMM; otherwise as em.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/learned/em.hpp"
#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

/// L clones split equally among O observations (the first L mod O get one more). Throws
/// config_error when L < O (an observation without a clone could never be seen).
[[nodiscard]] inline std::vector<std::size_t> equal_clones(std::size_t L, std::size_t O) {
    if (O == 0) throw config_error("equal_clones: the number of observations must be at least 1, got 0");
    if (L < O)
        throw config_error(detail::message("equal_clones: L = ", L, " latent states cannot give each of the ", O,
                                           " observations a clone (L must be at least O)"));
    std::vector<std::size_t> out(O, L / O);
    for (std::size_t o = 0; o < L % O; ++o) ++out[o];
    return out;
}

namespace detail {

/// Where each observation's clones are: first[o] .. first[o] + count[o] - 1.
struct CloneLayout {
    std::vector<Eigen::Index> first, count;
};

inline CloneLayout clone_layout(std::span<const std::size_t> clones, const char* where) {
    CloneLayout c;
    Eigen::Index next = 0;
    constexpr auto most = static_cast<std::size_t>(std::numeric_limits<Eigen::Index>::max());
    for (std::size_t o = 0; o < clones.size(); ++o) {
        if (clones[o] == 0)
            throw config_error(detail::message(where, ": observation ", o,
                                               " has 0 clones (every observation needs at least one)"));
        if (clones[o] > most - static_cast<std::size_t>(next))
            throw config_error(detail::message(where, ": the clone counts add up to more than ", most,
                                               " latent states: observation ", o, " has ", clones[o],
                                               " clones after ", next, " clones of the observations before it"));
        c.first.push_back(next);
        c.count.push_back(eidx(clones[o]));
        next += eidx(clones[o]);
    }
    return c;
}

/// The clone counts of a cloned HMM (shared one-hot emission rows, clones of each observation
/// contiguous and in observation order); config_error naming the row otherwise.
inline std::vector<std::size_t> clones_of(const IohmmModel& m, const char* where) {
    if (m.emission_model != EmissionModel::shared)
        throw config_error(detail::message(where, ": a cloned HMM has shared emissions, the model's are per action"));
    const Eigen::MatrixXd& E = m.emissions[0];
    std::vector<std::size_t> clones(static_cast<std::size_t>(E.cols()), 0);
    Eigen::Index previous = 0;
    for (Eigen::Index z = 0; z < E.rows(); ++z) {
        Eigen::Index o = 0;
        E.row(z).maxCoeff(&o);
        if (E(z, o) != 1.0 || (E.row(z).array() != 0.0).count() != 1)
            throw config_error(detail::message(where, ": emission row ", z,
                                               " is not one-hot: the model is not a cloned HMM"));
        if (o < previous)
            throw config_error(detail::message(where, ": latent state ", z, " is a clone of observation ", o,
                                               " after clones of observation ", previous,
                                               ": a cloned HMM numbers the clones in observation order"));
        previous = o;
        ++clones[static_cast<std::size_t>(o)];
    }
    for (std::size_t o = 0; o < clones.size(); ++o)
        if (clones[o] == 0)
            throw config_error(detail::message(where, ": observation ", o, " has no clone: the model is not a cloned HMM"));
    return clones;
}

/// Scaled forward pass restricted to clones: alpha holds step k's clones(o_k) entries at
/// alpha[offset[k] ...]; c[k] as iohmm.hpp's forward. Returns 0 or the 1-based failing step.
inline std::size_t cloned_forward(const IohmmModel& m, const CloneLayout& L, const ActionObservationSequence& s,
                                  Eigen::VectorXd& alpha, std::vector<Eigen::Index>& offset, Eigen::VectorXd& c) {
    const std::size_t steps = s.observations.size();
    offset.resize(steps + 1);
    offset[0] = 0;
    for (std::size_t k = 0; k < steps; ++k) offset[k + 1] = offset[k] + L.count[s.observations[k]];
    alpha.resize(offset[steps]);
    c.resize(eidx(steps));
    const std::size_t o0 = s.observations[0];
    auto a0 = alpha.segment(0, L.count[o0]);
    a0 = m.initial.segment(L.first[o0], L.count[o0]);
    double z = a0.sum();
    if (!(z > 0.0) || !std::isfinite(z)) return 1;
    c[0] = z;
    a0 /= z;
    for (std::size_t k = 1; k < steps; ++k) {
        const std::size_t a = s.actions[k - 1], p = s.observations[k - 1], o = s.observations[k];
        auto ak = alpha.segment(offset[k], L.count[o]);
        ak.noalias() = m.transitions[a].block(L.first[p], L.first[o], L.count[p], L.count[o]).transpose() *
                       alpha.segment(offset[k - 1], L.count[p]);
        z = ak.sum();
        if (!(z > 0.0) || !std::isfinite(z)) return k + 1;
        c[eidx(k)] = z;
        ak /= z;
    }
    return 0;
}

/// The cloned HMM's E step and held-out score for run_em.
struct ClonedEm {
    CloneLayout layout;

    IohmmCounts counts(const IohmmModel& m, std::span<const ActionObservationSequence> data, std::size_t begin,
                       std::size_t end, bool per_action, ImpossibleSequence& bad) const {
        IohmmCounts t(m, per_action);
        Eigen::VectorXd alpha, c, beta, w;
        std::vector<Eigen::Index> offset;
        for (std::size_t n = begin; n < end; ++n) {
            const ActionObservationSequence& s = data[n];
            const std::size_t steps = s.observations.size();
            if (const std::size_t failed = cloned_forward(m, layout, s, alpha, offset, c); failed != 0) {
                bad = {n, failed};
                return t;
            }
            t.log_likelihood += sum_log(c, steps);
            beta.setOnes(layout.count[s.observations[steps - 1]]);
            for (std::size_t k = steps - 1; k >= 1; --k) {
                const std::size_t a = s.actions[k - 1], p = s.observations[k - 1], o = s.observations[k];
                const Eigen::Index fp = layout.first[p], np = layout.count[p], fo = layout.first[o],
                                   no = layout.count[o];
                w = beta / c[eidx(k)];
                t.outer[a].block(fp, fo, np, no).noalias() += alpha.segment(offset[k - 1], np) * w.transpose();
                beta.noalias() = m.transitions[a].block(fp, fo, np, no) * w;
            }
            const std::size_t o0 = s.observations[0];
            t.initial.segment(layout.first[o0], layout.count[o0]) += alpha.segment(0, layout.count[o0]).cwiseProduct(beta);
        }
        return t;
    }

    double score(const IohmmModel& m, std::span<const ActionObservationSequence> data, std::size_t begin,
                 std::size_t end) const {
        Eigen::VectorXd alpha, c;
        std::vector<Eigen::Index> offset;
        double ll = 0.0;
        for (std::size_t n = begin; n < end; ++n) {
            if (cloned_forward(m, layout, data[n], alpha, offset, c) != 0)
                return -std::numeric_limits<double>::infinity();
            ll += sum_log(c, data[n].observations.size());
        }
        return ll;
    }
};

/// Checks a cloned fit's options: shared emissions, no emission blocks given.
inline void check_cloned_options(const IohmmOptions& o, const char* where) {
    if (o.emission != EmissionModel::shared)
        throw config_error(detail::message(where, ": a cloned HMM's clones emit their observation whatever the "
                                                  "action; options.emission must be shared"));
    for (const IohmmBlocks* b : {&o.fixed, &o.start})
        if (b->initial_emission || std::any_of(b->emissions.begin(), b->emissions.end(), [](const auto& x) {
                return x.has_value();
            }))
            throw config_error(detail::message(where, ": a cloned HMM's emissions are its clone structure; ",
                                               b == &o.fixed ? "fixed" : "start", " emission blocks cannot be given"));
}

/// The options run_em needs for a cloned model: the given ones with the emission block fixed
/// at the one-hot clone structure.
inline IohmmOptions cloned_em_options(const IohmmOptions& o, const IohmmModel& m) {
    IohmmOptions out = o;
    out.emission = EmissionModel::shared;
    out.fixed.emissions.assign(1, m.emissions[0]);
    return out;
}

}  // namespace detail

/// The one-hot emission matrix of clone counts (L x O, L = Σ clones): clone z emits its observation.
[[nodiscard]] inline Eigen::MatrixXd clone_emissions(std::span<const std::size_t> clones) {
    const detail::CloneLayout c = detail::clone_layout(clones, "clone_emissions");
    const Eigen::Index L = c.first.empty() ? 0 : c.first.back() + c.count.back();
    check_buffer_budget(BufferCost{}.add({static_cast<std::size_t>(L), clones.size()}, sizeof(double)),
                        "clone_emissions: the ", L, " x ", clones.size(), " emission matrix of the clone counts");
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(L, detail::eidx(clones.size()));
    for (std::size_t o = 0; o < clones.size(); ++o) E.block(c.first[o], detail::eidx(o), c.count[o], 1).setOnes();
    return E;
}

/// Fits a cloned HMM by EM with random restarts (this header's comment). `clones`: one count
/// >= 1 per observation (L = their sum; options.latent_states must be 0 or L), or empty for
/// equal_clones(options.latent_states, O). Reads options as fit_iohmm except emission (shared)
/// and anchor_weight (unused). Held-out sequences are only scored.
[[nodiscard]] inline IohmmFit fit_cloned_hmm(std::span<const ActionObservationSequence> train,
                                             const IohmmOptions& options, std::span<const std::size_t> clones = {},
                                             std::span<const ActionObservationSequence> heldout = {}) {
    constexpr const char* where = "fit_cloned_hmm";
    const std::size_t O = options.num_observations, A = options.num_actions;
    detail::check_fit_inputs(train, options, heldout, where);
    detail::check_cloned_options(options, where);
    if (options.restarts == 0) throw config_error("fit_cloned_hmm: the number of restarts must be at least 1, got 0");
    std::vector<std::size_t> counts;
    if (clones.empty()) {
        if (options.latent_states == 0)
            throw config_error("fit_cloned_hmm: give clone counts or the number of latent states L (got L = 0)");
        counts = equal_clones(options.latent_states, O);
    } else {
        if (clones.size() != O)
            throw config_error(detail::message(where, ": ", clones.size(), " clone counts for ", O,
                                               " observations (give one per observation)"));
        counts.assign(clones.begin(), clones.end());
    }
    const detail::ClonedEm em{detail::clone_layout(counts, where)};  // checks that the counts' sum fits
    std::size_t L = 0;
    for (const std::size_t n : counts) L += n;
    if (options.latent_states != 0 && options.latent_states != L)
        throw config_error(detail::message(where, ": the clone counts add up to ", L, " latent states, but L = ",
                                           options.latent_states));
    detail::check_em_memory(L, A, O, 1, train.size(), options.block_size, where);
    detail::check_prior(options.prior, L, O, where);
    detail::check_blocks(options.fixed, L, A, O, EmissionModel::shared, "fixed", where);
    detail::check_blocks(options.start, L, A, O, EmissionModel::shared, "start", where);

    IohmmModel shape;
    shape.emissions.assign(1, clone_emissions(counts));
    const IohmmOptions o = detail::cloned_em_options(options, shape);
    return detail::best_of_restarts(options, [&](std::size_t r) {
        DefaultRng g = stream(options.seed, r, 0);
        IohmmModel m;
        m.emission_model = EmissionModel::shared;
        const auto l = detail::eidx(L);
        m.initial.resize(l);
        detail::random_row(m.initial, g);
        m.transitions.assign(A, Eigen::MatrixXd(l, l));
        for (auto& P : m.transitions)
            for (Eigen::Index z = 0; z < l; ++z) detail::random_row(P.row(z), g);
        m.emissions = shape.emissions;
        m.initial_emission = m.emissions[0];
        detail::apply_blocks(options.start, m);
        detail::apply_blocks(o.fixed, m);
        return detail::run_em(std::move(m), train, o, heldout, r, where, em);
    });
}

/// Warm-started EM of a cloned HMM from `start` (its clone counts are read off its one-hot
/// emissions), as refit_iohmm: one run, latent state z stays z. Throws config_error when
/// `start` is not a cloned HMM or does not have the options' sizes, and what fit_cloned_hmm throws.
[[nodiscard]] inline IohmmFit refit_cloned_hmm(const IohmmModel& start, std::span<const ActionObservationSequence> train,
                                               const IohmmOptions& options,
                                               std::span<const ActionObservationSequence> heldout = {}) {
    constexpr const char* where = "refit_cloned_hmm";
    detail::check_model(start, where);
    detail::check_fit_inputs(train, options, heldout, where);
    detail::check_start_sizes(start, options, where);
    IohmmOptions given = options;
    given.emission = EmissionModel::shared;
    given.start = {};
    detail::check_cloned_options(given, where);
    const std::vector<std::size_t> counts = detail::clones_of(start, where);
    detail::check_em_memory(start.num_latent_states(), options.num_actions, options.num_observations, 1, train.size(),
                            options.block_size, where);
    detail::check_prior(options.prior, start.num_latent_states(), options.num_observations, where);
    detail::check_blocks(options.fixed, start.num_latent_states(), options.num_actions, options.num_observations,
                         EmissionModel::shared, "fixed", where);
    const IohmmOptions o = detail::cloned_em_options(given, start);
    IohmmModel m = start;
    detail::apply_blocks(o.fixed, m);
    return detail::run_em(std::move(m), train, o, heldout, 0, where, detail::ClonedEm{detail::clone_layout(counts, where)});
}

/// Forward–backward of a cloned HMM on one sequence, by the clone-restricted recursion, laid
/// out as iohmm_posteriors' (entries outside the clones of each step's observation are 0).
[[nodiscard]] inline IohmmPosteriors cloned_hmm_posteriors(const IohmmModel& m, const ActionObservationSequence& s) {
    constexpr const char* where = "cloned_hmm_posteriors";
    detail::check_model(m, where);
    detail::check_sequence(s, 0, m.num_actions(), m.num_observations(), where, "sequence");
    const std::vector<std::size_t> counts = detail::clones_of(m, where);
    const detail::CloneLayout layout = detail::clone_layout(counts, where);
    IohmmPosteriors out;
    Eigen::VectorXd alpha, c, beta, w;
    std::vector<Eigen::Index> offset;
    if (detail::cloned_forward(m, layout, s, alpha, offset, c) != 0) {
        out.log_likelihood = -std::numeric_limits<double>::infinity();
        return out;
    }
    const std::size_t steps = s.observations.size();
    const auto L = detail::eidx(m.num_latent_states());
    out.log_likelihood = detail::sum_log(c, steps);
    out.state = Eigen::MatrixXd::Zero(L, detail::eidx(steps));
    out.transition.assign(steps - 1, Eigen::MatrixXd::Zero(L, L));
    beta.setOnes(layout.count[s.observations[steps - 1]]);
    for (std::size_t k = steps - 1; k >= 1; --k) {
        const std::size_t a = s.actions[k - 1], p = s.observations[k - 1], o = s.observations[k];
        const Eigen::Index fp = layout.first[p], np = layout.count[p], fo = layout.first[o], no = layout.count[o];
        out.state.col(detail::eidx(k)).segment(fo, no) = alpha.segment(offset[k], no).cwiseProduct(beta);
        w = beta / c[detail::eidx(k)];
        out.transition[k - 1].block(fp, fo, np, no) =
            m.transitions[a].block(fp, fo, np, no).cwiseProduct(alpha.segment(offset[k - 1], np) * w.transpose());
        beta = m.transitions[a].block(fp, fo, np, no) * w;
    }
    const std::size_t o0 = s.observations[0];
    out.state.col(0).segment(layout.first[o0], layout.count[o0]) = alpha.segment(0, layout.count[o0]).cwiseProduct(beta);
    return out;
}

}  // namespace maxent
