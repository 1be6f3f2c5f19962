// examples/paper/main.cpp — maxent-paper: runs the paper's experiments by name and writes
// their CSV files, config and plot (paper, Section 6 and Appendix D; see cli.hpp for the
// command line, experiments.hpp for the registry, output.hpp for the files).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <optional>
#include <cstdio>
#include <exception>
#include <new>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "maxent/core/error.hpp"

#include "runtime/cli.hpp"
#include "runtime/config_json.hpp"
#include "runtime/experiments.hpp"
#include "runtime/fingerprint.hpp"
#include "runtime/merge.hpp"
#include "runtime/output.hpp"
#include "runtime/policy_classes.hpp"
#include "runtime/progress.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/shards.hpp"
#include "runtime/signals.hpp"
#include "runtime/text.hpp"
#include "runtime/threads.hpp"
#include "runtime/uniform_baseline.hpp"

#ifndef MAXENT_VERSION
#define MAXENT_VERSION "unknown"
#endif

namespace {

/// The study fields of maxent-paper's shard (what must be equal for shards to be merged).
maxent::programs::Fields study_fields(const maxent::programs::Experiment& e, const maxent::programs::Settings& s) {
    namespace mp = maxent::programs;
    mp::Fields f{{"experiment", e.name}, {"environment", e.env.describe()}};
    for (auto& x : mp::study_settings_fields(mp::make_curves(e, s), s)) f.push_back(std::move(x));
    f.emplace_back("learning", s.learning.key());
    f.emplace_back("heatmap_episodes", std::to_string(s.heatmap_episodes));
    return f;
}

/// Refuses up front, as a bad command line (exit 2), learned-belief settings that would fail
/// during the run: the belief-state class B with a learned model (--policies), a model or
/// training data larger than this machine's memory (--latent-states, --warmup, --window).
void check_learned_settings(const maxent::programs::Experiment& e, const maxent::programs::Settings& s) {
    namespace mp = maxent::programs;
    bool learned = false;
    for (const mp::Curve& c : mp::make_curves(e, s)) {
        if (!c.learned) continue;
        learned = true;
        if (c.policy == mp::PolicyClass::belief_state)
            throw mp::usage_error(mp::cat("--policies: curve '", c.label, "' of ", e.name, ": ",
                                          mp::learned_class_b_refusal));
    }
    if (!learned) return;
    const maxent::GridPomdp m = e.env.build();
    const mp::LearningSettings& l = s.learning;
    const std::size_t latent = l.latent_states == 0 ? m.num_states() : l.latent_states;
    const auto T = static_cast<double>(m.horizon());
    mp::require_memory(mp::cat("--latent-states ", std::to_string(latent), l.latent_states == 0 ? " (the world's S)" : ""),
                       mp::cat(e.name, "'s learned model"),
                       mp::iohmm_fit_bytes(static_cast<double>(latent), static_cast<double>(m.num_actions()),
                                           static_cast<double>(m.num_observations()), T));
    mp::require_memory(mp::cat("--warmup ", std::to_string(l.warmup), ", --window ", std::to_string(l.window)),
                       mp::cat(e.name, "'s recorded training episodes"),
                       mp::episodes_bytes(static_cast<double>(l.warmup) + static_cast<double>(l.window) +
                                              static_cast<double>(l.heldout),
                                          T));
}

/// The files of a written experiment folder, for the "wrote DIR/{...}" line.
std::string written_names(const maxent::programs::ExperimentResult& r, const maxent::programs::WrittenFiles& w) {
    namespace mp = maxent::programs;
    std::string names = "config.json,runs.csv,summary.csv,uniform.csv,curves.gp";
    if (mp::has_learned_curves(r)) names += ",learning.csv,learned/*.pomdp";
    if (w.plot.drawn) names += ",curves.png";
    if (w.heatmaps) names += ",heatmap.csv,heatmap.gp";
    if (w.heatmap.drawn) names += ",heatmap.png";
    return names;
}

/// Prints what became of the heatmaps' PNG (gnuplot not run or missing: the reason; drawn:
/// where); returns false when gnuplot failed (an error, said on stderr).
bool report_heatmap(const std::string& experiment, const maxent::programs::WrittenFiles& w) {
    if (!w.heatmaps) return true;
    if (w.heatmap.failed) {
        std::fprintf(stderr, "maxent-paper: error: %s: heatmaps: %s\n", experiment.c_str(), w.heatmap.message.c_str());
        return false;
    }
    std::printf("  heatmaps: %s\n", w.heatmap.message.c_str());
    return true;
}

/// What maxent-paper's merge assembles from one experiment's shards.
struct Merged {
    const maxent::programs::Experiment* experiment = nullptr;
    maxent::programs::ExperimentResult result;
    std::size_t smooth = 1;           ///< the shards' --smooth, so the merged plot is the one-process plot
    bool heatmap_own_scales = false;  ///< the shards' --heatmap-scale, likewise
    bool plot = true;                 ///< no shard said --no-plot
};

/// maxent-paper merge SHARD_DIR... --out DIR (merge.hpp merge_command).
int merge_main(const std::vector<std::string>& args) {
    namespace mp = maxent::programs;
    using Group = mp::MergeGroup<mp::Options, Merged>;
    auto experiment_of = [](const mp::ShardFolder& s) {
        const mp::Json* name = s.config.find("experiment");
        const mp::Experiment* e = name ? mp::find_experiment(name->text) : nullptr;
        if (e == nullptr) throw mp::merge_error(mp::cat("'", s.dir.string(), "': config.json names no known experiment"));
        return e->name;
    };
    auto study = [](const mp::Options& o, const mp::ShardFolder&, const std::string& experiment) {
        return study_fields(*mp::find_experiment(experiment), o.settings);
    };
    auto assemble = [](Group& g) {
        Merged& m = g.data;
        m.experiment = mp::find_experiment(g.key);
        const mp::Settings& settings = g.options.front().settings;
        m.smooth = g.options.front().smooth;
        m.heatmap_own_scales = g.options.front().heatmap_own_scales;
        for (const mp::Options& o : g.options) m.plot = m.plot && o.plot;
        m.result.experiment = m.experiment;
        m.result.settings = settings;
        for (const mp::Curve& c : mp::make_curves(*m.experiment, settings))
            m.result.curves.push_back({c, std::vector<mp::SeedRun>(settings.seeds.size())});
        mp::place_runs(g.shards, m.result);
    };
    auto write = [](Group& g, const mp::MergeOptions& options) {
        const Merged& m = g.data;
        mp::OutputFolder folder = mp::experiment_folder(options.out, *m.experiment);
        const mp::WrittenFiles w =
            mp::write_experiment(folder, m.result, mp::uniform_runs(m.result, 0), g.info,
                                 {options.plot && m.plot, m.smooth, m.heatmap_own_scales});
        std::printf("%s: merged %zu shard%s: %zu runs (%zu curves x %zu seeds, K = %zu)\n", m.experiment->name.c_str(),
                    g.shards.size(), g.shards.size() == 1 ? "" : "s", m.result.complete_runs(), m.result.curves.size(),
                    m.result.settings.seeds.size(), m.result.settings.iterations);
        std::printf("  wrote %s/{%s}\n", w.dir.string().c_str(), written_names(m.result, w).c_str());
        bool ok = true;
        if (w.plot.failed) {
            ok = false;
            std::fprintf(stderr, "maxent-paper: error: %s: %s\n", m.experiment->name.c_str(), w.plot.message.c_str());
        } else if (!w.plot.drawn) {
            std::printf("  %s\n", w.plot.message.c_str());
        }
        if (!report_heatmap(m.experiment->name, w)) ok = false;
        return ok;
    };
    return mp::merge_command<mp::Options, Merged>(
        "maxent-paper", MAXENT_VERSION, args, [] { return mp::help_text(); }, experiment_of,
        [](const std::vector<std::string>& a) { return mp::parse_command_line(a); }, study, assemble, write);
}

}  // namespace

