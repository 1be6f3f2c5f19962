// maxent-rescue — the continuous rescue world (model/rescue_world.hpp) explored with
// particle beliefs (belief/particle_filter.hpp): the paper's four objectives on a world
// whose states are points of the unit square.
//
// Named experiments:
//   rescue        T = 100, 300 particles, K = 300 iterations of N = 10, seeds 0..7
//   rescue-small  T = 30, 50 particles, K = 20, seeds 0..1 (the smoke test's size)
//   rescue-range, rescue-range-small: the robot with a range sensor (range.cpp)
// For each: the agent keeps a particle filter of the true world (b_1 = 300 draws of μ); its
// belief b over an 8 x 8 grid is what MBE draws from and Reg-MBE takes the entropy of; the
// belief-averaged policy reads φ(b) = the particles' mean bilinear features on a 6 x 6 grid
// of nodes. True states are counted in a 10 x 10 grid (MSE, the plotted entropy). One curve
// per objective (MSE, MOE, MBE, Reg-MBE with ρ = 0.02), mean and 95% CI over the seeds.
//
// Files in OUT/<experiment>/ (runtime/output.hpp, written and replaced as one set):
//   runs.csv, summary.csv, curves.gp, curves.png   the learning curves, as maxent-paper's
//   config.json                                    the settings
//   heatmap.csv   objective,ix,iy,fraction: where the true states of the final policies go
//                 (every counted step of 100 episodes per seed, in a 40 x 40 grid), for the
//                 uniform policy and each objective's learned policy
//   heatmap.gp, heatmap.png                        those as images with the walls drawn
//   final.csv     the range sensor's measures of the final policies (range.cpp)
// It prints each curve's final true-state entropy next to the uniform policy's.
//
// This file is also the driver of both sensors: the flags (runtime/cli.hpp's parsers), every
// (curve, seed) run and the uniform policy's per seed in the runtime's queue (run_or_resume:
// finished runs kept in OUT/.<experiment>.runs/ until the set is written, so the same command
// after SIGINT / SIGTERM trains only the rest), and the files.
//
//   maxent-rescue [--out DIR] [--threads N] [--no-plot] [--iterations K] [--seeds N] [EXPERIMENT]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "maxent/core/error.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/rescue_world.hpp"

#include "runtime/cli.hpp"
#include "runtime/fingerprint.hpp"
#include "runtime/output.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/signals.hpp"
#include "runtime/threads.hpp"
#include "heatmaps.hpp"
#include "training.hpp"

namespace maxent::rescue {
namespace {

using programs::cat;

const std::vector<RescueExperiment>& experiments() {
    static const std::vector<RescueExperiment> list{{"rescue", 100, 300, 300, 8, 100, false},
                                                    {"rescue-small", 30, 50, 20, 2, 10, false},
                                                    {"rescue-range", 100, 300, 300, 8, 100, true},
                                                    {"rescue-range-small", 30, 50, 20, 2, 10, true}};
    return list;
}

// ---------------------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------------------

struct Options {
    std::string experiment = "rescue";
    std::string out = "out";
    std::size_t threads = 0, iterations = 0, seeds = 0;  ///< 0: all cores, the experiment's K and seeds
    bool plot = true, help = false;
};

Options parse_command_line(const std::vector<std::string>& args) {
    Options o;
    programs::SeenFlags seen;
    bool named = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "-h") {
            o.help = true;
        } else if (arg.substr(0, 2) != "--") {
            if (!arg.empty() && arg[0] == '-') throw programs::usage_error(cat("unknown option '", arg, "'"));
            if (named)
                throw programs::usage_error(
                    cat("more than one experiment ('", o.experiment, "' and '", arg, "'); run one at a time"));
            o.experiment = arg;
            named = true;
        } else {
            programs::FlagArgument a(args, i, &seen);
            if (a.flag == "--help") {
                a.no_value();
                o.help = true;
            } else if (a.flag == "--no-plot") {
                a.no_value();
                o.plot = false;
            } else if (a.flag == "--out") {
                o.out = programs::out_directory(a.flag, a.value());
            } else if (a.flag == "--threads") {
                o.threads = programs::parse_threads(a.flag, a.value());
            } else if (a.flag == "--iterations") {
                o.iterations = programs::uint_in(a.flag, a.value(), 1, 10'000'000, "a positive integer");
            } else if (a.flag == "--seeds") {
                o.seeds = programs::uint_in(a.flag, a.value(), 1, 100'000, "a positive integer");
            } else {
                throw programs::usage_error(cat("unknown option '", a.flag, "'"));
            }
        }
    }
    return o;
}

std::string help_text() {
    return "usage: maxent-rescue [--out DIR] [--threads N] [--no-plot] [--iterations K] [--seeds N] [EXPERIMENT]\n"
           "experiments: rescue (default), rescue-small, rescue-range, rescue-range-small\n"
           "--seeds N runs seeds 0..N-1; --threads 0 (the default) uses every core. SIGINT or SIGTERM stops the\n"
           "training and writes nothing (exit 130 or 143); the finished runs stay in OUT/.<experiment>.runs/, so\n"
           "the same command again trains only the rest.\n";
}

// ---------------------------------------------------------------------------------------
// The cell sensor
// ---------------------------------------------------------------------------------------

}  // namespace

