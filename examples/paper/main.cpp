// examples/paper/main.cpp — maxent-paper: runs the paper's experiments by name and writes
// their CSV files, config and plot (paper, Section 6 and Appendix D; see cli.hpp for the
// command line, experiments.hpp for the registry, output.hpp for the files).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "maxent/core/error.hpp"

#include "../common/cli.hpp"
#include "../common/experiments.hpp"
#include "../common/fingerprint.hpp"
#include "../common/merge.hpp"
#include "../common/output.hpp"
#include "../common/progress.hpp"
#include "../common/run_store.hpp"
#include "../common/runner.hpp"
#include "../common/shards.hpp"
#include "../common/signals.hpp"

#ifndef MAXENT_VERSION
#define MAXENT_VERSION "unknown"
#endif

namespace {

std::string join_seeds(const std::vector<std::uint64_t>& seeds) {
    std::string out;
    for (std::size_t i = 0; i < seeds.size(); ++i) out += maxent::programs::cat(i ? "," : "", std::to_string(seeds[i]));
    return out;
}

/// The study fields of maxent-paper's shard (what must be equal for shards to be merged).
maxent::programs::Fields study_fields(const maxent::programs::Experiment& e, const maxent::programs::Settings& s) {
    namespace mp = maxent::programs;
    std::string curves;
    for (const mp::Curve& c : mp::make_curves(e, s)) curves += mp::cat(curves.empty() ? "" : ",", c.label);
    return {{"experiment", e.name},
            {"environment", e.env.describe()},
            {"curves", curves},
            {"seeds", join_seeds(s.seeds)},
            {"iterations", std::to_string(s.iterations)},
            {"batch", std::to_string(s.batch)},
            {"alpha", mp::format_number(s.effective_alpha())},
            {"rho", mp::format_number(s.rho)},
            {"estimator", std::string(mp::name_of(s.estimator))},
            {"step", std::string(mp::name_of(s.step))},
            {"counting", std::string(mp::name_of(s.counting))},
            {"learning", s.learning.key()},
            {"heatmap_episodes", std::to_string(s.heatmap_episodes)}};
}

/// The files of a written experiment folder, for the "wrote DIR/{...}" line.
std::string written_names(const maxent::programs::ExperimentResult& r, const maxent::programs::WrittenFiles& w) {
    namespace mp = maxent::programs;
    std::string names = "config.json,runs.csv,summary.csv,uniform.csv,curves.gp";
    if (mp::has_learned_curves(r)) names += ",learning.csv";
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

/// maxent-paper merge SHARD_DIR... --out DIR (shards.hpp).
int merge_main(const std::vector<std::string>& args) {
    namespace mp = maxent::programs;
    mp::MergeOptions options;
    try {
        options = mp::parse_merge_command_line(args);
    } catch (const mp::usage_error& e) {
        std::fprintf(stderr, "maxent-paper: %s\nTry 'maxent-paper --help'.\n", e.what());
        return 2;
    }
    if (options.help) {
        std::fputs(mp::help_text().c_str(), stdout);
        return 0;
    }
    struct Group {
        const mp::Experiment* experiment = nullptr;
        std::vector<mp::ShardFolder> shards;
        mp::ExperimentResult result;
        mp::RunInfo info;
        std::size_t smooth = 1;  ///< the shards' --smooth, so the merged plot is the one-process plot
        bool heatmap_own_scales = false;  ///< the shards' --heatmap-scale, likewise
    };
    std::vector<Group> groups;
    try {
        for (const std::string& dir : options.shards) {
            mp::ShardFolder s = mp::read_shard_folder(dir, "maxent-paper");
            const maxent::programs::Json* name = s.config.find("experiment");
            const mp::Experiment* e = name ? mp::find_experiment(name->text) : nullptr;
            if (e == nullptr) throw mp::merge_error(mp::cat("'", dir, "': config.json names no known experiment"));
            Group* g = nullptr;
            for (Group& x : groups)
                if (x.experiment == e) g = &x;
            if (g == nullptr) {
                groups.emplace_back();
                g = &groups.back();
                g->experiment = e;
            }
            g->shards.push_back(std::move(s));
        }
        for (Group& g : groups) {
            mp::sort_shards(g.shards);
            std::vector<mp::Fields> studies;
            std::vector<mp::Options> parsed;
            for (const mp::ShardFolder& s : g.shards) {
                mp::Options o;
                try {
                    o = mp::parse_command_line(mp::without_shard(s.arguments));
                } catch (const mp::usage_error& e) {
                    throw mp::merge_error(mp::cat(mp::shard_name(s), ": its arguments do not parse: ", e.what()));
                }
                studies.push_back(study_fields(*g.experiment, o.settings));
                parsed.push_back(std::move(o));
            }
            mp::check_studies(g.shards, studies);
            mp::check_builds(g.shards, "maxent-paper");
            const mp::Settings& settings = parsed.front().settings;
            g.smooth = parsed.front().smooth;
            g.heatmap_own_scales = parsed.front().heatmap_own_scales;
            g.result.experiment = g.experiment;
            g.result.settings = settings;
            for (const mp::Curve& c : mp::make_curves(*g.experiment, settings))
                g.result.curves.push_back({c, std::vector<mp::SeedRun>(settings.seeds.size())});
            mp::place_runs(g.shards, g.result);
            g.info.version = MAXENT_VERSION;
            g.info.build = mp::fields_json(mp::build_fingerprint());
            g.info.threads = g.shards.front().threads;
            g.info.command_line = "maxent-paper";
            for (const std::string& a : mp::without_shard(g.shards.front().arguments)) g.info.command_line += mp::cat(" ", a);
        }
    } catch (const maxent::error& e) {
        std::fprintf(stderr, "maxent-paper: merge: %s\n", e.what());
        return 1;
    }
    bool plot_failed = false;
    try {
        for (Group& g : groups) {
            mp::OutputFolder folder = mp::experiment_folder(options.out, *g.experiment);
            const mp::WrittenFiles w = mp::write_experiment(folder, g.result, g.info,
                                                            {options.plot, g.smooth, 0, g.heatmap_own_scales});
            std::printf("%s: merged %zu shard%s: %zu runs (%zu curves x %zu seeds, K = %zu)\n", g.experiment->name.c_str(),
                        g.shards.size(), g.shards.size() == 1 ? "" : "s", g.result.complete_runs(), g.result.curves.size(),
                        g.result.settings.seeds.size(), g.result.settings.iterations);
            std::printf("  wrote %s/{%s}\n", w.dir.string().c_str(), written_names(g.result, w).c_str());
            if (w.plot.failed) {
                plot_failed = true;
                std::fprintf(stderr, "maxent-paper: error: %s: %s\n", g.experiment->name.c_str(), w.plot.message.c_str());
            } else if (!w.plot.drawn) {
                std::printf("  %s\n", w.plot.message.c_str());
            }
            if (!report_heatmap(g.experiment->name, w)) plot_failed = true;
        }
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "maxent-paper: merge: error: %s\n", ex.what());
        return 1;
    }
    return plot_failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    namespace mp = maxent::programs;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "merge") return merge_main(std::vector<std::string>(args.begin() + 1, args.end()));
    mp::Options options;
    try {
        options = mp::parse_command_line(args);
    } catch (const mp::usage_error& e) {
        std::fprintf(stderr, "maxent-paper: %s\nTry 'maxent-paper --help'.\n", e.what());
        return 2;
    }
    if (options.help) {
        std::fputs(mp::help_text().c_str(), stdout);
        return 0;
    }
    if (options.version) {
        std::printf("maxent-paper (maxent %s)\n", MAXENT_VERSION);
        return 0;
    }
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
    info.threads = options.threads == 0 ? maxent::hardware_threads() : options.threads;
    info.command_line = command_line;
    info.build = mp::fields_json(mp::build_fingerprint());
    const mp::ShardSpec& shard = options.shard;

