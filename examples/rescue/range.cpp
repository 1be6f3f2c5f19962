// maxent-rescue's range-sensor experiments: the rescue robot with a real sensor
// (model/rescue_world.hpp, RescueRangeWorld: 4 beams reading the distance to the nearest wall
// in metres, Gaussian noise), plugged in as any user simulator would be.
//
// Named experiments:
//   rescue-range        T = 100, 300 particles, K = 300 iterations of N = 10, seeds 0..7
//   rescue-range-small  T = 30, 50 particles, K = 20, seeds 0..1 (the smoke test's size)
// The agent: a particle filter of the world weighing the raw readings by their log-density,
// belief b over an 8 x 8 grid (MBE, Reg-MBE), the belief-averaged policy over φ(b) = the
// particles' mean bilinear features on a 6 x 6 grid. Curves: MSE over 10 x 10 bins, MSE by
// kNN over the true positions, MOE by kNN over the raw readings, MOE over binned readings
// (0.25 m per beam), MBE, Reg-MBE (ρ = 0.02); mean and 95% CI of the binned true-state entropy.
// After training, each final policy (and the uniform policy) is rolled out for 100 episodes
// per seed: true-state entropy binned and by kNN, MOE of the raw readings by kNN and binned
// at 0.5, 0.25, 0.1 and 0.05 m, into final.csv (one row per policy and seed) and the printout.
//
// Files in OUT/<experiment>/: runs.csv, summary.csv, curves.gp/.png, config.json, final.csv,
// heatmap.csv/.gp/.png (true positions of the final policies next to the uniform policy's).
#include "range.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/objective/knn_feedbacks.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/belief_averaged.hpp"

#include "runtime/output.hpp"
#include "runtime/runner.hpp"
#include "runtime/signals.hpp"
#include "runtime/tables.hpp"
#include "runtime/threads.hpp"
#include "heatmaps.hpp"
#include "training.hpp"

namespace maxent::rescue_range {
namespace {

using programs::cat;

struct RangeExperiment {
    std::string name;
    std::size_t horizon, particles, iterations, seeds, heatmap_episodes;
};

const std::vector<RangeExperiment>& experiments() {
    static const std::vector<RangeExperiment> list{{"rescue-range", 100, 300, 300, 8, 100},
                                                   {"rescue-range-small", 30, 50, 20, 2, 10}};
    return list;
}

using namespace maxent::rescue;  // the agent, the constants, train_seed (training.hpp)
using RangeFilter = Filter<RescueRangeWorld>;
constexpr std::size_t knn_k = 3;
constexpr double knn_floor = 1e-3;  // metres: repeated positions (blocked moves) count as 1 mm apart
constexpr std::array<double, 4> moe_bin_widths{0.5, 0.25, 0.1, 0.05};

/// The curves' feedbacks, one type for the Trainer.
enum class Kind { mse_bins, mse_knn, moe_knn, moe_bins, mbe, reg_mbe };
constexpr std::array<Kind, 6> kinds{Kind::mse_bins, Kind::mse_knn, Kind::moe_knn,
                                    Kind::moe_bins, Kind::mbe,     Kind::reg_mbe};
const char* label_of(Kind k) {
    switch (k) {
        case Kind::mse_bins: return "mse";
        case Kind::mse_knn: return "mse-knn";
        case Kind::moe_knn: return "moe-knn";
        case Kind::moe_bins: return "moe-bins";
        case Kind::mbe: return "mbe";
        case Kind::reg_mbe: return "reg-mbe";
    }
    return "?";
}
programs::Objective objective_of(Kind k) {
    switch (k) {
        case Kind::mse_bins:
        case Kind::mse_knn: return programs::Objective::mse;
        case Kind::moe_knn:
        case Kind::moe_bins: return programs::Objective::moe;
        case Kind::mbe: return programs::Objective::mbe;
        case Kind::reg_mbe: return programs::Objective::reg_mbe;
    }
    return programs::Objective::mse;
}

/// The feedback of curve kind k: the runtime's box, the kNN entropies held as callables (they
/// draw nothing).
programs::AnyFeedback feedback_of(Kind k) {
    auto knn = [](auto entropy, const char* name) {
        programs::CallableFeedback f;
        f.needs = entropy.needs();
        f.fn = [entropy](const Trajectory& t) {
            int unused = 0;
            return entropy(t, unused);
        };
        f.name = name;
        return programs::AnyFeedback(std::move(f));
    };
    switch (k) {
        case Kind::mse_knn: return knn(KnnStateEntropy(knn_k, knn_floor), "mse-knn");
        case Kind::moe_knn: return knn(KnnObservationEntropy(knn_k, knn_floor), "moe-knn");
        default: return programs::AnyFeedback(objective_of(k), rho);
    }
}

/// What the final policy of one run (or the uniform policy) does, averaged over its episodes.
struct Final {
    double mse_bins = 0.0, mse_knn = 0.0, moe_knn = 0.0;
    std::array<double, moe_bin_widths.size()> moe_bins{};
    std::vector<double> heat;  // heat_per_side² counts
};

/// H of the readings binned at width w per beam (bins from the points, as RescueRangeWorld::observation_bin).
double binned_reading_entropy(std::span<const double> points, double w, std::vector<std::uint64_t>& keys) {
    const std::size_t n = points.size() / RescueRangeWorld::beams;
    keys.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t key = 0;
        for (std::size_t j = 0; j < RescueRangeWorld::beams; ++j) {
            const double u = points[i * RescueRangeWorld::beams + j] / w;
            const std::uint64_t b = u > 0.0 ? std::min<std::uint64_t>(static_cast<std::uint64_t>(u) + 1, 65535) : 0;
            key = key * 65536 + b;
        }
        keys[i] = key;
    }
    std::sort(keys.begin(), keys.end());
    double h = 0.0;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && keys[j] == keys[i]) ++j;
        const double p = static_cast<double>(j - i) / static_cast<double>(n);
        h -= p * std::log(p);
        i = j;
    }
    return h;
}

