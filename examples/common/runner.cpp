// examples/common/runner.cpp — run_experiment and its jobs, and the grid worlds' trainers
// (train_seed.hpp; the model files' are in train_file.cpp).
#include "runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "maxent/core/parallel.hpp"

#include "policy_classes.hpp"
#include "run_store.hpp"
#include "train_seed.hpp"

namespace maxent::programs {

/// The trainer's settings for one (curve, seed) run.
TrainerConfig trainer_config(const Settings& s, std::uint64_t seed) {
    TrainerConfig config;
    config.iterations = s.iterations;
    config.batch = s.batch;
    config.seed = seed;
    config.counting = s.counting;
    config.track_belief_entropy = true;
    return config;
}

/// The learned-belief trainer's options for the settings' LearningSettings; L = 0 there means
/// the world's `num_states` (also used by the Python bindings, python/src/train.cpp).
LearnedBeliefOptions learned_options(const LearningSettings& ls, std::size_t num_states) {
    LearnedBeliefOptions o;
    o.fit.latent_states = ls.latent_states == 0 ? num_states : ls.latent_states;
    o.fit.smoothing = ls.smoothing;
    o.fit.restarts = ls.restarts;
    o.fit.max_iterations = ls.em_iterations;
    o.warmup_episodes = ls.warmup;
    o.heldout_episodes = ls.heldout;
    o.refit_every = ls.refit_every;
    o.refit_iterations = ls.refit_iterations;
    o.window = ls.window;
    o.learned_prior = ls.learned_prior;
    return o;
}

namespace {
/// config_error unless the list `xs` (the setting `what`) holds no value twice.
template <class T, class Show>
void no_repeats(const char* what, const std::vector<T>& xs, Show show) {
    std::vector<T> sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end()) throw config_error(cat("settings: ", what, " lists ", show(*twice), " twice"));
}
}  // namespace

void validate_settings(const Experiment& e, const Settings& s) {
    if (s.iterations == 0) throw config_error("settings: iterations must be >= 1, got 0");
    if (s.batch == 0) throw config_error("settings: batch must be >= 1, got 0");
    if (s.seeds.empty()) throw config_error("settings: seeds is empty");
    no_repeats("seeds", s.seeds, [](std::uint64_t x) { return std::to_string(x); });
    if (s.alpha && !(std::isfinite(*s.alpha) && *s.alpha > 0.0))
        throw config_error(cat("settings: alpha must be a finite number > 0, got ", format_number(*s.alpha)));
    if (!(std::isfinite(s.rho) && s.rho >= 0.0))
        throw config_error(cat("settings: rho must be a finite number >= 0, got ", format_number(s.rho)));
    auto objective = [](Objective o) { return std::string(name_of(o)); };
    if (s.objectives) no_repeats("objectives", *s.objectives, objective);
    if (s.noises) {
        if (s.noises->empty()) throw config_error("settings: noises is empty");
        for (const double n : *s.noises)
            if (!(n >= 0.0 && n <= 1.0))
                throw config_error(cat("settings: noises contains ", format_number(n),
                                       ", not a standard deviation in [0, 1]"));
        no_repeats("noises", *s.noises, [](double x) { return format_number(x); });
    }
    if (s.policies) {
        if (s.policies->empty()) throw config_error("settings: policies is empty");
        no_repeats("policies", *s.policies, [](PolicyClass p) { return std::string(name_of(p)); });
    }
    if (s.learned) no_repeats("learned", *s.learned, objective);
    const std::vector<Curve> curves = make_curves(e, s);
    std::vector<std::string> labels;
    bool learned = false;
    for (const Curve& c : curves) {
        labels.push_back(c.label);
        learned = learned || c.learned;
    }
    if (curves.empty())
        throw config_error("settings: no curve to train (the objectives and the learned-belief objectives are empty)");
    no_repeats("the curves", labels, [](const std::string& l) { return cat("the label '", l, "'"); });
    if (learned) learned_options(s.learning, 1).validate();  // L = 0 means S, which validate does not read
}

SeedRun run_curve_seed(const GridPomdp& model, const Curve& c, const Settings& s, std::uint64_t seed,
                       const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return training::curve_seed(model, c, s, seed, stop, iterations);
}

std::size_t pending_runs(const Experiment& e, const Settings& s, const RunCache* cache, const std::vector<char>* selected,
                         const RunStore* store) {
    std::size_t n = 0, j = 0;
    for (const Curve& c : make_curves(e, s))
        for (const std::uint64_t seed : s.seeds) {
            const bool wanted = selected == nullptr || selected->empty() || (*selected)[j] != 0;
            ++j;
            if (!wanted) continue;
            const std::string key = run_key(e.env, c, s, seed);
            const SeedRun* hit = cache != nullptr ? cache->find(key) : nullptr;
            if (hit != nullptr && kept_run_serves(*hit, s)) continue;
            if (store != nullptr && store->enabled()) {
                const std::optional<SeedRun> stored = store->load(key);
                if (stored && kept_run_serves(*stored, s)) continue;
            }
            ++n;
        }
    return n;
}

