// examples/paper/main.cpp — maxent-paper: runs the paper's experiments by name and writes
// their CSV files, config and plot (paper, Section 6 and Appendix D; see cli.hpp for the
// command line, experiments.hpp for the registry, output.hpp for the files).
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
#include "../common/output.hpp"
#include "../common/progress.hpp"
#include "../common/runner.hpp"
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

}  // namespace

int main(int argc, char** argv) {
    namespace mp = maxent::programs;
    const std::vector<std::string> args(argv + 1, argv + argc);
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
        for (const mp::Experiment* e : todo) folders.push_back(mp::experiment_folder(options.out, *e));
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
            const std::size_t pending = mp::pending_runs(e, settings, &cache);

            mp::ProgressCounters counters(curves.size());
            mp::ExperimentResult result;
            {
                mp::ProgressReporter reporter(mode, e.name, labels, settings.seeds.size(),
                                              static_cast<std::uint64_t>(pending) * settings.iterations, counters);
                result = mp::run_experiment(e, settings, options.threads, &mp::stop_flag(), &counters, &cache);
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
            const mp::WrittenFiles w = mp::write_experiment(folders[x], result, info, options.plot);
            const double write_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
            const std::size_t runs = result.complete_runs();
            const double rate = result.seconds > 0.0 ? static_cast<double>(result.iterations_run) / result.seconds : 0.0;
            const std::string shared =
                pending < result.total_runs()
                    ? mp::cat("; ", std::to_string(result.total_runs() - pending), " runs shared with an earlier experiment")
                    : std::string();
            std::printf("%s: kept %zu of %zu runs (%zu curves x %zu seed%s, K = %zu); trained %llu iterations in %.1f s "
                        "(%.0f iterations/s, %zu threads)%s\n",
                        e.name.c_str(), runs, result.total_runs(), curves.size(), settings.seeds.size(),
                        settings.seeds.size() == 1 ? "" : "s",
                        settings.iterations, static_cast<unsigned long long>(result.iterations_run), result.seconds,
                        rate, info.threads, shared.c_str());
            if (w.wrote) {
                std::printf("  wrote %s/{config.json,runs.csv,summary.csv,curves.gp%s} in %.1f s\n", w.dir.string().c_str(),
                            w.plot.drawn ? ",curves.png" : "", write_seconds);
                if (w.plot.drawn) {
                    std::printf("  plot: %s\n", w.plot.message.c_str());
                    pngs.push_back(w.plot.message);
                } else if (w.plot.failed) {
                    plot_failed = true;
                    std::fprintf(stderr, "maxent-paper: error: %s: %s\n", e.name.c_str(), w.plot.message.c_str());
                } else {
                    std::printf("  %s\n", w.plot.message.c_str());
                }
            }
            std::fflush(stdout);
            if (result.interrupted || mp::stop_requested()) {
                std::fprintf(stderr, "maxent-paper: %s during %s: kept %zu complete runs of %zu", mp::stop_signal_name(),
                             e.name.c_str(), runs, result.total_runs());
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
                std::fprintf(stderr, ".\n");
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