Final evaluate_final(const RescueRangeWorld& world, const RangeFilter& filter, const BeliefAveragedPolicy& policy,
                     std::uint64_t seed, std::size_t episodes) {
    const auto fine = with_state_binning(world, heat_per_side * heat_per_side, RescueGridBinning{heat_per_side});
    Final f;
    f.heat.assign(heat_per_side * heat_per_side, 0.0);
    EmpiricalCounter coarse(true_bins_per_side * true_bins_per_side);
    KnnEntropy knn(knn_k, knn_floor);
    std::vector<std::uint64_t> keys;
    RolloutOptions options;
    options.needs.state_points = true;
    options.needs.observation_points = true;
    rollout_fixed_policy(fine, filter, policy, options, seed, heat_stream, 0, episodes,
                         [&](std::size_t, const Trajectory& t, DefaultRng&) {
                             coarse.clear();
                             for (const std::size_t s : t.counted_states()) {
                                 f.heat[s] += 1.0;
                                 const std::size_t ix = (s % heat_per_side) * true_bins_per_side / heat_per_side;
                                 const std::size_t iy = (s / heat_per_side) * true_bins_per_side / heat_per_side;
                                 coarse.add(ix + true_bins_per_side * iy);
                             }
                             f.mse_bins += coarse.entropy();
                             f.mse_knn += knn(t.counted_state_points(), t.state_point_dimension);
                             const std::span<const double> readings = t.counted_observation_points();
                             f.moe_knn += knn(readings, t.observation_point_dimension);
                             for (std::size_t w = 0; w < moe_bin_widths.size(); ++w)
                                 f.moe_bins[w] += binned_reading_entropy(readings, moe_bin_widths[w], keys);
                         });
    const auto e = static_cast<double>(episodes);
    f.mse_bins /= e;
    f.mse_knn /= e;
    f.moe_knn /= e;
    for (double& m : f.moe_bins) m /= e;
    return f;
}

struct SeedResult {
    programs::SeedRun run;
    Final final;
};

SeedResult train_kind(const RescueRangeWorld& world, const RangeExperiment& x, Kind kind, std::size_t iterations,
                      std::uint64_t seed) {
    const RangeFilter filter = make_filter(world, x.particles, seed);
    TrainedSeed trained = train_seed(world, filter, feedback_of(kind), iterations, seed);
    SeedResult out;
    out.run = std::move(trained.run);
    if (!out.run.complete) return out;
    out.final = evaluate_final(world, filter, trained.policy, seed, x.heatmap_episodes);
    return out;
}

