// examples/explore/explore.hpp — maxent-explore's work on a model file: Algorithm 1 for every
// (objective, policy class, seed), the uniformly random policy as the baseline, the printed
// table and the output files.
//
// Paper, Algorithm 1 (Section 4) run on a model read by model/pomdp_file.hpp, with the
// true-state entropy H(d(τ_S)) of Section 2.1 as the measure of exploration. Training is the
// programs' runtime (runtime/runner.hpp run_curve_seed, one job per (curve, seed) through
// run_parallel, so results do not depend on the thread count), and so are the files
// (runtime/output.hpp: runs.csv, summary.csv with 95% Student-t bands, curves.gp/png, and
// learned/<label>-seed<k>.pomdp, the final model of each learned-belief run);
// config.json is this program's own (it describes a model file, not a grid world).
//
// The two numbers compared, per seed, then as mean and 95% Student-t interval over the seeds
// (core/statistics.hpp two_pass_mean_interval; one seed: the interval is the mean):
//   learned  the mean of the batch means of the last final_window(K) = max(1, ceil(K / 10))
//            iterations (each batch mean is over N episodes);
//   uniform  the mean of H(d(τ_S)) over M episodes of the uniformly random policy
//            π(a | i) = 1 / A, M = final_window(K) · N by default (runtime/uniform.hpp: its
//            streams are disjoint from the training's; computed once per seed).
// The best achievable values (objective/state_observed.hpp) put both in perspective.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/objective/state_observed.hpp"
#include "maxent/policy/concepts.hpp"

#include "runtime/choices.hpp"
#include "runtime/config_json.hpp"
#include "runtime/experiments.hpp"
#include "runtime/output.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/text.hpp"
#include "runtime/uniform.hpp"
#include "cli.hpp"

