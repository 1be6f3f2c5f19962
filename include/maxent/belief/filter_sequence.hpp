// maxent/belief/filter_sequence.hpp — what a finite model believes along one recorded
// action–observation sequence, in one call: the belief after each step and the log-likelihood
// of each observation, for a known model or one learned from data (no hand-written filter loop).
//
//   filter_sequence(model, sequence[, prior][, first]) -> FilteredSequence
//     model: any TabularPomdp (a known model; prior: the paper's uniform b_1 unless
//       `maxent::model_prior` (its μ) or a probability vector is given), or an IohmmModel
//       learned from data (prior: its learned μ̂ unless a vector is given; filtered through
//       to_finite_pomdp). `prior_kind` in the result says which prior was used.
//     sequence: actions a_1..a_K and observations o_1..o_T, T = K + 1 (ActionObservationSequence).
//   beliefs (T x S), row t-1 = b_t. FirstObservation::not_filtered (the default): b_1 = the
//     prior, as the agent's filter holds it in a rollout (the paper does not condition b_1 on
//     o_1), then b_{t+1} = B^{a_t o_{t+1}}(b_t): BayesFilter::update's bits. filtered: b_1 ∝
//     prior(s) P(o_1 | s) (the model's forward pass), then the same updates.
//   log_likelihood (T), entry t-1 = log P(o_t | the belief before o_t, a_{t-1}): for t = 1 the
//     prior's log Σ_s prior(s) P(o_1 | s). With `filtered` these are log P(o_t | o_1..o_{t-1},
//     a_1..a_{t-1}) and their sum is log P(o_1..o_T | a_1..a_K), what score_sequences gives the
//     sequence when the prior is the model's μ (to rounding).
// Cost: two O(S + nnz) passes per step (the predictive probability, then the update).
// Errors: config_error for a sequence without observations or with the wrong number of them,
// an action or observation out of range (naming the step, 1-based as the CSV's step column,
// and the value), a bad prior (as BayesFilter); zero_likelihood_error naming the step when o_t
// has probability 0 under the model given the belief before it (step() = t).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/belief/learned/to_pomdp.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

/// Whether b_1 is the prior itself (the paper's and the agent's b_1) or the prior conditioned on o_1.
enum class FirstObservation {
    not_filtered,  ///< b_1 = the prior; o_1 is scored, not filtered (the rollout's beliefs)
    filtered       ///< b_1 ∝ prior(s) P(o_1 | s): the model's forward pass (score_sequences' sum)
};

/// Which prior (the belief before o_1) a FilteredSequence started from.
enum class SequencePrior {
    uniform,  ///< U(S), the paper's b_1 (a known model's default)
    model,    ///< the known model's μ (maxent::model_prior)
    learned,  ///< a learned model's μ̂ (an IohmmModel's default)
    given     ///< a probability vector given by the caller
};

[[nodiscard]] inline const char* to_string(SequencePrior p) noexcept {
    switch (p) {
        case SequencePrior::uniform: return "uniform";
        case SequencePrior::model: return "model";
        case SequencePrior::learned: return "learned";
        case SequencePrior::given: return "given";
    }
    return "?";
}

/// The beliefs and per-step log-likelihoods along one sequence (see the header).
struct FilteredSequence {
    Eigen::MatrixXd beliefs;         ///< T x S: row t-1 = b_t
    Eigen::VectorXd log_likelihood;  ///< T: entry t-1 = log P(o_t | the belief before o_t, a_{t-1})
    Eigen::VectorXd prior;           ///< the belief before o_1
    SequencePrior prior_kind = SequencePrior::uniform;
    FirstObservation first_observation = FirstObservation::not_filtered;
};

