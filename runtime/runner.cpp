// runtime/runner.cpp — run_experiment and its jobs, and run_curve_seed for the grid worlds
// (train_seed.hpp: a grid world is trained as the same world over indices, index_pomdp, by the
// run_algorithm1 compiled in algorithm_index.cpp, as the model files' worlds are).
#include "runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "maxent/belief/learned/select.hpp"
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

void apply_learner(LearnedBeliefOptions& o, const std::string& learner, const IohmmModel& truth) {
    if (find_learner(learner) == nullptr) throw config_error(cat("settings: unknown learner '", learner, "'"));
    const bool known_part = learner == "em-known-motion" || learner == "em-known-sensor";
    if (known_part && o.fit.latent_states != truth.num_latent_states())
        throw config_error(cat("settings: learner '", learner, "' holds the world's own matrices, so L must be the "
                               "world's S = ", std::to_string(truth.num_latent_states()), ", got ",
                               std::to_string(o.fit.latent_states)));
    if (learner == "em-sparse") {
        o.fit.prior.transitions = 0.1;
    } else if (learner == "em-spectral-select") {
        o.fit.spectral = true;
    } else if (learner == "cloned-hmm" || learner == "cloned-hmm-select") {
        // Clone transitions are sparse: pseudo-count 1e-3 (add-1 over L clones buried them:
        // position information 1.19 against 2.32 nats on nosim2d), and EM on clones converges
        // slowly: at least 1000 steps in the first fit (docs/performance.md).
        o.learner = BeliefLearner::cloned_hmm;
        o.fit.emission = EmissionModel::shared;
        o.fit.prior.initial = 1.001;
        o.fit.prior.transitions = 1.001;
        o.fit.max_iterations = std::max<std::size_t>(o.fit.max_iterations, 1000);
    } else if (learner == "em-known-motion") {
        o.fit.fixed = known_motion(truth);
    } else if (learner == "em-known-sensor") {
        o.fit.emission = truth.emission_model;
        o.fit.fixed = known_sensor(truth);
    }
}

SelectedModel select_learned_model(LearnedBeliefOptions& o, const std::string& learner,
                                   std::span<const ActionObservationSequence> warmup, const LearningSettings& ls,
                                   bool& stopped, SelectionReport* report) {
    if (!learner_selects(learner))
        throw config_error(cat("settings: learner '", learner, "' does not select its size"));
    const bool cloned = learner == "cloned-hmm-select";
    SelectionOptions so;
    so.split_seed = o.fit.seed;
    so.max_latent_states = ls.select_max_states;
    if (cloned) so.pseudo_counts = {1e-3};  // cloned-hmm's transition pseudo-count (apply_learner)
    so.refit = false;  // the trainer's first fit is the refit on all the warm-up episodes
    IohmmOptions base = o.fit;
    base.restarts = 1;
    SelectionReport own;
    SelectionReport& r = report != nullptr ? *report : own;
    r = cloned ? select_cloned_hmm(warmup, base, so) : select_iohmm(warmup, base, so);
    stopped = r.stopped || r.candidates.empty();
    if (stopped) return {};
    const SelectionCandidate& w = r.best();
    const std::size_t restarts = o.fit.restarts;
    o.fit = r.options;
    o.fit.restarts = restarts;
    o.fit.latent_states = w.latent_states;
    o.clones = r.clones;
    return {w.latent_states, w.pseudo_count, name_of(w.allocation), r.candidates.size()};
}