namespace maxent::explore {

using Model = PomdpFile::Model;

// ---------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------

/// The name a model file's outputs are filed under: the file name without its last
/// extension, made safe by programs::safe_folder_name ('/', '\\' and control characters
/// become '_', leading dots are dropped; "model" when nothing is left): "tiger.95" for
/// tiger.95.POMDP, "model" for "...pomdp" (whose stem is ".."), never a path outside --out.
[[nodiscard]] inline std::string model_folder_name(const std::filesystem::path& path) {
    return programs::safe_folder_name(path.stem().string(), "model");
}

/// A model file as read, with the name its outputs are filed under.
struct LoadedModel {
    std::filesystem::path path;
    std::string name;  ///< model_folder_name(path) ("tiger.95"); also the name in titles and config.json
    PomdpFile file;
};

/// The horizon T used when --horizon is not given: max(S, min_default_horizon). T = S lets
/// every state be visited once (the paper's choice), but on tiny models it leaves too few
/// actions to learn anything (tiger, S = 2: one action).
[[nodiscard]] inline std::size_t default_horizon(std::size_t states) {
    return std::max(states, min_default_horizon);
}

/// Reads `path` with horizon T (0 = default_horizon(S)) and the empty-row policy. Throws
/// parse_error.
[[nodiscard]] inline LoadedModel load_model(const std::filesystem::path& path, std::size_t horizon,
                                            EmptyRows empty_rows) {
    ReadOptions o;
    o.horizon = horizon;
    o.empty_transition_rows = empty_rows;
    LoadedModel lm{path, model_folder_name(path), read_pomdp_file(path, o)};
    if (horizon == 0 && lm.file.model.num_states() < min_default_horizon) {  // read again with T = 10
        o.horizon = default_horizon(lm.file.model.num_states());
        lm.file = read_pomdp_file(path, o);
    }
    return lm;
}

/// What the outputs say about the model (config.json's "model"; a merge reads it back from
/// the shards' config.json instead of the model file).
struct ModelFacts {
    std::string file;  ///< the path as given
    std::string name;  ///< model_folder_name
    std::size_t states = 0, actions = 0, observations = 0, horizon = 0;
    std::optional<double> discount;
    EmptyRows empty_rows = EmptyRows::error;
    std::size_t absorbing_rows = 0;
};

[[nodiscard]] inline ModelFacts facts_of(const LoadedModel& lm, EmptyRows empty_rows) {
    const Model& m = lm.file.model;
    return {lm.path.string(), lm.name,    m.num_states(), m.num_actions(), m.num_observations(), m.horizon(),
            lm.file.discount, empty_rows, lm.file.absorbing_rows.size()};
}

/// "S = 2 states, A = 3 actions, O = 2 observations, T = 2".
[[nodiscard]] inline std::string describe(const ModelFacts& m) {
    using programs::cat;
    return cat("S = ", std::to_string(m.states), " states, A = ", std::to_string(m.actions), " actions, O = ",
               std::to_string(m.observations), " observations, T = ", std::to_string(m.horizon));
}
[[nodiscard]] inline std::string describe(const Model& m) {
    return describe(ModelFacts{"", "", m.num_states(), m.num_actions(), m.num_observations(), m.horizon(), {}, {}, 0});
}

/// What determines a run on this model apart from the curve, settings and seed (the key of
/// its file in the work area, run_store.hpp RunStore): the model file's bytes, T and the
/// empty-row rule.
[[nodiscard]] inline std::string model_key(const LoadedModel& lm, EmptyRows empty_rows) {
    std::ifstream in(lm.path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    char digest[24];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(programs::fnv1a64(bytes.str())));
    return programs::cat("model fnv1a64 ", digest, " size ", std::to_string(bytes.str().size()), "|T=",
                         std::to_string(lm.file.model.horizon()), "|empty-rows=",
                         empty_rows == EmptyRows::self_loop ? "self-loop" : "error");
}

using programs::uniform_entropy;

// ---------------------------------------------------------------------------------------
// The best achievable value
// ---------------------------------------------------------------------------------------

using maxent::even_split_bound;
using maxent::state_observed_optimum;

// ---------------------------------------------------------------------------------------
// Training and results
// ---------------------------------------------------------------------------------------

/// The curves: one per (objective, policy class), labelled as maxent-paper labels them
/// ("mse" for BA alone, "mse/S" when another class or several are run).
[[nodiscard]] inline std::vector<programs::Curve> make_curves(const programs::Settings& s) {
    const programs::Experiment defaults{};  // no forced labels, no noise; s overrides the lists
    return programs::make_curves(defaults, s);
}

/// With learned-belief curves and K at or below the refit interval (the default K = 1000 <
/// --refit-every 2000), no refit ever happens: a one-line note saying so, printed under the
/// "learned beliefs:" summary line; "" otherwise.
[[nodiscard]] inline std::string refit_note(const std::vector<programs::Curve>& curves, const programs::Settings& s) {
    bool learned = false;
    for (const programs::Curve& c : curves) learned = learned || c.learned;
    const std::size_t every = s.learning.refit_every;
    if (!learned || (every != 0 && s.iterations > every)) return {};
    if (every == 0) return "--refit-every 0: no refit happens; the model stays the warm-up fit";
    return programs::cat("no refit happens: K = ", std::to_string(s.iterations),
                         s.iterations == every ? " = " : " < ", "--refit-every ", std::to_string(every),
                         "; the model stays the warm-up fit");
}

struct Result {
    programs::ExperimentResult runs;  ///< runs.experiment is null (there is no paper experiment)
    std::size_t window = 1;        ///< final_window(K)
    std::vector<maxent::MeanInterval> learned;  ///< per curve, over the seeds
    std::vector<double> uniform_per_seed;            ///< of uniform_seeds, in that order
    std::vector<std::uint64_t> uniform_seeds;        ///< every seed, or a shard's seeds
    maxent::MeanInterval uniform;
    std::size_t uniform_episodes = 0;  ///< per seed
    double uniform_seconds = 0.0;
    std::optional<double> state_observed;  ///< state_observed_optimum (empty: too large to enumerate)
};

/// Sets out.window and out.learned from the complete runs of out.runs.
inline void compute_learned(Result& out) {
    out.window = final_window(out.runs.settings.iterations);
    out.learned.clear();
    std::vector<double> values;
    for (const programs::CurveRuns& c : out.runs.curves) {
        values.clear();
        for (const programs::SeedRun& run : c.runs) {
            if (!run.complete) continue;
            double sum = 0.0;
            for (std::size_t k = run.records.size() - out.window; k < run.records.size(); ++k)
                sum += run.records[k].true_entropy;
            values.push_back(sum / static_cast<double>(out.window));
        }
        out.learned.push_back(values.empty() ? maxent::MeanInterval{}
                                             : maxent::two_pass_mean_interval(values, 0.95));
    }
}

/// Trains every curve on every seed and estimates the uniform baseline. `progress` and
/// `stop` may be null. When `stop` is set during the training (SIGINT, SIGTERM), only the
/// complete runs are kept (runs.interrupted is set; a curve without complete runs has a
/// learned value with n = 0) and the uniform baseline is skipped (uniform.n = 0).
/// Only the `selected` jobs run (empty: all; a shard, runtime/shards.hpp), and the uniform
/// baseline is computed for their seeds only. Runs found in `store` (may be null) under
/// `model_key` + run_store.hpp settings_key are reused; new complete runs are saved there.
[[nodiscard]] inline Result run(const Model& m, const programs::Settings& s, std::size_t uniform_episodes,
                                std::size_t threads, programs::ProgressCounters* progress = nullptr,
                                const std::atomic<bool>* stop = nullptr, const std::vector<char>& selected = {},
                                const programs::RunStore* store = nullptr, const std::string& model_key = {}) {
    Result out;
    programs::ExperimentResult& r = out.runs;
    r.settings = s;
    r.selected = selected;
    const std::vector<programs::Curve> curves = make_curves(s);
    const std::size_t seeds = s.seeds.size();
    r.curves.resize(curves.size());
    std::vector<std::size_t> jobs;
    for (std::size_t c = 0; c < curves.size(); ++c) {
        r.curves[c].curve = curves[c];
        r.curves[c].runs.resize(seeds);
        for (std::size_t i = 0; i < seeds; ++i) {
            r.curves[c].runs[i].seed = s.seeds[i];
            if (!r.is_selected(c, i)) continue;
            std::optional<programs::SeedRun> stored;
            if (store != nullptr) stored = store->load(model_key + programs::settings_key(curves[c], s, s.seeds[i]));
            if (stored) {
                r.curves[c].runs[i] = std::move(*stored);
                ++r.reused;
                if (progress) progress->runs_done[c].fetch_add(1);
            } else {
                jobs.push_back(c * seeds + i);
            }
        }
    }

    const auto start = std::chrono::steady_clock::now();
    std::vector<programs::SeedRun> fresh = run_parallel(jobs.size(), threads, [&](std::size_t x) {
        const std::size_t c = jobs[x] / seeds;
        const std::uint64_t seed = s.seeds[jobs[x] % seeds];
        programs::SeedRun run = programs::run_curve_seed(m, curves[c], s, seed, stop,
                                                   progress ? &progress->iterations : nullptr);
        if (store != nullptr && run.complete) store->save(model_key + programs::settings_key(curves[c], s, seed), run);
        if (progress && run.complete) progress->runs_done[c].fetch_add(1);
        return run;
    });
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t x = 0; x < fresh.size(); ++x) {
        r.iterations_run += fresh[x].records.size();
        r.curves[jobs[x] / seeds].runs[jobs[x] % seeds] = std::move(fresh[x]);
    }
    for (std::size_t c = 0; c < curves.size(); ++c)
        for (std::size_t i = 0; i < seeds; ++i)
            if (r.is_selected(c, i) && !r.curves[c].runs[i].complete) r.interrupted = true;