ExperimentResult run_experiment(const Experiment& e, const Settings& s, std::size_t threads, const std::atomic<bool>* stop,
                                ProgressCounters* progress, RunCache* cache, const std::vector<char>* selected,
                                const RunStore* store) {
    validate_settings(e, s);
    ExperimentResult result;
    result.experiment = &e;
    result.settings = s;
    if (selected != nullptr) result.selected = *selected;
    const std::vector<Curve> curves = make_curves(e, s);
    // Refused before any run starts (run_curve_seed would throw the same from its job).
    for (const Curve& c : curves) {
        if (c.policy != PolicyClass::belief_state) continue;
        if (c.learned) refuse_learned_class_b(c.policy, cat("curve '", c.label, "'"));
        if (s.estimator == EstimatorKind::per_step)
            throw config_error(cat("curve '", c.label, "': the per-step estimator needs per-step scores, which the "
                                   "belief-state class B (row-sparse table) does not record; choose another "
                                   "estimator or policy class"));
    }
    const GridPomdp model = e.env.build();
    const std::size_t seeds = s.seeds.size();

    // Jobs (curve-major, seed-minor); cached runs are not jobs.
    struct Job {
        std::size_t curve;
        std::size_t seed_index;
    };
    std::vector<Job> jobs;
    result.curves.resize(curves.size());
    for (std::size_t c = 0; c < curves.size(); ++c) {
        result.curves[c].curve = curves[c];
        result.curves[c].runs.resize(seeds);
        for (std::size_t i = 0; i < seeds; ++i) {
            result.curves[c].runs[i].seed = s.seeds[i];
            if (!result.is_selected(c, i)) continue;
            const std::string key = run_key(e.env, curves[c], s, s.seeds[i]);
            const SeedRun* hit = cache ? cache->find(key) : nullptr;
            if (hit != nullptr && !kept_run_serves(*hit, s)) hit = nullptr;
            std::optional<SeedRun> stored;
            if (hit == nullptr && store != nullptr) stored = store->load(key);
            if (stored && !kept_run_serves(*stored, s)) stored.reset();
            if (hit != nullptr || stored) {
                result.curves[c].runs[i] = hit != nullptr ? *hit : *stored;
                if (stored) {
                    ++result.reused;
                    if (cache) cache->insert(key, *stored);
                }
                if (progress) progress->runs_done[c].fetch_add(1);
            } else {
                jobs.push_back({c, i});
            }
        }
    }

    const auto start = std::chrono::steady_clock::now();
    std::vector<SeedRun> fresh = run_parallel(jobs.size(), threads, [&](std::size_t j) {
        const Job& job = jobs[j];
        SeedRun run = run_curve_seed(model, curves[job.curve], s, s.seeds[job.seed_index], stop,
                                     progress ? &progress->iterations : nullptr);
        if (store != nullptr && run.complete)
            store->save(run_key(e.env, curves[job.curve], s, s.seeds[job.seed_index]), run);
        if (progress && run.complete) progress->runs_done[job.curve].fetch_add(1);
        return run;
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    for (std::size_t j = 0; j < jobs.size(); ++j) {
        SeedRun& run = fresh[j];
        result.iterations_run += run.records.size();
        if (cache) cache->insert(run_key(e.env, curves[jobs[j].curve], s, run.seed), run);
        result.curves[jobs[j].curve].runs[jobs[j].seed_index] = std::move(run);
    }
    for (std::size_t c = 0; c < result.curves.size(); ++c)
        for (std::size_t i = 0; i < seeds; ++i)
            if (result.is_selected(c, i) && !result.curves[c].runs[i].complete) result.interrupted = true;
    for (const CurveRuns& c : result.curves)
        if (c.curve.policy == PolicyClass::belief_state) {
            const TableStats t = table_stats(c);
            if (t.runs > 0)
                std::fprintf(stderr,
                             "%s: %s: class B table per run: %.0f rows on average (max %zu), max %.2f MiB "
                             "(%zu runs)\n",
                             e.name.c_str(), c.curve.label.c_str(), t.mean_rows, t.max_rows,
                             static_cast<double>(t.max_bytes) / (1024.0 * 1024.0), t.runs);
        }
    return result;
}

}  // namespace maxent::programs
