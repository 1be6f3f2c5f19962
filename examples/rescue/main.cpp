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
// It prints each curve's final true-state entropy next to the uniform policy's.
//
//   maxent-rescue [--out DIR] [--threads N] [--no-plot] [--iterations K] [--seeds N] [EXPERIMENT]
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/belief_averaged.hpp"

#include "runtime/components.hpp"
#include "runtime/output.hpp"
#include "runtime/runner.hpp"
#include "runtime/threads.hpp"
#include "heatmaps.hpp"
#include "range.hpp"
#include "training.hpp"
#include "runtime/signals.hpp"

namespace {

using maxent::programs::cat;
namespace programs = maxent::programs;

struct RescueExperiment {
    std::string name;
    std::size_t horizon = 100;
    std::size_t particles = 300;
    std::size_t iterations = 300;
    std::size_t seeds = 8;
    std::size_t heatmap_episodes = 100;  ///< per seed
};

const std::vector<RescueExperiment>& experiments() {
    static const std::vector<RescueExperiment> list{{"rescue", 100, 300, 300, 8, 100},
                                                    {"rescue-small", 30, 50, 20, 2, 10}};
    return list;
}

using namespace maxent::rescue;  // the agent, the constants, train_seed (training.hpp)
using RescueFilter = Filter<maxent::RescueWorld>;

/// One seed's run: the learning curve and the heatmap counts of its final policy.
struct SeedResult {
    programs::SeedRun run;
    std::vector<double> heat;  // heat_per_side² visit counts
    double final_entropy = 0.0;  // mean true-state entropy of the heatmap episodes (10 x 10 bins)
};

/// Counts, in a 40 x 40 grid, the counted true states of `episodes` rollouts of `policy`,
/// and returns their mean true-state entropy over the 10 x 10 bins.
double visit(const maxent::RescueWorld& world, const RescueFilter& filter, const maxent::BeliefAveragedPolicy& policy,
             std::uint64_t seed, std::size_t episodes, std::vector<double>& heat) {
    const auto fine = maxent::with_state_binning(world, heat_per_side * heat_per_side,
                                                 maxent::RescueGridBinning{heat_per_side});
    heat.assign(heat_per_side * heat_per_side, 0.0);
    maxent::EmpiricalCounter coarse(true_bins_per_side * true_bins_per_side);
    double entropy = 0.0;
    maxent::rollout_fixed_policy(fine, filter, policy, maxent::RolloutOptions{}, seed, heat_stream, 0, episodes,
                                 [&](std::size_t, const maxent::Trajectory& t, maxent::DefaultRng&) {
                                     coarse.clear();
                                     for (const std::size_t s : t.counted_states()) {
                                         heat[s] += 1.0;
                                         const std::size_t ix = (s % heat_per_side) * true_bins_per_side / heat_per_side;
                                         const std::size_t iy = (s / heat_per_side) * true_bins_per_side / heat_per_side;
                                         coarse.add(ix + true_bins_per_side * iy);
                                     }
                                     entropy += coarse.entropy();
                                 });
    return entropy / static_cast<double>(episodes);
}

SeedResult train_objective(const maxent::RescueWorld& world, const RescueExperiment& x, programs::Objective objective,
                           std::size_t iterations, std::uint64_t seed) {
    const RescueFilter filter = make_filter(world, x.particles, seed);
    TrainedSeed trained = train_seed(world, filter, programs::AnyFeedback(objective, rho), iterations, seed);
    SeedResult out;
    out.run = std::move(trained.run);
    if (!out.run.complete) return out;
    out.final_entropy = visit(world, filter, trained.policy, seed, x.heatmap_episodes, out.heat);
    return out;
}

std::string config_json(const RescueExperiment& x, const maxent::RescueWorld& world, std::size_t iterations,
                        std::size_t seeds, std::size_t threads) {
    const maxent::RescueWorldOptions& o = world.options();
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
}

[[noreturn]] void usage(const char* why) {
    const bool help = why == nullptr;  // --help: the usage on stdout, exit 0
    std::fprintf(help ? stdout : stderr,
                 "%s%susage: maxent-rescue [--out DIR] [--threads N] [--no-plot] [--iterations K] "
                 "[--seeds N] [EXPERIMENT]\nexperiments: rescue (default), rescue-small, rescue-range, rescue-range-small\n"
                 "SIGINT or SIGTERM stops the training; maxent-rescue keeps no finished runs, so nothing is "
                 "written (exit 130 or 143).\n",
                 help ? "" : "maxent-rescue: ", help ? "" : cat(why, "\n").c_str());
    std::exit(help ? 0 : 2);
}

std::size_t parse_count(const char* flag, const char* text, std::size_t max) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || !(text[0] >= '0' && text[0] <= '9') || v == 0 || v > max)
        usage(cat(flag, " must be an integer in [1, ", std::to_string(max), "], got '", text, "'").c_str());
    return static_cast<std::size_t>(v);
}

}  // namespace