std::string config_json(const RangeExperiment& x, const RescueRangeWorld& world, std::size_t iterations,
                        std::size_t seeds, std::size_t threads) {
    const RescueWorldOptions& o = world.options().motion;
    const auto num = programs::format_number;
    std::string j = "{\n";
    j += cat("  \"experiment\": \"", x.name, "\",\n");
    j += cat("  \"world\": {\"name\": \"rescue-range\", \"rooms\": 4, \"horizon\": ", std::to_string(o.horizon),
             ", \"step\": ", num(o.step), ", \"noise\": ", num(o.noise), ", \"door\": ", num(o.door),
             ", \"beams\": 4, \"range_noise\": ", num(world.options().range_noise), ", \"reading_bin\": ",
             num(world.options().reading_bin), "},\n");
    j += cat("  \"true_state_bins\": ", std::to_string(true_bins_per_side * true_bins_per_side), ", \"knn\": {\"k\": ",
             std::to_string(knn_k), ", \"min_distance\": ", num(knn_floor), "},\n");
    j += cat("  \"belief\": {\"model\": \"particle filter (log-density)\", \"particles\": ", std::to_string(x.particles),
             ", \"bins\": ", std::to_string(belief_bins_per_side * belief_bins_per_side), ", \"features\": \"bilinear ",
             std::to_string(feature_nodes_per_side), "x", std::to_string(feature_nodes_per_side), "\"},\n");
    j += cat("  \"policy\": \"BA over features\", \"estimator\": \"batch-mean\", \"step\": \"constant\", \"alpha\": ",
             num(alpha), ", \"rho\": ", num(rho), ", \"batch\": ", std::to_string(batch), ",\n");
    j += cat("  \"iterations\": ", std::to_string(iterations), ", \"seeds\": ", std::to_string(seeds),
             ", \"threads\": ", std::to_string(threads), ", \"final_episodes_per_seed\": ",
             std::to_string(x.heatmap_episodes), ",\n");
    j += "  \"confidence\": \"95% Student t across seeds, n - 1 degrees of freedom\"\n}\n";
    return j;
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "maxent-rescue: %s\nusage: maxent-rescue [--out DIR] [--threads N] [--no-plot] [--iterations K] "
                 "[--seeds N] [EXPERIMENT]\nexperiments: rescue (default), rescue-small, rescue-range, "
                 "rescue-range-small\n",
                 why);
    std::exit(2);
}

std::size_t parse_count(const char* flag, const char* text, std::size_t max) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || text[0] == '-' || v == 0 || v > max)
        usage(cat(flag, " must be an integer in [1, ", std::to_string(max), "], got '", text, "'").c_str());
    return static_cast<std::size_t>(v);
}

}  // namespace

bool is_range_experiment(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--out" || a == "--threads" || a == "--iterations" || a == "--seeds") {
            ++i;
            continue;
        }
        for (const RangeExperiment& x : experiments())
            if (a == x.name) return true;
    }
    return false;
}

