// maxent/belief/learned/spectral.hpp — a start for EM read off the data's moments instead of
// drawn at random (IohmmOptions::spectral: restart 0 starts from it, EM proceeds as from any
// start, so its monotonicity holds).
//
// spectral_iohmm_start(train, options) -> IohmmModel with options.latent_states states:
//   1. Every step k of every sequence has a history h_k = (o_{k-1}, a_{k-1}, o_k) (h_1 = o_1)
//      and, where the sequence goes on, a future: the next action and observation (a_k,
//      o_{k+1}) and the one after (a_{k+1}, o_{k+2}). Row h of the moment matrix X holds the
//      empirical P̂(a_k, o_{k+1} | h) and P̂(a_{k+1}, o_{k+2} | h) side by side (2 A O columns).
//      Under an IOHMM each row is Σ_z P(z_k = z | h) · (the same two distributions given z):
//      a mixture of L vertices, so histories with the same belief have the same row.
//   2. Spectral projection: the rows, weighted by their counts, projected on the top
//      r = min(L, 2 A O) right singular vectors of X (the eigenvectors of Xᵀ W X, a 2AO x 2AO
//      matrix), which keeps the L-dimensional span of the vertices and drops most noise.
//   3. Weighted k-means (k-means++ seeding, Lloyd steps until no history changes cluster, 100
//      at most; ties to the lowest index) puts the histories in L clusters; a history never
//      followed by a step takes the cluster holding the most weight among histories ending in
//      its last observation (cluster 0 if none).
//   4. Hard counts: z_k = the cluster of h_k; μ̂, P̂_a and Ô (Ô_a and Ô_1 with per-action
//      emissions) are the normalised counts (uniform for a row without counts), each row then
//      mixed as 0.9 row + 0.1 random_row (em.hpp's random rows), so every entry is positive
//      (every training sequence is possible) and latent states without data differ (EM cannot
//      separate identical states).
// Randomness: one generator, maxent::stream(options.seed, 0, 1): k-means++ seeding, then the
// random rows (μ̂, P̂_0 .. P̂_{A-1}, Ô row by row). Deterministic single-threaded arithmetic.
// Uses only the logs (actions and observations), nothing of the world.
// Errors: config_error as fit_iohmm's for the options and sequences (naming the value);
// budget_error when the moment matrix (distinct histories x 2 A O) or the model needs more than
// max_buffer_bytes, before allocating it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <unordered_map>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include "maxent/belief/learned/em.hpp"
#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

namespace detail {

/// Weighted k-means of the rows of `points` into k clusters (k-means++ seeding from g, then
/// Lloyd steps); returns the cluster of every row. Rows of weight 0 are never chosen as seeds.
template <class G>
std::vector<std::size_t> weighted_kmeans(const Eigen::MatrixXd& points, const Eigen::VectorXd& weight, std::size_t k,
                                         G& g) {
    const Eigen::Index n = points.rows(), d = points.cols();
    const auto K = eidx(k);
    Eigen::MatrixXd centre = Eigen::MatrixXd::Zero(K, d);
    std::vector<std::size_t> label(static_cast<std::size_t>(n), 0);
    if (n == 0) return label;
    // k-means++: the first centre by weight, each next by weight x squared distance to the nearest.
    Eigen::VectorXd nearest = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
    auto pick = [&](const Eigen::VectorXd& p) {
        const double total = p.sum();
        if (!(total > 0.0)) return Eigen::Index{0};
        const double u = uniform01(g) * total;
        double cumulative = 0.0;
        Eigen::Index last = 0;
        for (Eigen::Index i = 0; i < n; ++i) {
            if (p[i] <= 0.0) continue;
            last = i;
            cumulative += p[i];
            if (u < cumulative) return i;
        }
        return last;
    };
    for (Eigen::Index c = 0; c < K; ++c) {
        const Eigen::Index chosen = c == 0 ? pick(weight) : pick(Eigen::VectorXd(weight.cwiseProduct(nearest)));
        centre.row(c) = points.row(chosen);
        for (Eigen::Index i = 0; i < n; ++i)
            nearest[i] = std::min(nearest[i], (points.row(i) - centre.row(c)).squaredNorm());
    }
    for (std::size_t step = 0; step < 100; ++step) {
        bool changed = step == 0;
        for (Eigen::Index i = 0; i < n; ++i) {
            Eigen::Index best = 0;
            double best_d = std::numeric_limits<double>::infinity();
            for (Eigen::Index c = 0; c < K; ++c) {
                const double dist = (points.row(i) - centre.row(c)).squaredNorm();
                if (dist < best_d) {
                    best_d = dist;
                    best = c;
                }
            }
            if (label[static_cast<std::size_t>(i)] != static_cast<std::size_t>(best)) changed = true;
            label[static_cast<std::size_t>(i)] = static_cast<std::size_t>(best);
        }
        if (!changed) break;
        Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(K, d);
        Eigen::VectorXd mass = Eigen::VectorXd::Zero(K);
        for (Eigen::Index i = 0; i < n; ++i) {
            const auto c = eidx(label[static_cast<std::size_t>(i)]);
            sum.row(c) += weight[i] * points.row(i);
            mass[c] += weight[i];
        }
        for (Eigen::Index c = 0; c < K; ++c)
            if (mass[c] > 0.0) centre.row(c) = sum.row(c) / mass[c];  // an empty cluster keeps its centre
    }
    return label;
}

/// Row-normalised counts (uniform for a row without counts) mixed 0.9 row + 0.1 random_row.
template <class Row, class G>
void mixed_row(Row&& row, const Eigen::Ref<const Eigen::RowVectorXd>& counts, G& g) {
    const double total = counts.sum();
    Eigen::RowVectorXd r(counts.size());
    random_row(r, g);
    if (total > 0.0)
        row = 0.9 * (counts / total) + 0.1 * r;
    else
        row = Eigen::RowVectorXd::Constant(counts.size(), 0.9 / static_cast<double>(counts.size())) + 0.1 * r;
    row /= row.sum();
}

}  // namespace detail