namespace detail {

/// Sizes and ranges of the sequence against the model's, naming the step and the value.
template <class M>
void check_filter_sequence(const M& m, const ActionObservationSequence& s) {
    // "filter_sequence: " or "filter_sequence: sequence 'id', "
    const std::string who = s.id.empty() ? std::string("filter_sequence: ")
                                         : detail::message("filter_sequence: sequence '", s.id, "', ");
    if (s.observations.empty()) throw config_error(detail::message(who, "no observations (it needs o_1)"));
    if (s.observations.size() != s.actions.size() + 1)
        throw config_error(detail::message(who, s.actions.size(), " actions and ", s.observations.size(),
                                           " observations; it needs one more observation than actions"));
    for (std::size_t k = 0; k < s.observations.size(); ++k) {
        if (k < s.actions.size() && s.actions[k] >= m.num_actions())
            throw config_error(detail::message(who, "step ", k + 1, ": action ", s.actions[k], " is outside [0, ",
                                               m.num_actions(), ")"));
        if (s.observations[k] >= m.num_observations())
            throw config_error(detail::message(who, "step ", k + 1, ": observation ", s.observations[k],
                                               " is outside [0, ", m.num_observations(), ")"));
    }
}

/// The loop behind every overload: `filter` holds the model and the prior.
template <class M>
FilteredSequence filter_sequence_with(BayesFilter<M>& filter, const ActionObservationSequence& s, SequencePrior kind,
                                      FirstObservation first) {
    const M& m = filter.model();
    check_filter_sequence(m, s);
    const std::size_t T = s.observations.size();
    const auto S = static_cast<Eigen::Index>(filter.num_states());
    FilteredSequence out;
    out.prior = filter.prior();
    out.prior_kind = kind;
    out.first_observation = first;
    out.beliefs.resize(static_cast<Eigen::Index>(T), S);
    out.log_likelihood.resize(static_cast<Eigen::Index>(T));

    // o_1: P(o_1 | prior) = Σ_s prior(s) P(o_1 | s) / Σ_s prior(s), in ascending s.
    const std::size_t o1 = s.observations[0];
    Eigen::VectorXd b = out.prior;
    Eigen::VectorXd weighted = Eigen::VectorXd::Zero(S);
    double z = 0.0, mass = 0.0;
    for (Eigen::Index st = 0; st < S; ++st) {
        mass += b[st];
        if (b[st] == 0.0) continue;
        weighted[st] = b[st] * m.initial_observation(static_cast<std::size_t>(st))(o1);
        z += weighted[st];
    }
    if (!(z > 0.0) || !std::isfinite(z))
        throw zero_likelihood_error(  // no action comes before o_1: action() is unknown_step
            unknown_step, o1, 1,
            detail::message("filter_sequence: step 1: observation ", o1, " (", detail::describe_observation(m, o1),
                            ") has probability ", z, " under the prior (", to_string(kind),
                            "): no state the prior holds emits it first"));
    out.log_likelihood[0] = std::log(z / mass);
    if (first == FirstObservation::filtered) b = weighted / z;
    out.beliefs.row(0) = b.transpose();
    for (std::size_t t = 1; t < T; ++t) {
        const std::size_t a = s.actions[t - 1], o = s.observations[t];
        const double p = filter.predicted_observation_probability(b, a, o);
        filter.update(b, a, o, t + 1);  // zero_likelihood_error naming step t + 1 when p == 0
        out.log_likelihood[static_cast<Eigen::Index>(t)] = std::log(p);
        out.beliefs.row(static_cast<Eigen::Index>(t)) = b.transpose();
    }
    return out;
}

}  // namespace detail

/// A known model from the paper's uniform prior b_1 = U(S).
template <class M>
[[nodiscard]] FilteredSequence filter_sequence(const M& model, const ActionObservationSequence& sequence,
                                               FirstObservation first = FirstObservation::not_filtered) {
    static_assert(require_tabular_pomdp<M>());
    BayesFilter<M> f(model);
    return detail::filter_sequence_with(f, sequence, SequencePrior::uniform, first);
}

/// A known model from its own initial distribution μ.
template <class M>
[[nodiscard]] FilteredSequence filter_sequence(const M& model, const ActionObservationSequence& sequence, ModelPrior,
                                               FirstObservation first = FirstObservation::not_filtered) {
    static_assert(require_tabular_pomdp<M>());
    BayesFilter<M> f(model, model_prior);
    return detail::filter_sequence_with(f, sequence, SequencePrior::model, first);
}

/// A known model from a given prior (validated as BayesFilter::set_prior).
template <class M>
[[nodiscard]] FilteredSequence filter_sequence(const M& model, const ActionObservationSequence& sequence,
                                               const Eigen::Ref<const Eigen::VectorXd>& prior,
                                               FirstObservation first = FirstObservation::not_filtered) {
    static_assert(require_tabular_pomdp<M>());
    BayesFilter<M> f(model, prior);
    return detail::filter_sequence_with(f, sequence, SequencePrior::given, first);
}

/// A learned model from its learned initial distribution μ̂ (to_finite_pomdp's, renormalised).
[[nodiscard]] inline FilteredSequence filter_sequence(const IohmmModel& learned, const ActionObservationSequence& sequence,
                                                      FirstObservation first = FirstObservation::not_filtered) {
    const auto agent = to_finite_pomdp(learned, std::max<std::size_t>(1, sequence.observations.size()));
    BayesFilter f(agent, model_prior);
    return detail::filter_sequence_with(f, sequence, SequencePrior::learned, first);
}

/// A learned model from a given prior over its latent states.
[[nodiscard]] inline FilteredSequence filter_sequence(const IohmmModel& learned, const ActionObservationSequence& sequence,
                                                      const Eigen::Ref<const Eigen::VectorXd>& prior,
                                                      FirstObservation first = FirstObservation::not_filtered) {
    const auto agent = to_finite_pomdp(learned, std::max<std::size_t>(1, sequence.observations.size()));
    BayesFilter f(agent, prior);
    return detail::filter_sequence_with(f, sequence, SequencePrior::given, first);
}

}  // namespace maxent
