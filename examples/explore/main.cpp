// examples/explore/main.cpp — maxent-explore: reads a POMDP model file (pomdp-solve text
// format) and trains state-entropy exploration policies on it with Algorithm 1 (paper,
// Section 4), printing the learned policies' true-state entropy next to the uniformly random
// policy's and log S, and writing the same files as maxent-paper (see cli.hpp for the
// command line, explore.hpp for what is computed and written).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "maxent/core/error.hpp"
#include "maxent/optim/parallel.hpp"

#include "../common/output.hpp"
#include "../common/progress.hpp"
#include "../common/signals.hpp"
#include "cli.hpp"
#include "explore.hpp"

#ifndef MAXENT_VERSION
#define MAXENT_VERSION "unknown"
#endif

int main(int argc, char** argv) {
    namespace mx = maxent::explore;
    namespace mp = maxent::programs;
    const std::vector<std::string> args(argv + 1, argv + argc);
    mx::Options options;
    try {
        options = mx::parse_command_line(args);
    } catch (const mp::usage_error& e) {
        std::fprintf(stderr, "maxent-explore: %s\nTry 'maxent-explore --help'.\n", e.what());
        return 2;
    }
    if (options.help) {
        std::fputs(mx::help_text().c_str(), stdout);
        return 0;
    }
    if (options.version) {
        std::printf("maxent-explore (maxent %s)\n", MAXENT_VERSION);
        return 0;
    }

    // The output folder is checked and its staging folder created before any work, so that a
    // bad --out fails now (exit 2, with the system's reason), not after the training.
    mp::OutputFolder folder;
    try {
        folder = mp::OutputFolder(std::filesystem::path(options.out) / mx::model_folder_name(options.model));
    } catch (const mp::output_error& e) {
        std::fprintf(stderr, "maxent-explore: --out: %s\nTry 'maxent-explore --help'.\n", e.what());
        return 2;
    }

    std::optional<mx::LoadedModel> loaded;
    try {
        loaded.emplace(mx::load_model(options.model, options.horizon, options.empty_rows));
    } catch (const maxent::error& e) {
        std::fprintf(stderr, "maxent-explore: cannot use the model file: %s\n", e.what());
        if (std::string(e.what()).find("no transition probabilities") != std::string::npos)
            std::fprintf(stderr, "maxent-explore: hint: --empty-rows self-loop makes such states absorbing\n");
        return 1;
    }
    const mx::LoadedModel& model = *loaded;

    const mp::Settings& settings = options.settings;
    const std::size_t window = mx::final_window(settings.iterations);
    const std::size_t uniform_episodes = options.uniform_trajectories.value_or(window * settings.batch);
    mp::RunInfo info;
    info.version = MAXENT_VERSION;
    info.threads = options.threads == 0 ? maxent::hardware_threads() : options.threads;
    info.command_line = "maxent-explore";
    for (const std::string& a : args) info.command_line += mp::cat(" ", a);

    const mx::Model& m = model.file.model;
    const std::vector<mp::Curve> curves = mx::make_curves(settings);
    const mx::WorkEstimate work = mx::estimate_work(m.num_states(), m.horizon(), curves.size(), settings, uniform_episodes);
    if (work.updates > options.max_work) {
        std::fprintf(stderr,
                     "maxent-explore: too much work: S = %zu states, T = %zu steps per episode, %zu curve(s) x %zu "
                     "seed(s) x K = %zu x N = %zu, %zu uniform episodes per seed: about %.3g steps, each training step "
                     "updating a belief over the %zu states, so about %.3g belief-entry updates, above --max-work %.3g. Give a smaller --horizon (the default is T = S), "
                     "--iterations, --seeds or --batch, or raise --max-work to run it anyway.\n",
                     m.num_states(), m.horizon(), curves.size(), settings.seeds.size(), settings.iterations,
                     settings.batch, uniform_episodes, work.steps, m.num_states(), work.updates, options.max_work);
        return 2;
    }
    std::printf("%s (%s): %s\n", model.name.c_str(), model.path.string().c_str(), mx::describe(m).c_str());
    if (!model.file.absorbing_rows.empty())
        std::printf("  --empty-rows self-loop: %zu (action, state) rows without T: entries made absorbing\n",
                    model.file.absorbing_rows.size());
    std::fflush(stdout);

    std::vector<std::string> labels;
    for (const mp::Curve& c : curves) labels.push_back(c.label);
    const bool tty = isatty(fileno(stderr)) != 0;
    mp::ProgressReporter::Mode mode = mp::ProgressReporter::Mode::off;
    if (options.progress == mx::Options::ProgressMode::force)
        mode = tty ? mp::ProgressReporter::Mode::terminal : mp::ProgressReporter::Mode::lines;
    else if (options.progress == mx::Options::ProgressMode::automatic && tty)
        mode = mp::ProgressReporter::Mode::terminal;

    mp::install_stop_handlers();
    try {
        mp::ProgressCounters counters(curves.size());
        mx::Result result;
        {
            mp::ProgressReporter reporter(mode, model.name, labels, settings.seeds.size(),
                                          static_cast<std::uint64_t>(curves.size() * settings.seeds.size()) *
                                              settings.iterations,
                                          counters);
            result = mx::run(m, settings, uniform_episodes, options.threads, &counters, &mp::stop_flag());
            reporter.finish();
        }
        const double rate =
            result.runs.seconds > 0.0 ? static_cast<double>(result.runs.iterations_run) / result.runs.seconds : 0.0;
        std::printf("  %s\n", mp::settings_line(result.runs).c_str());
        if (result.runs.interrupted)
            std::printf("  interrupted: %zu of %zu runs complete (%zu curve%s x %zu seed%s), %llu iterations in %.2f "
                        "s; uniform baseline skipped\n\n",
                        result.runs.complete_runs(), result.runs.total_runs(), curves.size(),
                        curves.size() == 1 ? "" : "s", settings.seeds.size(), settings.seeds.size() == 1 ? "" : "s",
                        static_cast<unsigned long long>(result.runs.iterations_run), result.runs.seconds);
        else
            std::printf("  trained %zu runs (%zu curve%s x %zu seed%s), %llu iterations in %.2f s (%.0f iterations/s, "
                        "%zu threads); uniform baseline %zu x %zu episodes in %.2f s\n\n",
                        curves.size() * settings.seeds.size(), curves.size(), curves.size() == 1 ? "" : "s",
                        settings.seeds.size(), settings.seeds.size() == 1 ? "" : "s",
                        static_cast<unsigned long long>(result.runs.iterations_run), result.runs.seconds, rate,
                        info.threads, settings.seeds.size(), uniform_episodes, result.uniform_seconds);
        std::fputs(mx::table(m, result).c_str(), stdout);
        std::fflush(stdout);

        const mp::WrittenFiles w = mx::write_outputs(folder, model, result, info, options.empty_rows, options.plot);
        if (w.wrote) {
            std::printf("\nwrote %s/{config.json,runs.csv,summary.csv,curves.gp%s}\n", w.dir.string().c_str(),
                        w.plot.drawn ? ",curves.png" : "");
            if (w.plot.failed)
                std::fprintf(stderr, "maxent-explore: error: %s\n", w.plot.message.c_str());
            else
                std::printf("%s%s\n", w.plot.drawn ? "PNG: " : "", w.plot.message.c_str());
        }
        std::fflush(stdout);
        if (result.runs.interrupted) {
            std::fprintf(stderr, "maxent-explore: %s: kept %zu complete runs of %zu%s\n", mp::stop_signal_name(),
                         result.runs.complete_runs(), result.runs.total_runs(),
                         w.wrote ? mp::cat(" in ", w.dir.string()).c_str() : "; nothing written");
            return mp::stop_exit_status();
        }
        if (w.plot.failed) return 1;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "maxent-explore: error: %s\n", ex.what());
        return 1;
    }
    return 0;
}
