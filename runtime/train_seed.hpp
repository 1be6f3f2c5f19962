// runtime/train_seed.hpp — the trainers behind run_curve_seed (runner.hpp): one
// (curve, seed) run of Algorithm 1 with policy class P on model M, plain (NoisyBelief over the
// exact Bayes filter) or with a learned belief model (LearnedBeliefTrainer). Internal to the
// runtime. Instantiated in two translation units, one per model type: runner.cpp (GridPomdp,
// in maxent_runtime_core, all that maxent-paper links) and train_file.cpp (FileModel, in
// maxent_runtime). Each model's plain and learned trainers share one unit: split further, the
// units took more compile time in all (each then inlines more) for no gain in the build's
// longest unit.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/model/pomdp_writer.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "components.hpp"
#include "policy_classes.hpp"
#include "runner.hpp"

namespace maxent::programs::training {

/// Runs the K iterations of `trainer` (anything with iterate() -> IterationMetrics) into
/// run.records, polling `stop` before each and counting each in `iterations` (both may be
/// null); marks the run complete unless stopped.
template <class T>
void record_iterations(T& trainer, const Settings& s, const std::atomic<bool>* stop,
                       std::atomic<std::uint64_t>* iterations, SeedRun& run) {
    run.records.reserve(s.iterations);
    for (std::size_t k = 0; k < s.iterations; ++k) {
        if (stop != nullptr && stop->load(std::memory_order_relaxed)) return;
        const IterationMetrics m = trainer.iterate();
        run.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
        if (iterations != nullptr) iterations->fetch_add(1, std::memory_order_relaxed);
    }
    run.complete = true;
}

template <class P, class M>
SeedRun train_seed(const M& model, std::size_t rows, const Curve& c, const Settings& s,
                   std::uint64_t seed, const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    using Updater = NoisyBelief<BayesFilter<M>>;
    Trainer<M, Updater, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
        model, Updater(BayesFilter<M>(model), c.noise), P(rows, model.num_actions()),
        AnyFeedback(c.objective, s.rho), AnyEstimator(s.estimator), AnyStep(s.step, s.effective_alpha()),
        trainer_config(s, seed));
    SeedRun run;
    run.seed = seed;
    record_iterations(trainer, s, stop, iterations, run);
    if (!run.complete) return run;
    if (s.heatmap_episodes > 0)
        run.visits = count_visits(model, trainer.updater(), trainer.policy(), s.counting, seed, s.heatmap_episodes);
    if constexpr (std::is_same_v<P, TabularBeliefPolicy>) {
        const TableMemory mem = trainer.policy().memory();
        run.table_rows = mem.rows;
        run.table_bytes = mem.bytes();
    }
    return run;
}

/// A learned-belief curve (Curve::learned) on one seed: LearnedBeliefTrainer with the
/// settings' LearningSettings; the world model is used by the environment only (and, after
/// training, to score the held-out episodes under the truth for learning.csv).
template <class P, class M>
SeedRun train_seed_learned(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                           const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    LearnedBeliefOptions o = learned_options(s.learning, model.num_states());
    if (c.learner != "em") apply_learner(o, c.learner, to_iohmm(model));
    o.fit.stop = stop;  // SIGINT/SIGTERM also cut an EM fit short, between its iterations
    const std::size_t L = o.fit.latent_states;
    const std::size_t rows = policy_rows(c.policy, model.num_observations(), L);
    SeedRun run;
    run.seed = seed;
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return run;
    LearnedBeliefTrainer<M, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
        model, P(rows, model.num_actions()), AnyFeedback(c.objective, s.rho), AnyEstimator(s.estimator),
        AnyStep(s.step, s.effective_alpha()), trainer_config(s, seed), o);
    record_iterations(trainer, s, stop, iterations, run);
    if (!run.complete) return run;
    run.fits = trainer.fits();
    try {  // the final learned model, for learned/<label>-seed<k>.pomdp (output.hpp)
        std::ostringstream text;
        write_pomdp_file(trainer.belief_model(), text,
                         {.discount = std::nullopt,
                          .title = cat("final learned belief model of curve '", c.label, "', seed ", std::to_string(seed),
                                       " (", std::to_string(L), " latent states)")});
        run.learned_model = text.str();
    } catch (const config_error&) {
        // per-action emissions: the POMDP format has no matrix for o_1, so no file
    }
    // The agent's filter as training left it: the last refit's learned model.
    if (s.heatmap_episodes > 0)
        run.visits = count_visits(model, trainer.trainer().updater(), trainer.policy(), s.counting, seed,
                                  s.heatmap_episodes);
    if (o.heldout_episodes > 0) {
        const auto held = trainer.heldout_episodes();
        std::size_t n = 0;
        for (const auto& q : held) n += q.observations.size();
        run.truth_heldout = iohmm_log_likelihood(to_iohmm(model), held) / static_cast<double>(n);
    }
    return run;
}

/// A plain curve (not Curve::learned) on one seed, for c.policy's class.
template <class M>
SeedRun train_plain(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                    const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return with_policy_class(c.policy, [&]<class P>(std::type_identity<P>) -> SeedRun {
        return train_seed<P>(model, policy_rows(c.policy, model.num_observations(), model.num_states()), c, s, seed,
                             stop, iterations);
    });
}

/// A learned-belief curve on one seed, for c.policy's class (class B refused).
template <class M>
SeedRun train_learned(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                      const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    refuse_learned_class_b(c.policy, cat("curve '", c.label, "'"));
    return with_policy_class(c.policy, [&]<class P>(std::type_identity<P>) -> SeedRun {
        if constexpr (std::is_same_v<P, TabularBeliefPolicy>)
            return {};  // refused above
        else
            return train_seed_learned<P>(model, c, s, seed, stop, iterations);
    });
}

/// run_curve_seed for model type M (instantiated once per M: runner.cpp for GridPomdp,
/// train_file.cpp for FileModel).
template <class M>
SeedRun curve_seed(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                   const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    static_assert(require_tabular_pomdp<M>());
    if (c.learned) return train_learned(model, c, s, seed, stop, iterations);
    return train_plain(model, c, s, seed, stop, iterations);
}

}  // namespace maxent::programs::training