Study cell_study(const RescueExperiment& x) {
    const auto world = std::make_shared<const RescueWorld>(RescueWorldOptions{.horizon = x.horizon});
    Study study;
    for (const programs::Objective o : {programs::Objective::mse, programs::Objective::moe, programs::Objective::mbe,
                                        programs::Objective::reg_mbe})
        study.curves.push_back({o, 0.0, programs::PolicyClass::belief_averaged, std::string(programs::name_of(o))});
    study.run = [world, x, curves = study.curves](std::size_t c, std::uint64_t seed, std::size_t iterations) {
        std::optional<programs::AnyFeedback> feedback;
        if (c < curves.size()) feedback.emplace(curves[c].objective, rho);
        return train_seed(*world, x.particles, std::move(feedback), iterations, seed,
                          [&](const Filter<RescueWorld>& filter, const BeliefAveragedPolicy& policy,
                              programs::SeedRun& run) {
                              visit(*world, filter, policy, {}, x.heatmap_episodes, run, [](const Trajectory&) {});
                          });
    };
    study.config_json = [world, x](std::size_t iterations, std::size_t seeds, std::size_t threads) {
        const RescueWorldOptions& o = world->options();
        const auto num = programs::format_number;
        std::string j = "{\n";
        j += cat("  \"experiment\": \"", x.name, "\",\n");
        j += cat("  \"world\": {\"name\": \"rescue\", \"rooms\": 4, \"horizon\": ", std::to_string(o.horizon),
                 ", \"step\": ", num(o.step), ", \"noise\": ", num(o.noise), ", \"door\": ", num(o.door),
                 ", \"sensor_cells\": ", std::to_string(o.sensor_cells), ", \"accuracy\": ", num(o.accuracy),
                 ", \"start\": [", num(o.start_lo), ", ", num(o.start_hi), "]},\n");
        j += cat("  \"true_state_bins\": ", std::to_string(true_bins_per_side * true_bins_per_side), ",\n");
        j += cat("  \"belief\": {\"model\": \"particle filter\", \"particles\": ", std::to_string(x.particles),
                 ", \"resample_threshold\": 0.5, \"bins\": ", std::to_string(belief_bins_per_side * belief_bins_per_side),
                 ", \"features\": \"bilinear ", std::to_string(feature_nodes_per_side), "x",
                 std::to_string(feature_nodes_per_side), "\", \"belief_entropy\": \"plug-in\"},\n");
        j += cat("  \"policy\": \"BA over features\", \"estimator\": \"batch-mean\", \"step\": \"constant\", \"alpha\": ",
                 num(alpha), ", \"rho\": ", num(rho), ", \"batch\": ", std::to_string(batch), ",\n");
        j += cat("  \"iterations\": ", std::to_string(iterations), ", \"seeds\": ", std::to_string(seeds),
                 ", \"threads\": ", std::to_string(threads), ",\n");
        j += cat("  \"heatmap\": {\"episodes_per_seed\": ", std::to_string(x.heatmap_episodes), ", \"grid\": ",
                 std::to_string(heat_per_side), "},\n");
        j += "  \"confidence\": \"95% Student t across seeds, n - 1 degrees of freedom\"\n}\n";
        return j;
    };
    study.subject = cat(x.name, ": continuous rescue world (4 rooms), particle beliefs (", std::to_string(x.particles),
                        " particles), true states in 10 x 10 bins");
    study.heatmap_title = "Rescue world: where the true states go (fraction of counted steps; walls in black)";
    study.door = world->options().door;
    study.report = [x](const std::vector<std::string>& labels, const Panels& panels, std::size_t iterations,
                       std::size_t seeds, double seconds) {
        std::printf("%s: continuous rescue world, T = %zu, %zu particles, K = %zu, N = %zu, %zu seeds (%.1f s)\n",
                    x.name.c_str(), x.horizon, x.particles, iterations, batch, seeds, seconds);
        constexpr std::size_t bins = true_bins_per_side * true_bins_per_side;
        std::printf("final policies' true-state entropy over %zu bins (max log %zu = %.3f), mean [95%% CI] over seeds:\n",
                    bins, bins, std::log(static_cast<double>(bins)));
        for (std::size_t p = 0; p < panels.size(); ++p) {
            std::vector<double> finals;
            for (const programs::SeedRun* r : panels[p]) finals.push_back(r->visits.mean_entropy);
            const MeanInterval ci = two_pass_mean_interval(finals, 0.95);
            std::printf("  %-8s %.3f [%.3f, %.3f]\n", labels[p].c_str(), ci.mean, ci.low, ci.high);
        }
        return std::string();
    };
    return study;
}

