// runtime/train_seed.hpp — run_curve_seed (runner.hpp) for model type M: one (curve, seed) run
// of Algorithm 1 through run_algorithm1 (algorithm.hpp), plain (the noisy exact filter) or with a
// learned belief model, turned into the runner's SeedRun. Internal to the runtime; used with
// M = IndexPomdp by runner.cpp (the grid worlds) and train_file.cpp (the model files' worlds),
// each copied into an IndexPomdp first (index_pomdp); its run_algorithm1 is algorithm_index.cpp's.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "maxent/model/pomdp_writer.hpp"

#include "algorithm_finite.hpp"
#include "policy_classes.hpp"
#include "runner.hpp"

namespace maxent::programs::training {

template <class M>
SeedRun curve_seed(const M& model, const Curve& c, const Settings& s, std::uint64_t seed,
                   const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    SeedRun run;
    run.seed = seed;
    RunControl control;
    control.stop = stop;
    control.iterations = iterations;
    Algorithm1Run r;
    std::optional<LearnedBelief> learned;
    if (c.learned) {
        refuse_learned_class_b(c.policy, cat("curve '", c.label, "'"));
        learned.emplace();
        learned->options = learned_options(s.learning, model.num_states());
        if (c.learner != "em") apply_learner(learned->options, c.learner, to_iohmm(model));
        if (learner_selects(c.learner)) {  // L (or the clones) chosen on the trainer's own warm-up episodes
            if (stop != nullptr && stop->load(std::memory_order_relaxed)) return run;
            bool stopped = false;
            run.selected = select_learned_model_for_run(model, learned->options, c.learner, s.learning,
                                                        trainer_config(s, seed), stop, stopped);
            if (stopped) return run;  // incomplete, as a run stopped in its first fit
        }
    }
    const std::size_t belief_states = learned ? learned->options.fit.latent_states : model.num_states();
    RunChoices choices{make_policy(c.policy, policy_rows(c.policy, model.num_observations(), belief_states),
                                   model.num_actions()),
                       AnyFeedback(c.objective, s.rho),
                       AnyEstimator(s.estimator),
                       AnyStep(s.step, s.effective_alpha()),
                       trainer_config(s, seed),
                       s.heatmap_episodes};
    if (learned) r = run_algorithm1(model, *learned, choices, control);
    else r = run_algorithm1(model, NoisyFilter<M>(BayesFilter<M>(model), c.noise), choices, control);
    run.records.reserve(r.trained.history.size());
    for (const IterationMetrics& m : r.trained.history)
        run.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
    run.complete = r.complete(choices.config);
    if (!run.complete) return run;
    run.visits = std::move(r.visits);
    if (const auto* b = std::get_if<TabularBeliefPolicy>(&*r.policy)) {
        const TableMemory mem = b->memory();
        run.table_rows = mem.rows;
        run.table_bytes = mem.bytes();
    }
    if (!learned) return run;
    run.fits = std::move(r.fits);
    try {  // the final learned model, for learned/<label>-seed<k>.pomdp (output.hpp)
        std::ostringstream text;
        write_pomdp_file(to_finite_pomdp(*r.learned_model, model.horizon()), text,
                         {.discount = std::nullopt,
                          .title = cat("final learned belief model of curve '", c.label, "', seed ", std::to_string(seed),
                                       " (", std::to_string(belief_states), " latent states)")});
        run.learned_model = text.str();
    } catch (const config_error&) {
        // per-action emissions: the POMDP format has no matrix for o_1, so no file
    }
    if (!r.heldout.empty()) {
        std::size_t n = 0;
        for (const auto& q : r.heldout) n += q.observations.size();
        run.truth_heldout = iohmm_log_likelihood(to_iohmm(model), r.heldout) / static_cast<double>(n);
    }
    return run;
}

}  // namespace maxent::programs::training
