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
// heatmap.csv/.gp/.png (true positions of the final policies next to the uniform policy's),
// written by the driver (main.cpp) from the Study this file gives it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/rescue_world.hpp"
#include "maxent/objective/knn_feedbacks.hpp"

#include "runtime/text.hpp"
#include "training.hpp"

namespace maxent::rescue {
namespace {

using programs::cat;
using RangeFilter = Filter<RescueRangeWorld>;
constexpr std::size_t knn_k = 3;
constexpr double knn_floor = 1e-3;  // metres: repeated positions (blocked moves) count as 1 mm apart
constexpr std::array<double, 4> moe_bin_widths{0.5, 0.25, 0.1, 0.05};

/// The curves, in their order: MSE over bins and by kNN, MOE by kNN and over binned readings,
/// MBE, Reg-MBE.
const std::vector<programs::Curve>& range_curves() {
    using O = programs::Objective;
    static const std::vector<programs::Curve> list = [] {
        const std::pair<O, const char*> curves[] = {{O::mse, "mse"},      {O::mse, "mse-knn"}, {O::moe, "moe-knn"},
                                                    {O::moe, "moe-bins"}, {O::mbe, "mbe"},     {O::reg_mbe, "reg-mbe"}};
        std::vector<programs::Curve> out;
        for (const auto& [objective, label] : curves)
            out.push_back({objective, 0.0, programs::PolicyClass::belief_averaged, label});
        return out;
    }();
    return list;
}

/// The feedback of curve c: the runtime's box, the kNN entropies held as callables (they draw
/// nothing).
programs::AnyFeedback feedback_of(const programs::Curve& c) {
    auto knn = [&](auto entropy) {
        programs::CallableFeedback f;
        f.needs = entropy.needs();
        f.fn = [entropy](const Trajectory& t) {
            int unused = 0;
            return entropy(t, unused);
        };
        f.name = c.label;
        return programs::AnyFeedback(std::move(f));
    };
    if (c.label == "mse-knn") return knn(KnnStateEntropy(knn_k, knn_floor));
    if (c.label == "moe-knn") return knn(KnnObservationEntropy(knn_k, knn_floor));
    return programs::AnyFeedback(c.objective, rho);
}

/// What the final policy of one run (or the uniform policy) does, averaged over its episodes:
/// the run's visits (mean_entropy: MSE over the 10 x 10 bins) and finals, in this order.
enum Final { mse_knn, moe_knn, moe_bins };  // moe_bins + w: width moe_bin_widths[w]

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

void evaluate_final(const RescueRangeWorld& world, const RangeFilter& filter, const BeliefAveragedPolicy& policy,
                    std::size_t episodes, programs::SeedRun& run) {
    std::vector<double>& f = run.finals;
    f.assign(moe_bins + moe_bin_widths.size(), 0.0);
    KnnEntropy knn(knn_k, knn_floor);
    std::vector<std::uint64_t> keys;
    RolloutOptions options;
    options.needs.state_points = true;
    options.needs.observation_points = true;
    visit(world, filter, policy, options, episodes, run, [&](const Trajectory& t) {
        f[mse_knn] += knn(t.counted_state_points(), t.state_point_dimension);
        const std::span<const double> readings = t.counted_observation_points();
        f[moe_knn] += knn(readings, t.observation_point_dimension);
        for (std::size_t w = 0; w < moe_bin_widths.size(); ++w)
            f[moe_bins + w] += binned_reading_entropy(readings, moe_bin_widths[w], keys);
    });
    for (double& m : f) m /= static_cast<double>(episodes);
}

std::string config_json(const RescueExperiment& x, const RescueRangeWorld& world, std::size_t iterations,
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

/// The printout of the final policies (mean [95% CI] over seeds), and final.csv's text.
std::string report(const RescueExperiment& x, const RescueRangeWorld& world, const std::vector<std::string>& labels,
                   const Panels& panels, std::size_t iterations, std::size_t seeds, double seconds) {
    std::printf("%s: rescue world with a 4-beam range sensor (sd %.2f m), T = %zu, %zu particles, K = %zu, N = %zu, "
                "%zu seeds (%.1f s)\n",
                x.name.c_str(), world.options().range_noise, x.horizon, x.particles, iterations, batch, seeds, seconds);
    std::printf("final policies, mean [95%% CI] over seeds of %zu episodes each: true-state entropy over 10 x 10 "
                "bins (max %.3f) and by kNN (k = %zu, nats, differential); MOE of the raw readings by kNN and "
                "binned at 0.5 / 0.25 / 0.1 / 0.05 m\n",
                x.heatmap_episodes, std::log(100.0), knn_k);
    std::string csv = "policy,seed,mse_bins,mse_knn,moe_knn,moe_bins_0.5,moe_bins_0.25,moe_bins_0.1,moe_bins_0.05\n";
    for (std::size_t p = 0; p < panels.size(); ++p) {
        std::vector<double> bins, knn, moe, moe_b[moe_bin_widths.size()];
        for (std::size_t s = 0; s < panels[p].size(); ++s) {
            const programs::SeedRun& r = *panels[p][s];
            const std::vector<double>& f = r.finals;
            bins.push_back(r.visits.mean_entropy);
            knn.push_back(f[mse_knn]);
            moe.push_back(f[moe_knn]);
            csv += cat(labels[p], ",", std::to_string(s), ",", programs::format_number(r.visits.mean_entropy), ",",
                       programs::format_number(f[mse_knn]), ",", programs::format_number(f[moe_knn]));
            for (std::size_t w = 0; w < moe_bin_widths.size(); ++w) {
                moe_b[w].push_back(f[moe_bins + w]);
                csv += cat(",", programs::format_number(f[moe_bins + w]));
            }
            csv += "\n";
        }
        const auto ci = [](const std::vector<double>& v) { return two_pass_mean_interval(v, 0.95); };
        const MeanInterval b = ci(bins), k = ci(knn), m = ci(moe);
        std::printf("  %-9s bins %.3f [%.3f, %.3f]  kNN %.3f [%.3f, %.3f]  MOE kNN %.3f [%.3f, %.3f]  MOE bins", labels[p].c_str(),
                    b.mean, b.low, b.high, k.mean, k.low, k.high, m.mean, m.low, m.high);
        for (std::size_t w = 0; w < moe_bin_widths.size(); ++w) std::printf(" %.3f", ci(moe_b[w]).mean);
        std::printf("\n");
    }
    return csv;
}

}  // namespace

Study range_study(const RescueExperiment& x) {
    RescueRangeOptions world_options;
    world_options.motion.horizon = x.horizon;
    const auto world = std::make_shared<const RescueRangeWorld>(world_options);
    Study study;
    study.curves = range_curves();
    study.run = [world, x](std::size_t c, std::uint64_t seed, std::size_t iterations) {
        std::optional<programs::AnyFeedback> feedback;
        if (c < range_curves().size()) feedback.emplace(feedback_of(range_curves()[c]));
        return train_seed(*world, x.particles, std::move(feedback), iterations, seed,
                          [&](const RangeFilter& filter, const BeliefAveragedPolicy& policy, programs::SeedRun& run) {
                              evaluate_final(*world, filter, policy, x.heatmap_episodes, run);
                          });
    };
    study.config_json = [world, x](std::size_t iterations, std::size_t seeds, std::size_t threads) {
        return config_json(x, *world, iterations, seeds, threads);
    };
    study.subject = cat(x.name, ": rescue world with a range sensor, particle beliefs (", std::to_string(x.particles),
                        " particles), true states in 10 x 10 bins");
    study.heatmap_title = "Rescue world, range sensor: where the true states go (fraction of counted steps; walls in black)";
    study.door = world->options().motion.door;
    study.report = [world, x](const std::vector<std::string>& labels, const Panels& panels, std::size_t iterations,
                              std::size_t seeds, double seconds) {
        return report(x, *world, labels, panels, iterations, seeds, seconds);
    };
    return study;
}

}  // namespace maxent::rescue
