// maxent/belief/learned/score.hpp — how well a finite model predicts recorded action–observation
// sequences: the log-likelihood per observation, the number the learned-belief trainer
// reports for its held-out episodes (FitRecord::heldout_log_likelihood) and learning.csv
// lists for the learned and the true model.
//
//   score_sequences(model, sequences[, threads, block_size, stop]) -> SequenceScore
//     model: an IohmmModel (a learned one) or any FinitePomdp (the world's, a model file's,
//     the agent's learned model as to_finite_pomdp made it; taken through to_iohmm).
//     log_likelihood = Σ_n log P(o^n_1..o^n_{K+1} | a^n_1..a^n_K), the scaled forward pass of
//     iohmm.hpp, summed in blocks of `block_size` sequences added in index order: the same
//     arithmetic as fit_iohmm's held-out scores for the same block size (IohmmOptions::
//     block_size, 32 by default), so equal to them bit for bit, for any thread count.
//     per_observation = log_likelihood / (number of observations); -inf when a sequence is
//     impossible under the model.
// Errors: config_error for no sequences, a malformed sequence (naming it and the value), a
// block size of 0 or inconsistent model sizes; model_error for a model that is not a
// distribution (iohmm.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <span>

#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/belief/learned/to_pomdp.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace maxent {

/// The log-likelihood of a set of sequences under a model.
struct SequenceScore {
    double log_likelihood = 0.0;   ///< Σ over the sequences of log P(observations | actions)
    std::size_t sequences = 0;     ///< how many were scored
    std::size_t observations = 0;  ///< Σ over the sequences of K + 1
    double per_observation = 0.0;  ///< log_likelihood / observations
    bool stopped = false;          ///< cut short by the stop flag: nothing was scored (every other field 0)
};

/// The log-likelihood of `sequences` under the IOHMM `m`, in total and per observation (see
/// the header). `stop` (optional, must outlive the call): read before every sequence; once it
/// reads true the call returns SequenceScore{.stopped = true} (nothing else changes: the same
/// bits when it never does).
[[nodiscard]] inline SequenceScore score_sequences(const IohmmModel& m,
                                                   std::span<const ActionObservationSequence> sequences,
                                                   std::size_t threads = 1, std::size_t block_size = 32,
                                                   const std::atomic<bool>* stop = nullptr) {
    if (sequences.empty()) throw config_error("score_sequences: no sequences to score (the set is empty)");
    SequenceScore out;
    bool stopped = false;
    const double ll =
        detail::log_likelihood_in_blocks(m, sequences, threads, block_size, stop, stopped, "iohmm_log_likelihood");
    if (stopped) return SequenceScore{.stopped = true};
    out.log_likelihood = ll;
    out.sequences = sequences.size();
    for (const ActionObservationSequence& s : sequences) out.observations += s.observations.size();
    out.per_observation = out.log_likelihood / static_cast<double>(out.observations);
    return out;
}

/// score_sequences under a finite model (latent state = the model's state), through to_iohmm.
template <class State, class Action, class Observation>
[[nodiscard]] SequenceScore score_sequences(const FinitePomdp<State, Action, Observation>& m,
                                            std::span<const ActionObservationSequence> sequences,
                                            std::size_t threads = 1, std::size_t block_size = 32,
                                            const std::atomic<bool>* stop = nullptr) {
    return score_sequences(to_iohmm(m), sequences, threads, block_size, stop);
}

}  // namespace maxent