void validate_settings(const Experiment& e, const Settings& s) {
    if (s.iterations == 0) throw config_error("settings: iterations must be >= 1, got 0");
    if (s.batch == 0) throw config_error("settings: batch must be >= 1, got 0");
    if (s.seeds.empty()) throw config_error("settings: seeds is empty");
    require_no_repeats("settings", "seeds", s.seeds, [](std::uint64_t x) { return std::to_string(x); });
    if (s.alpha && !(std::isfinite(*s.alpha) && *s.alpha > 0.0))
        throw config_error(cat("settings: alpha must be a finite number > 0, got ", format_number(*s.alpha)));
    if (!(std::isfinite(s.rho) && s.rho >= 0.0))
        throw config_error(cat("settings: rho must be a finite number >= 0, got ", format_number(s.rho)));
    auto objective = [](Objective o) { return std::string(name_of(o)); };
    if (s.objectives) require_no_repeats("settings", "objectives", *s.objectives, objective);
    if (s.noises) {
        if (s.noises->empty()) throw config_error("settings: noises is empty");
        for (const double n : *s.noises)
            if (!(n >= 0.0 && n <= 1.0))
                throw config_error(cat("settings: noises contains ", format_number(n),
                                       ", not a standard deviation in [0, 1]"));
        require_no_repeats("settings", "noises", *s.noises, [](double x) { return format_number(x); });
    }
    if (s.policies) {
        if (s.policies->empty()) throw config_error("settings: policies is empty");
        require_no_repeats("settings", "policies", *s.policies, [](PolicyClass p) { return std::string(name_of(p)); });
    }
    if (s.learned) require_no_repeats("settings", "learned", *s.learned, objective);
    if (s.learning.learners.empty()) throw config_error("settings: learners is empty");
    for (const std::string& l : s.learning.learners)
        if (find_learner(l) == nullptr) throw config_error(cat("settings: learners lists '", l, "', not a learner"));
    require_no_repeats("settings", "learners", s.learning.learners, [](const std::string& l) { return l; });
    const std::vector<Curve> curves = make_curves(e, s);
    std::vector<std::string> labels;
    bool learned = false;
    for (const Curve& c : curves) {
        labels.push_back(c.label);
        learned = learned || c.learned;
    }
    if (curves.empty())
        throw config_error("settings: no curve to train (the objectives and the learned-belief objectives are empty)");
    require_no_repeats("settings", "the curves", labels,
                       [](const std::string& l) { return cat("the label '", l, "'"); });
    if (learned) learned_options(s.learning, 1).validate();  // L = 0 means S, which validate does not read
}