    compute_learned(out);
    if (r.interrupted) return out;  // no uniform baseline: the user asked to stop
    out.state_observed = state_observed_optimum(m, s.counting);

    out.uniform_episodes = uniform_episodes;
    for (std::size_t i = 0; i < seeds; ++i) {
        bool used = false;
        for (std::size_t c = 0; c < curves.size(); ++c) used = used || r.is_selected(c, i);
        if (used) out.uniform_seeds.push_back(s.seeds[i]);
    }
    if (out.uniform_seeds.empty()) return out;  // an empty shard
    const auto ustart = std::chrono::steady_clock::now();
    out.uniform_per_seed = run_parallel(out.uniform_seeds.size(), threads, [&](std::size_t i) {
        return uniform_entropy(m, s.counting, out.uniform_seeds[i], uniform_episodes);
    });
    out.uniform_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - ustart).count();
    out.uniform = maxent::two_pass_mean_interval(out.uniform_per_seed, 0.95);
    return out;
}

// ---------------------------------------------------------------------------------------
// The work, estimated before it starts
// ---------------------------------------------------------------------------------------

/// What a run will cost, before it starts. Every training step updates a dense belief over
/// the S states (the Bayes filter's prediction and observation weighting; the policy reads
/// it), so training costs about S belief-entry updates per step; the uniform baseline's
/// policy reads no belief, so its steps count once:
///   steps   = T x (curves x seeds x K x N  +  seeds x M)   (M: uniform episodes per seed)
///   updates = S x T x curves x seeds x K x N  +  T x seeds x M
/// Measured (Release, 2 busy cores) at about 1e8 updates per second and core: hallway at the
/// defaults (S = T = 60) is ~6e8; a model of 2e5 states at the default T = S would be ~6e15
/// (years), which is why main() refuses above --max-work before any work.
struct WorkEstimate {
    double steps = 0.0;
    double updates = 0.0;
};

