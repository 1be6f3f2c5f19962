// maxent/belief/learned/to_pomdp.hpp — a learned IOHMM as the agent's FinitePomdp, and a
// FinitePomdp as an IOHMM.
//
// The agent's belief model need not be the world's (docs/architecture.md, "the world and the
// agent"): `to_finite_pomdp` turns a model learned from the agent's own actions and
// observations into a FinitePomdp over its L latent states, which BayesFilter accepts as the
// agent's model while the world stays the real one. `to_iohmm` goes the other way, to score
// data under the true model.
#pragma once

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace maxent {

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