SeedRun run_curve_seed(const GridPomdp& model, const Curve& c, const Settings& s, std::uint64_t seed,
                       const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return training::curve_seed(index_pomdp(model), c, s, seed, stop, iterations);
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

/// CPU time of the calling thread (a run's cost, whatever else the machine runs).
static double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::uint64_t estimated_run_cost(const GridPomdp& model, const Curve& c, const Settings& s) {
    return run_cost(c) * static_cast<std::uint64_t>(s.iterations) * static_cast<std::uint64_t>(s.batch) *
           static_cast<std::uint64_t>(model.horizon()) * static_cast<std::uint64_t>(model.num_states());
}

std::vector<QueuedRun> run_longest_first(const std::vector<std::uint64_t>& costs, std::size_t threads,
                                         const std::function<SeedRun(std::size_t)>& job) {
    std::vector<std::size_t> order(costs.size());
    for (std::size_t j = 0; j < costs.size(); ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    const auto start = std::chrono::steady_clock::now();
    std::vector<QueuedRun> done = run_parallel(order.size(), threads, [&](std::size_t k) {
        const double cpu_start = thread_cpu_seconds();
        SeedRun run = job(order[k]);
        run.seconds = thread_cpu_seconds() - cpu_start;
        return QueuedRun{std::move(run),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    });
    std::vector<QueuedRun> out(done.size());
    for (std::size_t k = 0; k < order.size(); ++k) out[order[k]] = std::move(done[k]);
    return out;
}

std::vector<SeedRun> run_or_resume(const std::vector<std::string>& keys, const std::vector<std::uint64_t>& costs,
                                   const RunStore& store, std::size_t threads,
                                   const std::function<SeedRun(std::size_t)>& job, std::size_t& reused) {
    std::vector<SeedRun> runs(keys.size());
    std::vector<std::size_t> todo;
    std::vector<std::uint64_t> todo_costs;
    for (std::size_t j = 0; j < keys.size(); ++j) {
        if (std::optional<SeedRun> kept = store.load(keys[j])) {
            runs[j] = std::move(*kept);
            ++reused;
        } else {
            todo.push_back(j);
            todo_costs.push_back(costs[j]);
        }
    }
    std::vector<QueuedRun> done = run_longest_first(todo_costs, threads, [&](std::size_t k) {
        SeedRun run = job(todo[k]);
        store.save(keys[todo[k]], run);  // complete runs only
        return run;
    });
    for (std::size_t k = 0; k < todo.size(); ++k) runs[todo[k]] = std::move(done[k].run);
    return runs;
}

std::vector<ExperimentResult> run_experiments(const std::vector<ExperimentPlan>& plans, std::size_t threads,
                                              const std::atomic<bool>* stop, RunCache* cache) {
    std::vector<ExperimentResult> results(plans.size());
    std::vector<std::vector<Curve>> curves(plans.size());
    std::vector<GridPomdp> models;
    std::vector<IndexPomdp> worlds;  // models[p] over indices, copied once, what the jobs train
    models.reserve(plans.size());
    worlds.reserve(plans.size());
    for (std::size_t p = 0; p < plans.size(); ++p) {
        const Experiment& e = *plans[p].experiment;
        const Settings& s = plans[p].settings;
        validate_settings(e, s);
        curves[p] = make_curves(e, s);
        // Refused before any run starts (run_curve_seed would throw the same from its job).
        for (const Curve& c : curves[p]) {
            if (c.policy != PolicyClass::belief_state) continue;
            if (c.learned) refuse_learned_class_b(c.policy, cat("curve '", c.label, "'"));
            if (s.estimator == EstimatorKind::per_step)
                throw config_error(cat("curve '", c.label, "': the per-step estimator needs per-step scores, which the "
                                       "belief-state class B (row-sparse table) does not record; choose another "
                                       "estimator or policy class"));
        }
        models.push_back(e.env.build());
        worlds.push_back(index_pomdp(models.back()));
    }

    // A run's place in a plan's result; the jobs (each run to train once) and who needs them.
    struct Slot {
        std::size_t plan, curve, seed_index;
    };
    struct Job {
        std::string key;
        std::uint64_t cost = 0;
        std::vector<Slot> slots;  ///< slots.front() owns the job (its plan's model, settings and curve)
    };
    std::vector<Job> jobs;
    std::map<std::string, std::size_t> job_of_key;
    for (std::size_t p = 0; p < plans.size(); ++p) {
        const ExperimentPlan& plan = plans[p];
        const Settings& s = plan.settings;
        ExperimentResult& result = results[p];
        result.experiment = plan.experiment;
        result.settings = s;
        result.selected = plan.selected;
        result.curves.resize(curves[p].size());
        for (std::size_t c = 0; c < curves[p].size(); ++c) {
            result.curves[c].curve = curves[p][c];
            result.curves[c].runs.resize(s.seeds.size());
            for (std::size_t i = 0; i < s.seeds.size(); ++i) {
                result.curves[c].runs[i].seed = s.seeds[i];
                if (!result.is_selected(c, i)) continue;
                const std::string key = run_key(plan.experiment->env, curves[p][c], s, s.seeds[i]);
                const SeedRun* hit = cache ? cache->find(key) : nullptr;
                if (hit != nullptr && !kept_run_serves(*hit, s)) hit = nullptr;
                std::optional<SeedRun> stored;
                if (hit == nullptr && plan.store != nullptr) stored = plan.store->load(key);
                if (stored && !kept_run_serves(*stored, s)) stored.reset();
                if (hit != nullptr || stored) {
                    result.curves[c].runs[i] = hit != nullptr ? *hit : *stored;
                    if (stored) {
                        ++result.reused;
                        if (cache) cache->insert(key, *stored);
                    }
                    if (plan.progress) plan.progress->runs_done[plan.progress_curve_offset + c].fetch_add(1);
                    continue;
                }
                const auto [it, fresh] = job_of_key.try_emplace(key, jobs.size());
                if (fresh) jobs.push_back({key, estimated_run_cost(models[p], curves[p][c], s), {}});
                jobs[it->second].slots.push_back({p, c, i});
            }
        }
    }

    // Longest first; equal costs in plan and job order.
    std::vector<std::uint64_t> costs(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) costs[j] = jobs[j].cost;
    std::vector<QueuedRun> done = run_longest_first(costs, threads, [&](std::size_t j) {
        const Job& job = jobs[j];
        const Slot& own = job.slots.front();
        const ExperimentPlan& plan = plans[own.plan];
        SeedRun run = training::curve_seed(worlds[own.plan], curves[own.plan][own.curve], plan.settings,
                                           plan.settings.seeds[own.seed_index], stop,
                                           plan.progress ? &plan.progress->iterations : nullptr);
        if (run.complete) {
            const RunStore* saved = nullptr;
            for (const Slot& slot : job.slots) {
                const ExperimentPlan& p = plans[slot.plan];
                if (p.store != nullptr && p.store != saved) {
                    p.store->save(job.key, run);
                    saved = p.store;
                }
                if (p.progress) p.progress->runs_done[p.progress_curve_offset + slot.curve].fetch_add(1);
            }
        }
        return run;
    });

    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const Job& job = jobs[j];
        SeedRun& run = done[j].run;
        if (cache) cache->insert(job.key, run);
        for (std::size_t x = 0; x < job.slots.size(); ++x) {
            const Slot& slot = job.slots[x];
            ExperimentResult& result = results[slot.plan];
            result.seconds = std::max(result.seconds, done[j].finished);
            if (x == 0) {
                result.iterations_run += run.records.size();
            } else {
                ++result.shared;
            }
            SeedRun& place = result.curves[slot.curve].runs[slot.seed_index];
            place = x + 1 == job.slots.size() ? std::move(run) : run;
            if (x > 0) place.seconds = 0.0;  // trained once, for the first
        }
    }
    for (std::size_t p = 0; p < plans.size(); ++p) {
        ExperimentResult& result = results[p];
        for (std::size_t c = 0; c < result.curves.size(); ++c)
            for (std::size_t i = 0; i < result.settings.seeds.size(); ++i)
                if (result.is_selected(c, i) && !result.curves[c].runs[i].complete) result.interrupted = true;
        for (const CurveRuns& c : result.curves)
            if (c.curve.policy == PolicyClass::belief_state) {
                const TableStats t = table_stats(c);
                if (t.runs > 0)
                    std::fprintf(stderr,
                                 "%s: %s: class B table per run: %.0f rows on average (max %zu), max %.2f MiB "
                                 "(%zu runs)\n",
                                 result.experiment->name.c_str(), c.curve.label.c_str(), t.mean_rows, t.max_rows,
                                 static_cast<double>(t.max_bytes) / (1024.0 * 1024.0), t.runs);
            }
    }
    return results;
}

void append_run_times(const std::string& path, const std::vector<ExperimentPlan>& plans,
                      const std::vector<ExperimentResult>& results) {
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (f == nullptr) throw output_error(cat("MAXENT_RUN_TIMES: cannot open '", path, "' for appending"));
    for (std::size_t p = 0; p < results.size() && p < plans.size(); ++p) {
        const ExperimentResult& r = results[p];
        const GridPomdp model = r.experiment->env.build();
        for (const CurveRuns& c : r.curves)
            for (const SeedRun& run : c.runs)
                if (run.seconds > 0.0)
                    std::fprintf(f, "%s,%s,%llu,%llu,%.6f\n", r.experiment->name.c_str(), c.curve.label.c_str(),
                                 static_cast<unsigned long long>(run.seed),
                                 static_cast<unsigned long long>(estimated_run_cost(model, c.curve, plans[p].settings)),
                                 run.seconds);
    }
    if (std::fclose(f) != 0) throw output_error(cat("MAXENT_RUN_TIMES: cannot write '", path, "'"));
}

ExperimentResult run_experiment(const Experiment& e, const Settings& s, std::size_t threads, const std::atomic<bool>* stop,
                                ProgressCounters* progress, RunCache* cache, const std::vector<char>* selected,
                                const RunStore* store) {
    ExperimentPlan plan;
    plan.experiment = &e;
    plan.settings = s;
    if (selected != nullptr) plan.selected = *selected;
    plan.store = store;
    plan.progress = progress;
    return std::move(run_experiments({plan}, threads, stop, cache).front());
}

}  // namespace maxent::programs