[[nodiscard]] inline WorkEstimate estimate_work(std::size_t states, std::size_t horizon, std::size_t curves,
                                                const programs::Settings& s, std::size_t uniform_episodes) {
    const auto d = [](std::size_t x) { return static_cast<double>(x); };
    const double seeds = d(s.seeds.size());
    const double training = d(horizon) * d(curves) * seeds * d(s.iterations) * d(s.batch);
    const double uniform = d(horizon) * seeds * d(uniform_episodes);
    return {training + uniform, training * d(states) + uniform};
}

// ---------------------------------------------------------------------------------------
// The printed table
// ---------------------------------------------------------------------------------------

/// The table of learned vs uniform vs log S (see the header comment for what is averaged).
[[nodiscard]] inline std::string table(const ModelFacts& m, const Result& x) {
    using programs::cat;
    const std::size_t seeds = x.runs.settings.seeds.size();
    const std::size_t S = m.states;
    const double logS = std::log(static_cast<double>(S));
    const double even = even_split_bound(S, m.horizon);
    const double best = x.state_observed.value_or(even);  // the percentages' reference
    char buf[256];
    std::string t = cat("True-state entropy H(d(tau_S)) in nats: mean and 95% Student-t interval over ",
                        std::to_string(seeds), seeds == 1 ? " seed (one seed: no interval)\n" : " seeds\n");
    int width = 24;  // the name column: wider only for a longer label (an oracle's)
    for (const programs::CurveRuns& c : x.runs.curves)
        width = std::max(width, static_cast<int>(std::min<std::size_t>(c.curve.label.size() + (c.curve.learned ? 0 : 10), 120)));
    std::snprintf(buf, sizeof buf, "  %-*s %8s   %-20s %8s\n", width, "policy", "mean", "95% interval", "/ best");
    t += buf;
    auto row = [&](const std::string& name, const maxent::MeanInterval& ci) {
        if (ci.n == 0) {  // after an interruption
            std::snprintf(buf, sizeof buf, "  %-*s %8s   (%s)\n", width, name.c_str(), "-",
                          x.runs.selected.empty() || x.runs.interrupted ? "interrupted: no value" : "no run in this shard");
            t += buf;
            return;
        }
        char interval[64];
        std::snprintf(interval, sizeof interval, "[%.4f, %.4f]", ci.low, ci.high);
        std::snprintf(buf, sizeof buf, "  %-*s %8.4f   %-20s %7.1f%%\n", width, name.c_str(), ci.mean, interval,
                      best > 0.0 ? 100.0 * ci.mean / best : 0.0);
        t += buf;
    };
    row("uniform random", x.uniform);
    for (std::size_t c = 0; c < x.runs.curves.size(); ++c)
        row(x.runs.curves[c].curve.learned ? x.runs.curves[c].curve.label  // "learned-..." already: no "(learned)" marker
                                          : cat(x.runs.curves[c].curve.label, " (learned)"),
            x.learned[c]);
    if (x.state_observed) {
        std::snprintf(buf, sizeof buf, "  %-*s %8.4f   (best = any policy that sees the state)\n", width,
                      "best, true state seen", *x.state_observed);
        t += buf;
    }
    std::snprintf(buf, sizeof buf, "  %-*s %8.4f   (%s)\n", width, "even split of T states", even,
                  x.state_observed ? "T states counted as evenly as possible"
                                   : "best = this bound; too many states to enumerate");
    t += buf;
    std::snprintf(buf, sizeof buf, "  %-*s %8.4f\n", width, cat("log S = log ", std::to_string(S)).c_str(), logS);
    t += buf;
    const std::size_t N = x.runs.settings.batch;
    t += cat("learned = per seed, the mean of the batch means of the last ", std::to_string(x.window),
             x.window == 1 ? " iteration (" : " iterations (", std::to_string(x.window * N), " episodes);\n",
             x.uniform.n == 0 ? std::string("uniform = not computed (interrupted).\n")
                              : cat("uniform = per seed, the mean over ", std::to_string(x.uniform_episodes),
                                    " episodes of the uniformly random policy pi(a | i) = 1/A.\n"));
    return t;
}