namespace {

// ---------------------------------------------------------------------------------------
// The driver: the job loop and the files
// ---------------------------------------------------------------------------------------

int run_study(const RescueExperiment& x, const Options& o) {
    const std::size_t iterations = o.iterations > 0 ? o.iterations : x.iterations;
    const std::size_t seeds = o.seeds > 0 ? o.seeds : x.seeds;
    const std::size_t threads = programs::resolve_threads(o.threads);
    programs::OutputFolder folder;
    try {
        folder = programs::OutputFolder(std::filesystem::path(o.out) / x.name);
    } catch (const programs::output_error& e) {
        return programs::usage_failure("maxent-rescue", cat("--out: ", e.what()));
    }
    const Study study = x.range ? range_study(x) : cell_study(x);
    const std::size_t curves = study.curves.size();

    // Job c * seeds + s: curve c on seed s; c = curves: the uniform policy's heatmap runs.
    std::vector<std::string> keys;
    std::vector<std::uint64_t> costs;
    for (std::size_t c = 0; c <= curves; ++c)
        for (std::uint64_t s = 0; s < seeds; ++s) {
            const std::string common = cat("maxent-rescue|", x.name, "|T=", std::to_string(x.horizon), "|particles=",
                                           std::to_string(x.particles), "|heatmap=", std::to_string(x.heatmap_episodes));
            keys.push_back(c == curves ? cat(common, "|uniform|seed=", std::to_string(s))
                                       : cat(common, "|", study.curves[c].label, "|K=", std::to_string(iterations),
                                             "|N=", std::to_string(batch), "|alpha=", programs::format_number(alpha),
                                             "|rho=", programs::format_number(rho), "|seed=", std::to_string(s)));
            costs.push_back((c == curves ? x.heatmap_episodes : iterations * batch) * x.horizon * x.particles);
        }
    const programs::RunStore store(programs::work_area_of(folder.path()),
                                   programs::fields_json(programs::build_fingerprint()));
    programs::install_stop_handlers();
    const auto start = std::chrono::steady_clock::now();
    std::size_t reused = 0;
    const std::vector<programs::SeedRun> runs =
        programs::run_or_resume(keys, costs, store, threads, [&](std::size_t j) {
            if (programs::stop_requested()) return programs::SeedRun{};
            return study.run(j / seeds, j % seeds, iterations);
        }, reused);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (reused > 0)
        std::printf("%s: reused %zu finished run%s from %s (resumed)\n", x.name.c_str(), reused, reused == 1 ? "" : "s",
                    store.dir().string().c_str());
    if (programs::stop_requested()) {
        std::size_t kept = 0;
        for (const programs::SeedRun& r : runs) kept += r.complete ? 1 : 0;
        std::fprintf(stderr, "maxent-rescue: %s: stopped; nothing was written and %s is unchanged; %zu of %zu runs "
                             "finished and stay in %s: run the same command again to train only the rest\n",
                     programs::stop_signal_name(), folder.path().string().c_str(), kept, runs.size(),
                     store.dir().string().c_str());
        return programs::stop_exit_status();
    }

    programs::ExperimentResult r;
    r.settings.iterations = iterations;
    r.settings.batch = batch;
    r.settings.alpha = alpha;
    r.settings.rho = rho;
    r.settings.seeds.clear();
    for (std::uint64_t s = 0; s < seeds; ++s) r.settings.seeds.push_back(s);
    std::vector<std::string> labels{"uniform"};
    std::vector<std::vector<double>> heat(curves + 1, std::vector<double>(heat_per_side * heat_per_side, 0.0));
    Panels panels(curves + 1);
    std::vector<double> entropy(curves + 1, 0.0);
    for (std::size_t c = 0; c <= curves; ++c) {
        const std::size_t panel = c == curves ? 0 : c + 1;
        if (c < curves) {
            labels.push_back(study.curves[c].label);
            r.curves.push_back({study.curves[c], {runs.begin() + c * seeds, runs.begin() + (c + 1) * seeds}});
        }
        std::vector<double> finals;
        for (std::size_t s = 0; s < seeds; ++s) {
            const programs::SeedRun& run = runs[c * seeds + s];
            for (std::size_t k = 0; k < run.visits.counts.size(); ++k)
                heat[panel][k] += static_cast<double>(run.visits.counts[k]);
            panels[panel].push_back(&run);
            finals.push_back(run.visits.mean_entropy);
        }
        entropy[panel] = two_pass_mean_interval(finals, 0.95).mean;
    }
    const std::string final_csv = study.report(labels, panels, iterations, seeds, seconds);

    const std::filesystem::path& dir = folder.staging();
    const std::vector<programs::CurveSummary> summary = programs::summarize(r, programs::Plotted::true_entropy);
    programs::write_file_atomically(dir / programs::output_name("runs.csv"), [&](std::FILE* f) { programs::write_runs_csv(f, r); });
    programs::write_file_atomically(dir / programs::output_name("summary.csv"), [&](std::FILE* f) { programs::write_summary_csv(f, summary); });
    programs::write_string_atomically(dir / programs::output_name("config.json"), study.config_json(iterations, seeds, threads));
    if (!final_csv.empty()) programs::write_string_atomically(dir / programs::output_name("final.csv"), final_csv);
    programs::PlotSpec spec;
    spec.generator = cat("maxent-rescue: ", x.name);
    spec.subject = study.subject;
    spec.states = true_bins_per_side * true_bins_per_side;
    spec.horizon = x.horizon;
    char uniform_title[64];
    std::snprintf(uniform_title, sizeof uniform_title, "uniform policy = %.3f", entropy[0]);
    spec.extra_lines.push_back({entropy[0], uniform_title});
    const programs::PlotOutcome curve_plot =
        programs::write_plot_script(dir, programs::gnuplot_script(spec, r, summary), o.plot, folder.path());
    const programs::PlotOutcome heat_plot = programs::write_room_heatmaps(
        dir, folder.path(), study.heatmap_title, heat_per_side, study.door, labels, heat, entropy, o.plot);
    folder.commit();
    store.clear();
    std::printf("wrote %s: curves %s; heatmaps %s\n", folder.path().string().c_str(), curve_plot.message.c_str(),
                heat_plot.message.c_str());
    return curve_plot.failed || heat_plot.failed ? 1 : 0;
}

}  // namespace
}  // namespace maxent::rescue

int main(int argc, char** argv) try {
    namespace mr = maxent::rescue;
    const std::vector<std::string> args(argv + 1, argv + argc);
    mr::Options options;
    if (const auto done = maxent::programs::parse_or_exit("maxent-rescue", "", options,
                                                          [&] { return mr::parse_command_line(args); }, mr::help_text))
        return *done;
    for (const mr::RescueExperiment& x : mr::experiments())
        if (x.name == options.experiment) return mr::run_study(x, options);
    return maxent::programs::usage_failure("maxent-rescue", maxent::programs::cat("unknown experiment '",
                                                                                  options.experiment, "'"));
} catch (const maxent::error& e) {
    std::fprintf(stderr, "maxent-rescue: %s\n", e.what());
    return 1;
} catch (const std::exception& e) {  // anything else (std::bad_alloc ...): a named error, never an abort
    std::fprintf(stderr, "maxent-rescue: error: %s\n", e.what());
    return 1;
}