    const mp::Settings& settings = options.settings;
    if (no_arguments)
        std::printf("maxent-paper: no arguments, so running %s at the paper's full settings (%zu seeds %s, K = %zu, "
                    "N = %zu, alpha = %s); see --help for the other experiments.\n",
                    std::string(mp::default_experiment).c_str(), settings.seeds.size(),
                    join_seeds(settings.seeds).c_str(), settings.iterations, settings.batch,
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
        std::fprintf(stderr, "maxent-paper: --out: %s\nTry 'maxent-paper --help'.\n", e.what());
        return 2;
    }

    mp::install_stop_handlers();
    mp::RunCache cache;
    bool plot_failed = false;
    std::vector<std::string> pngs;
    try {
        for (std::size_t x = 0; x < todo.size(); ++x) {
            const mp::Experiment& e = *todo[x];
            if (!e.note.empty()) std::printf("%s: note: %s\n", e.name.c_str(), e.note.c_str());
            const std::vector<mp::Curve> curves = mp::make_curves(e, settings);
            std::vector<std::string> labels;
            for (const mp::Curve& c : curves) labels.push_back(c.label);
            const std::vector<char> selected =
                shard.active() ? mp::shard_selection(curves, settings.seeds.size(), shard) : std::vector<char>{};
            const mp::RunStore store(mp::work_area_of(folders[x].path()), info.build);
            const std::size_t pending = mp::pending_runs(e, settings, &cache, &selected, &store);

            mp::ProgressCounters counters(curves.size());
            mp::ExperimentResult result;
            {
                mp::ProgressReporter reporter(mode, e.name, labels, settings.seeds.size(),
                                              static_cast<std::uint64_t>(pending) * settings.iterations, counters);
                result = mp::run_experiment(e, settings, options.threads, &mp::stop_flag(), &counters, &cache, &selected,
                                            &store);
                reporter.finish();
            }

            // Keep in the cache only the runs a later experiment of this invocation will use.
            std::set<std::string> needed;
            for (std::size_t y = x + 1; y < todo.size(); ++y)
                for (const mp::Curve& c : mp::make_curves(*todo[y], settings))
                    for (const std::uint64_t seed : settings.seeds)
                        needed.insert(mp::run_key(todo[y]->env, c, settings, seed));
            cache.retain([&](const std::string& key) { return needed.count(key) != 0; });

            const auto write_start = std::chrono::steady_clock::now();
            mp::RunInfo run_info = info;
            if (shard.active())
                run_info.extra_fields.emplace_back("shard", mp::shard_section("maxent-paper", shard, args, result));
            const mp::WrittenFiles w = shard.active() ? mp::write_shard(folders[x], result, run_info)
                                                      : mp::write_experiment(folders[x], result, run_info,
                                                                             {options.plot, options.smooth, options.threads,
                                                                              options.heatmap_own_scales});
            if (!result.interrupted && (w.wrote || result.selected_runs() == 0)) store.clear();
            const double write_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
            const std::size_t runs = result.complete_runs();
            const double rate = result.seconds > 0.0 ? static_cast<double>(result.iterations_run) / result.seconds : 0.0;
            const std::size_t not_trained = result.selected_runs() - std::min(result.selected_runs(), pending);
            const std::size_t shared_runs = not_trained - std::min(not_trained, result.reused);
            const std::string shared =
                shared_runs > 0
                    ? mp::cat("; ", std::to_string(shared_runs), " runs shared with an earlier experiment")
                    : std::string();
            const std::string of_shard =
                shard.active() ? mp::cat(" of shard ", std::to_string(shard.index), "/", std::to_string(shard.count), ", ",
                                         std::to_string(result.selected_runs()), " of the study's ",
                                         std::to_string(result.total_runs()))
                               : std::string();
            std::printf("%s: kept %zu of %zu runs%s (%zu curves x %zu seed%s, K = %zu); trained %llu iterations in %.1f s "
                        "(%.0f iterations/s, %zu threads)%s\n",
                        e.name.c_str(), runs, result.selected_runs(), of_shard.c_str(), curves.size(), settings.seeds.size(),
                        settings.seeds.size() == 1 ? "" : "s",
                        settings.iterations, static_cast<unsigned long long>(result.iterations_run), result.seconds,
                        rate, info.threads, shared.c_str());
            if (result.reused > 0)
                std::printf("  reused %zu finished run%s from %s (resumed)\n", result.reused, result.reused == 1 ? "" : "s",
                            store.dir().string().c_str());
            if (w.wrote && shard.active()) {
                std::printf("  wrote shard %s/{config.json,runs.csv%s%s}\n", w.dir.string().c_str(),
                            mp::has_learned_curves(result) ? ",learning.csv" : "",
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
            if (result.interrupted || mp::stop_requested()) {
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
                if (x + 1 < todo.size()) std::fprintf(stderr, "; skipped %zu later experiment(s)", todo.size() - x - 1);
                std::fprintf(stderr, "; the finished runs stay in %s: rerun the same command to train only the rest.\n",
                             store.dir().string().c_str());
                return mp::stop_exit_status();
            }
        }
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "maxent-paper: error: %s\n", ex.what());
        return 1;
    }
    if (pngs.size() == 1) std::printf("PNG: %s\n", pngs.front().c_str());
    return plot_failed ? 1 : 0;
}