// ---------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------

/// config.json: the model, every setting, the seeds, the curves with their final values and
/// the uniform baseline.
[[nodiscard]] inline std::string config_json(const ModelFacts& m, const Result& x, const programs::RunInfo& info) {
    using programs::cat;
    const programs::Settings& s = x.runs.settings;
    auto num = [](double v) { return programs::format_number(v); };
    auto str = [](std::string_view v) { return programs::json_string(v); };
    auto ci = [&](const maxent::MeanInterval& c) {
        return cat("\"mean\": ", num(c.mean), ", \"ci_low\": ", num(c.low), ", \"ci_high\": ", num(c.high),
                   ", \"n\": ", std::to_string(c.n));
    };
    std::string j = "{\n";
    auto field = [&](std::string_view name, const std::string& value, bool last = false) {
        j += cat("  ", str(name), ": ", value, last ? "\n" : ",\n");
    };
    field("program", str("maxent-explore"));
    field("maxent_version", str(info.version));
    if (!info.build.empty()) field("build", info.build);
    std::string model = cat("{\"file\": ", str(m.file), ", \"name\": ", str(m.name));
    model += cat(", \"states\": ", std::to_string(m.states), ", \"actions\": ", std::to_string(m.actions),
                 ", \"observations\": ", std::to_string(m.observations));
    model += cat(", \"horizon\": ", std::to_string(m.horizon), ", \"start\": \"the file's start (uniform if absent)\"");
    model += cat(", \"discount_ignored\": ", m.discount ? num(*m.discount) : std::string("null"));
    model += cat(", \"empty_rows\": ", str(m.empty_rows == EmptyRows::self_loop ? "self-loop" : "error"),
                 ", \"absorbing_rows_added\": ", std::to_string(m.absorbing_rows));
    model += ", \"initial_belief\": \"uniform\"}";
    field("model", model);
    std::string curves = "[";
    for (std::size_t i = 0; i < x.runs.curves.size(); ++i) {
        const programs::Curve& c = x.runs.curves[i].curve;
        curves += cat(i ? ", " : "", "{\"label\": ", str(c.label), ", \"objective\": ", str(programs::name_of(c.objective)),
                      ", \"policy_class\": ", str(programs::name_of(c.policy)), ", \"complete_runs\": ",
                      std::to_string(x.runs.curves[i].complete_runs()), ", \"final_true_entropy\": ",
                      x.learned[i].n == 0 ? std::string("null") : cat("{", ci(x.learned[i]), "}"),
                      programs::learned_curve_fields(x.runs.curves[i], s.learning));
        if (c.policy == programs::PolicyClass::belief_state) {  // the lazy table's size per run, as maxent-paper
            const programs::TableStats t = programs::table_stats(x.runs.curves[i]);
            curves += cat(", \"table_rows_mean\": ", num(t.mean_rows), ", \"table_rows_max\": ",
                          std::to_string(t.max_rows), ", \"table_bytes_mean\": ", num(t.mean_bytes),
                          ", \"table_bytes_max\": ", std::to_string(t.max_bytes));
        }
        curves += "}";
    }
    field("curves", cat(curves, "]"));
    field("final_window_iterations", std::to_string(x.window));
    field("uniform_policy", x.uniform.n == 0 ? std::string("null")
                                             : cat("{\"episodes_per_seed\": ", std::to_string(x.uniform_episodes),
                                                   ", \"true_entropy\": {", ci(x.uniform), "}}"));
    field("log_S", num(std::log(static_cast<double>(m.states))));
    field("even_split_bound", num(even_split_bound(m.states, m.horizon)));
    field("state_observed_optimum", x.state_observed ? num(*x.state_observed) : std::string("null"));
    programs::settings_fields(s, field);
    field("horizon", std::to_string(m.horizon));
    field("initial_parameters", str("zero"));
    field("plotted", str("true_entropy"));
    field("confidence", str("95% Student t across seeds, n - 1 degrees of freedom; n = 1: bounds = mean"));
    field("threads", std::to_string(info.threads));
    if (programs::has_learned_curves(x.runs)) programs::learning_fields(s.learning, m.states, field);
    if (x.runs.interrupted) field("interrupted", "true");  // (absent from a complete run's file)
    field("command_line", str(info.command_line), info.extra_fields.empty());
    for (std::size_t i = 0; i < info.extra_fields.size(); ++i)
        field(info.extra_fields[i].first, info.extra_fields[i].second, i + 1 == info.extra_fields.size());
    return j + "}\n";
}