/// The spectral start of this header's comment, for options.latent_states, num_actions,
/// num_observations, emission and seed (the other options are not read).
[[nodiscard]] inline IohmmModel spectral_iohmm_start(std::span<const ActionObservationSequence> train,
                                                     const IohmmOptions& options) {
    constexpr const char* where = "spectral_iohmm_start";
    const std::size_t L = options.latent_states, A = options.num_actions, O = options.num_observations;
    if (L == 0) throw config_error("spectral_iohmm_start: the number of latent states L must be at least 1, got 0");
    detail::check_fit_inputs(train, options, {}, where);
    const bool per_action = options.emission == EmissionModel::per_action;
    check_buffer_budget(BufferCost{}.add({A + 2, L, std::max(L, O)}, sizeof(double)), where,
                        ": the start model with L = ", L, " latent states, ", A, " actions and ", O, " observations");

    // 1. Histories (index: o_1 for the first step, O + (o_{k-1} A + a_{k-1}) O + o_k after) and their rows.
    auto history = [&](const ActionObservationSequence& s, std::size_t k) -> std::size_t {
        if (k == 0) return s.observations[0];
        return O + (s.observations[k - 1] * A + s.actions[k - 1]) * O + s.observations[k];
    };
    std::unordered_map<std::size_t, std::size_t> row_of;  // history -> row of X
    std::vector<std::size_t> histories;                  // row -> history
    for (const auto& s : train)
        for (std::size_t k = 0; k < s.observations.size(); ++k)
            if (row_of.emplace(history(s, k), histories.size()).second) histories.push_back(history(s, k));
    const std::size_t H = histories.size(), F = 2 * A * O;
    check_buffer_budget(BufferCost{}.add({H, F + 2}, sizeof(double)).add({F, F}, sizeof(double)), where,
                        ": the moment matrix of ", H, " distinct histories x ", F, " futures (2 A O)");
    Eigen::MatrixXd X = Eigen::MatrixXd::Zero(detail::eidx(H), detail::eidx(F));
    Eigen::VectorXd n1 = Eigen::VectorXd::Zero(detail::eidx(H)), n2 = n1;
    for (const auto& s : train)
        for (std::size_t k = 0; k + 1 < s.observations.size(); ++k) {
            const auto h = detail::eidx(row_of.at(history(s, k)));
            X(h, detail::eidx(s.actions[k] * O + s.observations[k + 1])) += 1.0;
            n1[h] += 1.0;
            if (k + 2 < s.observations.size()) {
                X(h, detail::eidx(A * O + s.actions[k + 1] * O + s.observations[k + 2])) += 1.0;
                n2[h] += 1.0;
            }
        }
    const auto AO = detail::eidx(A * O);
    for (Eigen::Index h = 0; h < X.rows(); ++h) {
        if (n1[h] > 0.0) X.row(h).head(AO) /= n1[h];
        if (n2[h] > 0.0) X.row(h).tail(AO) /= n2[h];
    }

    // 2. Projection on the top r right singular vectors of W^{1/2} X (W = the histories' counts).
    const Eigen::MatrixXd gram = X.transpose() * n1.asDiagonal() * X;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
    const Eigen::Index r = std::min(detail::eidx(L), detail::eidx(F));
    const Eigen::MatrixXd points = X * eig.eigenvectors().rightCols(r);  // eigenvalues ascending

    // 3. Clusters of the histories that have a future; the others by their last observation.
    DefaultRng g = stream(options.seed, 0, 1);
    const std::vector<std::size_t> label = detail::weighted_kmeans(points, n1, L, g);
    std::vector<std::size_t> cluster(H, 0);
    Eigen::MatrixXd by_observation = Eigen::MatrixXd::Zero(detail::eidx(O), detail::eidx(L));
    auto last_observation = [&](std::size_t h) { return h < O ? h : (h - O) % O; };
    for (std::size_t i = 0; i < H; ++i)
        if (n1[detail::eidx(i)] > 0.0) {
            cluster[i] = label[i];
            by_observation(detail::eidx(last_observation(histories[i])), detail::eidx(label[i])) += n1[detail::eidx(i)];
        }
    for (std::size_t i = 0; i < H; ++i)
        if (!(n1[detail::eidx(i)] > 0.0)) {
            const auto row = by_observation.row(detail::eidx(last_observation(histories[i])));
            Eigen::Index best = 0;
            if (row.sum() > 0.0) row.maxCoeff(&best);  // the first maximum: the lowest index on ties
            cluster[i] = static_cast<std::size_t>(best);
        }

    // 4. Hard counts, then the mixed rows.
    const auto l = detail::eidx(L), o = detail::eidx(O);
    Eigen::VectorXd initial = Eigen::VectorXd::Zero(l);
    std::vector<Eigen::MatrixXd> transitions(A, Eigen::MatrixXd::Zero(l, l));
    std::vector<Eigen::MatrixXd> emissions(per_action ? A : 1, Eigen::MatrixXd::Zero(l, o));
    Eigen::MatrixXd first = Eigen::MatrixXd::Zero(l, o);
    for (const auto& s : train) {
        std::size_t previous = 0;
        for (std::size_t k = 0; k < s.observations.size(); ++k) {
            const std::size_t z = cluster[row_of.at(history(s, k))];
            const auto zi = detail::eidx(z), oi = detail::eidx(s.observations[k]);
            if (k == 0) {
                initial[zi] += 1.0;
                (per_action ? first : emissions[0])(zi, oi) += 1.0;
            } else {
                const std::size_t a = s.actions[k - 1];
                transitions[a](detail::eidx(previous), zi) += 1.0;
                emissions[per_action ? a : 0](zi, oi) += 1.0;
            }
            previous = z;
        }
    }
    IohmmModel m;
    m.emission_model = options.emission;
    m.initial.resize(l);
    detail::mixed_row(m.initial, initial.transpose(), g);
    m.transitions.assign(A, Eigen::MatrixXd(l, l));
    for (std::size_t a = 0; a < A; ++a)
        for (Eigen::Index z = 0; z < l; ++z) detail::mixed_row(m.transitions[a].row(z), transitions[a].row(z), g);
    m.emissions.assign(emissions.size(), Eigen::MatrixXd(l, o));
    for (std::size_t k = 0; k < emissions.size(); ++k)
        for (Eigen::Index z = 0; z < l; ++z) detail::mixed_row(m.emissions[k].row(z), emissions[k].row(z), g);
    if (per_action) {
        m.initial_emission.resize(l, o);
        for (Eigen::Index z = 0; z < l; ++z) detail::mixed_row(m.initial_emission.row(z), first.row(z), g);
    } else {
        m.initial_emission = m.emissions[0];
    }
    return m;
}

}  // namespace maxent