int main(int argc, char** argv) try {
    namespace mp = maxent::programs;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "merge") return merge_main(std::vector<std::string>(args.begin() + 1, args.end()));
    mp::Options options;
    if (const auto done = mp::parse_or_exit("maxent-paper", MAXENT_VERSION, options,
                                            [&] { return mp::parse_command_line(args); }, [] { return mp::help_text(); }))
        return *done;
    if (options.list) {
        std::fputs(mp::list_text().c_str(), stdout);
        return 0;
    }

    const bool no_arguments = args.empty();
    if (options.experiments.empty()) options.experiments.emplace_back(mp::default_experiment);
    std::vector<const mp::Experiment*> todo;
    for (const std::string& name : options.experiments)
        for (const mp::Experiment* e : mp::expand_experiment_name(name)) {
            bool dup = false;
            for (const mp::Experiment* t : todo) dup = dup || t == e;
            if (!dup) todo.push_back(e);
        }
    try {
        for (const mp::Experiment* e : todo) check_learned_settings(*e, options.settings);
        // A learned-belief flag no experiment reads is refused, not ignored.
        if (!options.learning_flags.empty()) {
            std::string names;
            bool learned = false;
            for (const mp::Experiment* e : todo) {
                names += mp::cat(names.empty() ? "" : ", ", e->name);
                for (const mp::Curve& c : mp::make_curves(*e, options.settings)) learned = learned || c.learned;
            }
            if (!learned)
                throw mp::usage_error(mp::cat(options.learning_flags.front(), ": only learned-belief curves read it, and ",
                                              names, todo.size() == 1 ? " has" : " have",
                                              " none (the nosim* experiments have them; --learned LIST adds them), so "
                                              "it would be ignored"));
        }
    } catch (const mp::usage_error& e) {
        return mp::usage_failure("maxent-paper", e.what());
    }

    const bool tty = isatty(fileno(stderr)) != 0;
    mp::ProgressReporter::Mode mode = mp::ProgressReporter::Mode::off;
    if (options.progress == mp::Options::ProgressMode::force)
        mode = tty ? mp::ProgressReporter::Mode::terminal : mp::ProgressReporter::Mode::lines;
    else if (options.progress == mp::Options::ProgressMode::automatic && tty)
        mode = mp::ProgressReporter::Mode::terminal;

    std::string command_line = "maxent-paper";
    for (const std::string& a : args) command_line += mp::cat(" ", a);
    mp::RunInfo info;
    info.version = MAXENT_VERSION;
    options.threads = mp::resolve_threads(options.threads);
    info.threads = options.threads;
    info.command_line = command_line;
    info.build = mp::fields_json(mp::build_fingerprint());
    const mp::ShardSpec& shard = options.shard;

    const mp::Settings& settings = options.settings;
    if (no_arguments)
        std::printf("maxent-paper: no arguments, so running %s at the paper's full settings (%zu seeds %s, K = %zu, "
                    "N = %zu, alpha = %s); see --help for the other experiments.\n",
                    std::string(mp::default_experiment).c_str(), settings.seeds.size(),
                    mp::seed_list(settings.seeds).c_str(), settings.iterations, settings.batch,
                    mp::format_number(settings.effective_alpha()).c_str());

    // Every experiment's folder is checked and its staging folder created before any work, so
    // that a bad --out fails now (exit 2, with the system's reason), not after the training.
    std::vector<mp::OutputFolder> folders;
    try {
        for (const mp::Experiment* e : todo)
            folders.push_back(shard.active() ? mp::OutputFolder(std::filesystem::path(options.out) /
                                                                mp::shard_folder_name(mp::safe_folder_name(e->name, "experiment"), shard))
                                             : mp::experiment_folder(options.out, *e));
    } catch (const mp::output_error& e) {
        return mp::usage_failure("maxent-paper", mp::cat("--out: ", e.what()));
    }

    mp::install_stop_handlers();
    mp::RunCache cache;
    bool plot_failed = false;
    bool stopped = false;
    std::vector<std::string> pngs;
    try {
        // One work queue for the whole command: the runs of every experiment named, longest
        // first (runner.hpp run_experiments), so no thread idles while another experiment
        // still has work; each experiment's files are then written as if it ran alone.
        std::deque<mp::RunStore> stores;
        std::vector<mp::ExperimentPlan> plans;
        std::vector<std::string> labels;
        std::set<std::string> to_train;
        std::string names;
        for (std::size_t x = 0; x < todo.size(); ++x) {
            const mp::Experiment& e = *todo[x];
            if (!e.note.empty()) std::printf("%s: note: %s\n", e.name.c_str(), e.note.c_str());
            const std::vector<mp::Curve> curves = mp::make_curves(e, settings);
            if (std::any_of(curves.begin(), curves.end(), [](const mp::Curve& c) { return c.learned; }))
                std::printf("%s: %s\n", e.name.c_str(), mp::learning_summary(settings.learning).c_str());
            mp::ExperimentPlan plan;
            plan.experiment = &e;
            plan.settings = settings;
            if (shard.active()) plan.selected = mp::shard_selection(curves, settings.seeds.size(), shard);
            plan.store = &stores.emplace_back(mp::work_area_of(folders[x].path()), info.build);
            plan.progress_curve_offset = labels.size();
            std::size_t j = 0;
            for (const mp::Curve& c : curves) {
                labels.push_back(todo.size() > 1 ? mp::cat(e.name, " ", c.label) : c.label);
                for (const std::uint64_t seed : settings.seeds) {
                    const bool wanted = plan.selected.empty() || plan.selected[j] != 0;
                    ++j;
                    if (!wanted) continue;
                    const std::string key = mp::run_key(e.env, c, settings, seed);
                    const std::optional<mp::SeedRun> kept = plan.store->load(key);
                    if (!kept || !mp::kept_run_serves(*kept, settings)) to_train.insert(key);
                }
            }
            names += mp::cat(names.empty() ? "" : ",", e.name);
            plans.push_back(std::move(plan));
        }
        mp::ProgressCounters counters(labels.size());
        for (mp::ExperimentPlan& plan : plans) plan.progress = &counters;
        std::vector<mp::ExperimentResult> results;
        {
            mp::ProgressReporter reporter(mode, names, labels, settings.seeds.size(),
                                          static_cast<std::uint64_t>(to_train.size()) * settings.iterations, counters);
            results = mp::run_experiments(plans, options.threads, &mp::stop_flag(), &cache);
            reporter.finish();
        }
        if (const char* times = std::getenv("MAXENT_RUN_TIMES")) mp::append_run_times(times, plans, results);

        for (std::size_t x = 0; x < todo.size(); ++x) {
            const mp::Experiment& e = *todo[x];
            const mp::ExperimentResult& result = results[x];
            const mp::RunStore& store = stores[x];
            const std::size_t curves = result.curves.size();
            const auto write_start = std::chrono::steady_clock::now();
            mp::RunInfo run_info = info;
            if (shard.active())
                run_info.extra_fields.emplace_back("shard", mp::shard_section("maxent-paper", shard, args, result));
            const mp::WrittenFiles w = shard.active() ? mp::write_shard(folders[x], result, run_info)
                                                      : mp::write_experiment(folders[x], result,
                                                                             mp::uniform_runs(result, options.threads),
                                                                             run_info,
                                                                             {options.plot, options.smooth,
                                                                              options.heatmap_own_scales});
            if (!result.interrupted && (w.wrote || result.selected_runs() == 0)) store.clear();
            const double write_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
            const std::size_t runs = result.complete_runs();
            const double rate = result.seconds > 0.0 ? static_cast<double>(result.iterations_run) / result.seconds : 0.0;
            const std::string shared =
                result.shared > 0
                    ? mp::cat("; ", std::to_string(result.shared), " runs shared with an earlier experiment")
                    : std::string();
            const std::string of_shard =
                shard.active() ? mp::cat(" of shard ", std::to_string(shard.index), "/", std::to_string(shard.count), ", ",
                                         std::to_string(result.selected_runs()), " of the study's ",
                                         std::to_string(result.total_runs()))
                               : std::string();
            std::printf("%s: kept %zu of %zu runs%s (%zu curves x %zu seed%s, K = %zu); trained %llu iterations in %.1f s "
                        "(%.0f iterations/s, %zu threads)%s\n",
                        e.name.c_str(), runs, result.selected_runs(), of_shard.c_str(), curves, settings.seeds.size(),
                        settings.seeds.size() == 1 ? "" : "s",
                        settings.iterations, static_cast<unsigned long long>(result.iterations_run), result.seconds,
                        rate, info.threads, shared.c_str());
            if (result.reused > 0)
                std::printf("  reused %zu finished run%s from %s (resumed)\n", result.reused, result.reused == 1 ? "" : "s",
                            store.dir().string().c_str());
            if (w.wrote && shard.active()) {
                std::printf("  wrote shard %s/{config.json,runs.csv%s%s}\n", w.dir.string().c_str(),
                            mp::has_learned_curves(result) ? ",learning.csv,learned/*.pomdp" : "",
                            settings.heatmap_episodes > 0 ? ",visits.csv" : "");
            } else if (w.wrote) {
                std::printf("  wrote %s/{%s} in %.1f s\n", w.dir.string().c_str(), written_names(result, w).c_str(),
                            write_seconds);
                if (w.plot.drawn) {
                    std::printf("  plot: %s\n", w.plot.message.c_str());
                    pngs.push_back(w.plot.message);
                } else if (w.plot.failed) {
                    plot_failed = true;
                    std::fprintf(stderr, "maxent-paper: error: %s: %s\n", e.name.c_str(), w.plot.message.c_str());
                } else {
                    std::printf("  %s\n", w.plot.message.c_str());
                }
                if (!report_heatmap(e.name, w)) plot_failed = true;
            }
            std::fflush(stdout);
            if (result.interrupted || (mp::stop_requested() && !stopped && x + 1 == todo.size())) {
                stopped = true;
                std::fprintf(stderr, "maxent-paper: %s during %s: kept %zu complete runs of %zu", mp::stop_signal_name(),
                             e.name.c_str(), runs, result.selected_runs());
                if (w.wrote) {
                    std::fprintf(stderr, " in %s (", w.dir.string().c_str());
                    bool first = true;
                    for (const mp::CurveRuns& c : result.curves) {
                        std::string seeds;
                        for (const mp::SeedRun& r : c.runs)
                            if (r.complete) seeds += mp::cat(seeds.empty() ? "" : ",", std::to_string(r.seed));
                        std::fprintf(stderr, "%s%s: %s", first ? "" : "; ", c.curve.label.c_str(),
                                     seeds.empty() ? "none" : mp::cat("seeds ", seeds).c_str());
                        first = false;
                    }
                    std::fprintf(stderr, ")");
                } else {
                    std::fprintf(stderr, "; nothing written for it");
                }
                std::fprintf(stderr, "; the finished runs stay in %s: rerun the same command to train only the rest.\n",
                             store.dir().string().c_str());
            }
        }
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "maxent-paper: error: out of memory (std::bad_alloc); try fewer --threads, seeds or "
                             "latent states\n");
        return 1;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "maxent-paper: error: %s\n", ex.what());
        return 1;
    }
    if (stopped) return mp::stop_exit_status();
    if (pngs.size() == 1) std::printf("PNG: %s\n", pngs.front().c_str());
    return plot_failed ? 1 : 0;
} catch (const std::bad_alloc&) {  // anything that escaped: a named error, never an abort
    std::fputs("maxent-paper: error: out of memory (std::bad_alloc)\n", stderr);
    return 1;
} catch (const std::exception& ex) {
    std::fprintf(stderr, "maxent-paper: error: %s\n", ex.what());
    return 1;
}