int range_main(int argc, char** argv) try {
    std::filesystem::path out = "out";
    std::size_t threads = 0, iterations = 0, seeds = 0;
    bool plot = true;
    std::string name;
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
        else if (!a.empty() && a[0] == '-') usage(cat("unknown option '", a, "'").c_str());
        else if (!name.empty()) usage(cat("one experiment at a time: '", name, "' and '", a, "'").c_str());
        else name = a;
    }
    threads = programs::resolve_threads(threads);
    const RangeExperiment* found = nullptr;
    for (const RangeExperiment& x : experiments())
        if (x.name == name) found = &x;
    if (found == nullptr) usage(cat("unknown experiment '", name, "'").c_str());
    const RangeExperiment& x = *found;
    if (out.empty()) usage("--out: is empty");
    if (iterations == 0) iterations = x.iterations;
    if (seeds == 0) seeds = x.seeds;

    RescueRangeOptions world_options;
    world_options.motion.horizon = x.horizon;
    const RescueRangeWorld world(world_options);
    programs::OutputFolder folder;
    try {
        folder = programs::OutputFolder(out / x.name);
    } catch (const programs::output_error& e) {
        usage(cat("--out: ", e.what()).c_str());
    }
    programs::install_stop_handlers();
    const auto start = std::chrono::steady_clock::now();
    const std::size_t curves = kinds.size();
    const auto results = run_parallel((curves + 1) * seeds, threads, [&](std::size_t job) {
        const std::size_t c = job / seeds;
        const std::uint64_t seed = job % seeds;
        if (c == curves) {
            SeedResult r;
            r.final = evaluate_final(world, make_filter(world, x.particles, seed), BeliefAveragedPolicy(num_features, 4),
                                     seed, x.heatmap_episodes);
            return r;
        }
        return train_kind(world, x, kinds[c], iterations, seed);
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
    std::vector<std::vector<double>> heat(curves + 1, std::vector<double>(heat_per_side * heat_per_side, 0.0));
    std::vector<std::vector<const Final*>> finals(curves + 1);
    for (std::size_t c = 0; c <= curves; ++c) {
        const std::size_t panel = c == curves ? 0 : c + 1;
        if (c < curves) {
            programs::CurveRuns curve;
            curve.curve = {objective_of(kinds[c]), 0.0, programs::PolicyClass::belief_averaged, label_of(kinds[c])};
            labels.push_back(curve.curve.label);
            for (std::size_t s = 0; s < seeds; ++s) curve.runs.push_back(results[c * seeds + s].run);
            r.curves.push_back(std::move(curve));
        }
        for (std::size_t s = 0; s < seeds; ++s) {
            const Final& f = results[c * seeds + s].final;
            for (std::size_t k = 0; k < f.heat.size(); ++k) heat[panel][k] += f.heat[k];
            finals[panel].push_back(&f);
        }
    }
    std::printf("%s: rescue world with a 4-beam range sensor (sd %.2f m), T = %zu, %zu particles, K = %zu, N = %zu, "
                "%zu seeds (%.1f s)\n",
                x.name.c_str(), world.options().range_noise, x.horizon, x.particles, iterations, batch, seeds, seconds);
    std::printf("final policies, mean [95%% CI] over seeds of %zu episodes each: true-state entropy over 10 x 10 "
                "bins (max %.3f) and by kNN (k = %zu, nats, differential); MOE of the raw readings by kNN and "
                "binned at 0.5 / 0.25 / 0.1 / 0.05 m\n",
                x.heatmap_episodes, std::log(100.0), knn_k);
    std::vector<double> entropy(curves + 1, 0.0);
    std::string csv = "policy,seed,mse_bins,mse_knn,moe_knn,moe_bins_0.5,moe_bins_0.25,moe_bins_0.1,moe_bins_0.05\n";
    for (std::size_t p = 0; p <= curves; ++p) {
        std::vector<double> bins, knn, moe, moe_b[moe_bin_widths.size()];
        for (std::size_t s = 0; s < finals[p].size(); ++s) {
            const Final& f = *finals[p][s];
            bins.push_back(f.mse_bins);
            knn.push_back(f.mse_knn);
            moe.push_back(f.moe_knn);
            csv += cat(labels[p], ",", std::to_string(s), ",", programs::format_number(f.mse_bins), ",",
                       programs::format_number(f.mse_knn), ",", programs::format_number(f.moe_knn));
            for (std::size_t w = 0; w < moe_bin_widths.size(); ++w) {
                moe_b[w].push_back(f.moe_bins[w]);
                csv += cat(",", programs::format_number(f.moe_bins[w]));
            }
            csv += "\n";
        }
        const auto ci = [](const std::vector<double>& v) { return two_pass_mean_interval(v, 0.95); };
        const MeanInterval b = ci(bins), k = ci(knn), m = ci(moe);
        entropy[p] = b.mean;
        std::printf("  %-9s bins %.3f [%.3f, %.3f]  kNN %.3f [%.3f, %.3f]  MOE kNN %.3f [%.3f, %.3f]  MOE bins", labels[p].c_str(),
                    b.mean, b.low, b.high, k.mean, k.low, k.high, m.mean, m.low, m.high);
        for (std::size_t w = 0; w < moe_bin_widths.size(); ++w) std::printf(" %.3f", ci(moe_b[w]).mean);
        std::printf("\n");
    }

    const std::filesystem::path& dir = folder.staging();
    const std::vector<programs::CurveSummary> summary = programs::summarize(r, programs::Plotted::true_entropy);
    programs::write_file_atomically(dir / programs::output_name("runs.csv"), [&](std::FILE* f) { programs::write_runs_csv(f, r); });
    programs::write_file_atomically(dir / programs::output_name("summary.csv"), [&](std::FILE* f) { programs::write_summary_csv(f, summary); });
    programs::write_string_atomically(dir / programs::output_name("config.json"), config_json(x, world, iterations, seeds, threads));
    programs::write_string_atomically(dir / programs::output_name("final.csv"), csv);
    programs::PlotSpec spec;
    spec.generator = cat("maxent-rescue: ", x.name);
    spec.subject = cat(x.name, ": rescue world with a range sensor, particle beliefs (", std::to_string(x.particles),
                       " particles), true states in 10 x 10 bins");
    spec.states = true_bins_per_side * true_bins_per_side;
    spec.horizon = x.horizon;
    char uniform_title[64];
    std::snprintf(uniform_title, sizeof uniform_title, "uniform policy = %.3f", entropy[0]);
    spec.extra_lines.push_back({entropy[0], uniform_title});
    const programs::PlotOutcome curve_plot =
        programs::write_plot_script(dir, programs::gnuplot_script(spec, r, summary), plot, folder.path());
    const programs::PlotOutcome heat_plot = programs::write_room_heatmaps(
        dir, folder.path(),
        "Rescue world, range sensor: where the true states go (fraction of counted steps; walls in black)",
        heat_per_side, world.options().motion.door, labels, heat, entropy, plot);
    folder.commit();
    std::printf("wrote %s: curves %s; heatmaps %s\n", folder.path().string().c_str(), curve_plot.message.c_str(),
                heat_plot.message.c_str());
    return curve_plot.failed || heat_plot.failed ? 1 : 0;
} catch (const error& e) {
    std::fprintf(stderr, "maxent-rescue: %s\n", e.what());
    return 1;
}

}  // namespace maxent::rescue_range
