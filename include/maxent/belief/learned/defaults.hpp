// maxent/belief/learned/defaults.hpp — the one set of learned-belief defaults. Every entry
// point reads this object: IohmmOptions (fit_iohmm), LearnedBeliefOptions
// (LearnedBeliefTrainer), the programs' learned-belief flags (maxent-paper's nosim
// experiments) and the Python module (train_learned, fit_belief_model, run_experiment; the
// module returns it from maxent.learned_belief_defaults()).
//
// The fit's three (smoothing, restarts, EM steps) were chosen by a measurement across the
// bundled worlds without a simulator (held-out log-likelihood per observation and the learned
// Reg-MBE that results): docs/performance.md, "Learned-belief defaults".
#pragma once

#include <array>
#include <cstddef>

namespace maxent {

/// The default of every learned-belief setting (see the header).
struct LearnedBeliefDefaults {
    double smoothing;            ///< Dirichlet (add-α) smoothing of every fitted distribution
    std::size_t restarts;        ///< random restarts of a first fit
    std::size_t em_iterations;   ///< EM steps of a first fit at most (IohmmOptions::max_iterations)
    std::size_t warmup;          ///< uniform-action episodes before the first fit
    std::size_t heldout;         ///< uniform-action episodes only scored
    std::size_t refit_every;     ///< training iterations between warm-started refits (0 = never)
    std::size_t refit_iterations;  ///< EM steps per refit at most
    std::size_t window;          ///< most recent training episodes in a refit's data
    bool learned_prior;          ///< the filter's b_1: the learned μ̂ (true) or uniform (false, the paper's)
};

inline constexpr LearnedBeliefDefaults learned_belief_defaults{
    .smoothing = 1e-3,
    .restarts = 3,
    .em_iterations = 200,
    .warmup = 500,
    .heldout = 200,
    .refit_every = 2000,
    .refit_iterations = 10,
    .window = 1000,
    .learned_prior = true,
};

/// The defaults of model selection on held-out logs (select.hpp: select_iohmm, select_cloned_hmm).
/// The bound 64: the doubling search on nosim2d at 500 episodes took about 3 CPU-minutes up to
/// L = 64 and had not ended after 4.4 up to 256 (docs/performance.md, "Choosing L").
struct SelectionDefaults {
    double heldout_fraction;            ///< share of the sequences held out to score the candidates
    std::size_t max_latent_states;      ///< the doubling search's largest L (IOHMM) or clone total (cloned HMM)
    std::array<double, 3> pseudo_counts;  ///< the Dirichlet pseudo-count grid α (c = α + 1)
    double standard_errors;             ///< the one-standard-error rule's k
};

inline constexpr SelectionDefaults selection_defaults{
    .heldout_fraction = 0.2,
    .max_latent_states = 64,
    .pseudo_counts = {1e-3, 1e-2, 1e-1},
    .standard_errors = 1.0,
};

}  // namespace maxent