int main(int argc, char** argv) try {
    if (maxent::rescue_range::is_range_experiment(argc, argv)) return maxent::rescue_range::range_main(argc, argv);
    std::filesystem::path out = "out";
    std::size_t threads = 0, iterations = 0, seeds = 0;
    bool plot = true;
    std::string name = "rescue";
    bool named = false;
    std::string command_line;
    for (int i = 0; i < argc; ++i) command_line += cat(i ? " " : "", argv[i]);
    std::vector<std::pair<std::string_view, std::string_view>> given;  // the flags given a value so far
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) usage(cat(a, " needs a value").c_str());
            for (const auto& [flag, earlier] : given)  // one value per flag, never the last one silently
                if (flag == a)
                    usage(cat(a, ": given twice ('", earlier, "', then '", argv[i + 1], "'); give it once").c_str());
            given.emplace_back(a, argv[i + 1]);
            return argv[++i];
        };
        if (a == "--out") out = value();
        else if (a == "--threads") threads = parse_count("--threads", value(), 1024);
        else if (a == "--iterations") iterations = parse_count("--iterations", value(), 10000000);
        else if (a == "--seeds") seeds = parse_count("--seeds", value(), 100000);
        else if (a == "--no-plot") plot = false;
        else if (a == "--help" || a == "-h") usage(nullptr);
        else if (!a.empty() && a[0] == '-') usage(cat("unknown option '", a, "'").c_str());
        else if (named) usage(cat("more than one experiment ('", name, "' and '", a, "'); run one at a time").c_str());
        else {
            name = a;
            named = true;
        }
    }
    threads = programs::resolve_threads(threads);
    const RescueExperiment* found = nullptr;
    for (const RescueExperiment& x : experiments())
        if (x.name == name) found = &x;
    if (found == nullptr) usage(cat("unknown experiment '", name, "'").c_str());
    const RescueExperiment& x = *found;
    if (out.empty()) usage("--out: is empty");
    if (iterations == 0) iterations = x.iterations;
    if (seeds == 0) seeds = x.seeds;

    const maxent::RescueWorld world({.horizon = x.horizon});
    const std::vector<programs::Objective> objectives{programs::Objective::mse, programs::Objective::moe,
                                                      programs::Objective::mbe, programs::Objective::reg_mbe};
    programs::OutputFolder folder;
    try {
        folder = programs::OutputFolder(out / x.name);
    } catch (const programs::output_error& e) {
        usage(cat("--out: ", e.what()).c_str());
    }
    programs::install_stop_handlers();
    const auto start = std::chrono::steady_clock::now();
    // One job per (objective, seed) and one per seed for the uniform policy's heatmap.
    const std::size_t jobs = (objectives.size() + 1) * seeds;
    const auto results = maxent::run_parallel(jobs, threads, [&](std::size_t job) {
        const std::size_t c = job / seeds;
        const std::uint64_t seed = job % seeds;
        if (c == objectives.size()) {
            SeedResult r;
            r.final_entropy = visit(world, make_filter(world, x.particles, seed),
                                    maxent::BeliefAveragedPolicy(num_features, 4), seed, x.heatmap_episodes, r.heat);
            return r;
        }
        return train_objective(world, x, objectives[c], iterations, seed);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (programs::stop_requested()) {
        std::fprintf(stderr, "maxent-rescue: %s: stopped; maxent-rescue keeps no finished runs, so nothing was written "
                             "and %s is unchanged\n", programs::stop_signal_name(), folder.path().string().c_str());
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
    std::vector<std::vector<double>> heat(objectives.size() + 1,
                                          std::vector<double>(heat_per_side * heat_per_side, 0.0));
    std::vector<double> entropy(objectives.size() + 1, 0.0);
    std::vector<std::vector<double>> finals(objectives.size() + 1);
    for (std::size_t c = 0; c <= objectives.size(); ++c) {
        const std::size_t panel = c == objectives.size() ? 0 : c + 1;
        if (c < objectives.size()) {
            programs::CurveRuns curve;
            curve.curve = {objectives[c], 0.0, programs::PolicyClass::belief_averaged,
                           std::string(programs::name_of(objectives[c]))};
            labels.push_back(curve.curve.label);
            for (std::size_t s = 0; s < seeds; ++s) curve.runs.push_back(results[c * seeds + s].run);
            r.curves.push_back(std::move(curve));
        }
        for (std::size_t s = 0; s < seeds; ++s) {
            const SeedResult& sr = results[c * seeds + s];
            for (std::size_t k = 0; k < sr.heat.size(); ++k) heat[panel][k] += sr.heat[k];
            finals[panel].push_back(sr.final_entropy);
        }
    }
    std::printf("%s: continuous rescue world, T = %zu, %zu particles, K = %zu, N = %zu, %zu seeds (%.1f s)\n",
                x.name.c_str(), x.horizon, x.particles, iterations, batch, seeds, seconds);
    std::printf("final policies' true-state entropy over %zu bins (max log %zu = %.3f), mean [95%% CI] over seeds:\n",
                true_bins_per_side * true_bins_per_side, true_bins_per_side * true_bins_per_side,
                std::log(static_cast<double>(true_bins_per_side * true_bins_per_side)));
    for (std::size_t p = 0; p < finals.size(); ++p) {
        const maxent::MeanInterval ci = maxent::two_pass_mean_interval(finals[p], 0.95);
        entropy[p] = ci.mean;
        std::printf("  %-8s %.3f [%.3f, %.3f]\n", labels[p].c_str(), ci.mean, ci.low, ci.high);
    }

    const std::filesystem::path& dir = folder.staging();
    const std::vector<programs::CurveSummary> summary = programs::summarize(r, programs::Plotted::true_entropy);
    programs::write_file_atomically(dir / programs::output_name("runs.csv"), [&](std::FILE* f) { programs::write_runs_csv(f, r); });
    programs::write_file_atomically(dir / programs::output_name("summary.csv"), [&](std::FILE* f) { programs::write_summary_csv(f, summary); });
    programs::write_string_atomically(dir / programs::output_name("config.json"), config_json(x, world, iterations, seeds, threads));
    programs::PlotSpec spec;
    spec.generator = cat("maxent-rescue: ", x.name);
    spec.subject = cat(x.name, ": continuous rescue world (4 rooms), particle beliefs (", std::to_string(x.particles),
                       " particles), true states in 10 x 10 bins");
    spec.states = true_bins_per_side * true_bins_per_side;
    spec.horizon = x.horizon;
    char uniform_title[64];
    std::snprintf(uniform_title, sizeof uniform_title, "uniform policy = %.3f", entropy[0]);
    spec.extra_lines.push_back({entropy[0], uniform_title});
    const programs::PlotOutcome curves =
        programs::write_plot_script(dir, programs::gnuplot_script(spec, r, summary), plot, folder.path());
    const programs::PlotOutcome heatmaps = programs::write_room_heatmaps(
        dir, folder.path(), "Rescue world: where the true states go (fraction of counted steps; walls in black)",
        heat_per_side, world.options().door, labels, heat, entropy, plot);
    folder.commit();
    std::printf("wrote %s: curves %s; heatmaps %s\n", folder.path().string().c_str(), curves.message.c_str(),
                heatmaps.message.c_str());
    return curves.failed || heatmaps.failed ? 1 : 0;
} catch (const maxent::error& e) {
    std::fprintf(stderr, "maxent-rescue: %s\n", e.what());
    return 1;
} catch (const std::exception& e) {  // anything else (std::bad_alloc ...): a named error, never an abort
    std::fprintf(stderr, "maxent-rescue: error: %s\n", e.what());
    return 1;
}