/// Writes the set into `folder` (OUT/<model name>/, prepared before the training):
/// config.json, runs.csv, summary.csv, curves.gp and (gnuplot) curves.png, then commits it
/// (output.hpp: the set is replaced as a whole). Without a complete run (interrupted at
/// once), writes nothing and leaves the previous set.
inline programs::WrittenFiles write_outputs(programs::OutputFolder& folder, const ModelFacts& lm, const Result& x,
                                            const programs::RunInfo& info, bool plot, std::size_t smooth = 1) {
    using programs::cat;
    programs::WrittenFiles w;
    w.dir = folder.path();
    if (x.runs.complete_runs() == 0) {
        folder.discard();
        return w;
    }
    const std::filesystem::path& dir = folder.staging();
    const std::vector<programs::CurveSummary> summary = programs::summarize(x.runs, programs::Plotted::true_entropy);
    programs::write_file_atomically(dir / programs::output_name("runs.csv"), [&](std::FILE* f) { programs::write_runs_csv(f, x.runs); });
    programs::write_file_atomically(dir / programs::output_name("summary.csv"), [&](std::FILE* f) { programs::write_summary_csv(f, summary); });
    programs::write_string_atomically(dir / programs::output_name("config.json"), config_json(lm, x, info));
    if (programs::has_learned_curves(x.runs)) {  // as maxent-paper: every fit, and each run's final model
        programs::write_file_atomically(dir / programs::output_name("learning.csv"),
                                        [&](std::FILE* f) { programs::write_learning_csv(f, x.runs); });
        programs::write_learned_models(dir, x.runs);
    }

    programs::PlotSpec p;
    p.generator = cat("maxent-explore: ", lm.name);
    p.subject = cat(lm.name, ": ", describe(lm));
    p.states = lm.states;
    p.horizon = lm.horizon;
    p.plotted = programs::Plotted::true_entropy;
    p.smooth = smooth;
    if (x.state_observed) {
        char title[96];
        std::snprintf(title, sizeof title, "best, true state seen = %.3f", *x.state_observed);
        p.extra_lines.push_back({*x.state_observed, title, 4});
    }
    if (x.uniform.n > 0) {
        char title[96];
        std::snprintf(title, sizeof title, "uniform random policy = %.3f", x.uniform.mean);
        p.extra_lines.push_back({x.uniform.mean, title});
    }
    w.plot = programs::write_plot_script(dir, programs::gnuplot_script(p, x.runs, summary), plot, w.dir);
    folder.commit();
    w.wrote = true;
    return w;
}

}  // namespace maxent::explore
