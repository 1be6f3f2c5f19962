// maxent/belief/learned_model.hpp — the whole learned-belief-model API in one include: belief
// models learned from what an agent records (its actions and observations), as an
// input–output hidden Markov model (IOHMM) over L latent states fitted by EM, then used as the
// agent's FinitePomdp.
//
//   learned/sequences.hpp  ActionObservationSequence, to_sequence, the CSV reader and writer
//   learned/iohmm.hpp      IohmmModel, its likelihood (iohmm_log_likelihood, iohmm_posteriors)
//   learned/em.hpp         fit_iohmm, refit_iohmm (EM with restarts), IohmmOptions, IohmmFit
//   learned/cloned_hmm.hpp fit_cloned_hmm, refit_cloned_hmm (cloned HMMs: latent states that are places)
//   learned/to_pomdp.hpp   to_finite_pomdp (the agent's model), to_iohmm (a world as an IOHMM)
//   learned/score.hpp      score_sequences: log-likelihood per observation of any finite model
//   learned/spectral.hpp   spectral_iohmm_start: an EM start read off the data's moments (IohmmOptions::spectral)
//   learned/select.hpp     select_iohmm, select_cloned_hmm: L, clone allocation and prior chosen on held-out logs
//   learned/defaults.hpp   learned_belief_defaults, the one set of defaults every entry point reads
#pragma once

#include "maxent/belief/learned/cloned_hmm.hpp"
#include "maxent/belief/learned/defaults.hpp"
#include "maxent/belief/learned/em.hpp"
#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/score.hpp"
#include "maxent/belief/learned/select.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/belief/learned/spectral.hpp"
#include "maxent/belief/learned/to_pomdp.hpp"
