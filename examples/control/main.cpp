// maxent-control: Algorithm 1 with continuous actions. A Gaussian policy over particle-belief
// features, squashed by tanh into the world's action box, trained on the two bundled
// continuous-action worlds and compared with the uniform policy of the box.
//
// Named experiments (train.cpp lists them):
//   pendulum               the partially observed pendulum (model/pendulum.hpp): T = 100, 200
//                          particles, K = 300 iterations of N = 10, seeds 0..7; curves MSE-kNN
//                          (true states as (cos θ, sin θ, ω)), MOE-kNN (the raw tip readings),
//                          MBE and Reg-MBE (ρ = 0.02) over the filter's 12 x 8 belief bins
//   rescue-velocity        the rescue robot steered by a velocity (model/rescue_velocity.hpp):
//                          T = 100, 300 particles, K = 300, seeds 0..7; curves MSE (10 x 10
//                          bins), MOE-kNN (the range readings), MBE and Reg-MBE
//   pendulum-small, rescue-velocity-small   the smoke test's sizes (T = 30, K = 10, 2 seeds)
// Learning curves: the true-state entropy over the world's bins (pendulum: 12 angle x 8 speed
// bins; rescue: 10 x 10), mean and 95% CI over seeds. After training, each final policy and the
// uniform policy are rolled out for E episodes per seed on the same streams: the true-state
// entropy binned and by kNN (k = 3), MOE by kNN, and the paired difference with the uniform
// policy (per seed), each as mean and 95% Student-t interval over seeds.
//
// Files in OUT/<experiment>/: runs.csv, summary.csv, curves.gp/.png, config.json, final.csv
// (one row per policy and seed), heatmap.csv/.gp/.png (where the true states go: the phase
// plane (θ, ω) for the pendulum, the arena for the robot).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/statistics.hpp"

#include "runtime/files.hpp"
#include "runtime/heatmaps.hpp"
#include "runtime/plots.hpp"
#include "runtime/signals.hpp"
#include "runtime/tables.hpp"
#include "runtime/text.hpp"
#include "runtime/threads.hpp"
#include "control.hpp"

namespace maxent::control {
namespace {

using programs::cat;
const auto num = [](double v) { return programs::format_number(v); };

programs::Objective objective_of(Kind k) {
    switch (k) {
        case Kind::mse:
        case Kind::mse_knn: return programs::Objective::mse;
        case Kind::moe_knn: return programs::Objective::moe;
        case Kind::mbe: return programs::Objective::mbe;
        case Kind::reg_mbe: return programs::Objective::reg_mbe;
    }
    return programs::Objective::mse;
}

constexpr const char* usage_line =
    "usage: maxent-control [--out DIR] [--threads N] [--no-plot] [--iterations K] [--seeds N] EXPERIMENT\n"
    "experiments: pendulum, rescue-velocity (and their -small variants); files in DIR/EXPERIMENT (DIR: out)\n";

/// The usage on stderr after `why`; exit status 2.
[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr, "maxent-control: %s\n%s", why, usage_line);
    std::exit(2);
}

std::size_t parse_count(std::string_view flag, const char* text, std::size_t max) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0' || text[0] == '-' || v == 0 || v > max)
        usage(cat(flag, " must be an integer in [1, ", std::to_string(max), "], got '", text, "'").c_str());
    return static_cast<std::size_t>(v);
}

MeanInterval ci(const std::vector<double>& v) { return two_pass_mean_interval(v, 0.95); }

std::string interval_text(const MeanInterval& m) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.3f [%.3f, %.3f]", m.mean, m.low, m.high);
    return buf;
}

std::string config_json(const Experiment& x, const WorldFacts& w, std::size_t iterations, std::size_t seeds,
                        std::size_t threads) {
    std::string j = "{\n";
    j += cat("  \"experiment\": \"", x.name, "\",\n");
    j += cat("  \"world\": ", w.json, ",\n");
    j += cat("  \"belief\": ", w.agent_json, ",\n");
    j += cat("  \"policy\": \"Gaussian, mean linear in the belief features, learned state-independent log sd, tanh "
             "into the action box\", \"baseline_policy\": \"uniform on the action box\",\n");
    j += cat("  \"knn\": {\"k\": ", std::to_string(knn_k), "}, \"estimator\": \"batch-mean\", \"step\": \"adam\", "
             "\"alpha\": ", num(alpha), ", \"rho\": ", num(rho), ", \"batch\": ", std::to_string(batch), ",\n");
    j += cat("  \"iterations\": ", std::to_string(iterations), ", \"seeds\": ", std::to_string(seeds),
             ", \"threads\": ", std::to_string(threads), ", \"final_episodes_per_seed\": ",
             std::to_string(x.final_episodes), ",\n");
    j += "  \"confidence\": \"95% Student t across seeds, n - 1 degrees of freedom; differences paired by seed\"\n}\n";
    return j;
}

/// heatmap.csv/.gp/.png: panel 0 the uniform policy, then one per curve.
programs::PlotOutcome write_heat(const Experiment& x, const WorldFacts& w, const std::filesystem::path& dir,
                                 const std::filesystem::path& shown, const std::vector<std::string>& labels,
                                 const std::vector<std::vector<double>>& heat, const std::vector<double>& entropy,
                                 bool render) {
    std::vector<programs::HeatmapPanel> panels;
    for (std::size_t p = 0; p < heat.size(); ++p) {
        double total = 0.0;
        for (const double c : heat[p]) total += c;
        programs::HeatmapPanel panel{labels[p], std::vector<double>(heat[p].size(), 0.0), {}};
        for (std::size_t k = 0; k < heat[p].size(); ++k) panel.fraction[k] = total > 0.0 ? heat[p][k] / total : 0.0;
        char note[64];
        std::snprintf(note, sizeof note, "true-state entropy %.3f", entropy[p]);
        panel.note = note;
        panels.push_back(std::move(panel));
    }
    programs::HeatmapSpec spec;
    spec.generator = cat("maxent-control: ", x.name);
    spec.width = w.heat_width;
    spec.height = w.heat_height;
    if (x.world == WorldKind::pendulum) {
        spec.title = "Pendulum: where the true states go in the phase plane (angle from -pi (left) through upright "
                     "(the line) to pi, speed from -8 (bottom) to 8 rad/s)";
        spec.cell = 1.0;
        spec.own_scales = true;
        const double mid = 0.5 * static_cast<double>(w.heat_width);
        spec.walls.push_back({mid, 0.0, mid, static_cast<double>(w.heat_height)});
        return programs::write_heatmaps(dir, spec, panels, "angle_cell", "speed_cell", render, shown);
    }
    spec.title = "Rescue world steered by velocity: where the true states go (fraction of counted steps; walls in black)";
    spec.cell = 1.0 / static_cast<double>(w.heat_width);
    const double h = 0.06;  // half the doorway (RescueWorldOptions::door = 0.12)
    const std::pair<double, double> pieces[3] = {{0.0, 0.25 - h}, {0.25 + h, 0.75 - h}, {0.75 + h, 1.0}};
    for (const auto& [a, b] : pieces) {
        spec.walls.push_back({0.5, a, 0.5, b});
        spec.walls.push_back({a, 0.5, b, 0.5});
    }
    return programs::write_heatmaps(dir, spec, panels, "ix", "iy", render, shown);
}

int control_main(int argc, char** argv) try {
    std::filesystem::path out = "out";
    std::size_t threads = 0, iterations = 0, seeds = 0;
    bool plot = true;
    std::string name;
    std::vector<std::pair<std::string_view, std::string_view>> given;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) usage(cat(a, " needs a value").c_str());
            for (const auto& [flag, earlier] : given)
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
        else if (a == "--help" || a == "-h") {
            std::fputs(usage_line, stdout);
            return 0;
        }
        else if (!a.empty() && a[0] == '-') usage(cat("unknown option '", a, "'").c_str());
        else if (!name.empty()) usage(cat("one experiment at a time: '", name, "' and '", a, "'").c_str());
        else name = a;
    }
    if (name.empty()) usage("no experiment named");
    const Experiment* found = nullptr;
    for (const Experiment& x : experiments())
        if (x.name == name) found = &x;
    if (found == nullptr) usage(cat("unknown experiment '", name, "'").c_str());
    const Experiment& x = *found;
    if (out.empty()) usage("--out: is empty");
    threads = programs::resolve_threads(threads);
    if (iterations == 0) iterations = x.iterations;
    if (seeds == 0) seeds = x.seeds;
    const WorldFacts facts = world_facts(x);

    programs::OutputFolder folder;
    try {
        folder = programs::OutputFolder(out / x.name);
    } catch (const programs::output_error& e) {
        usage(cat("--out: ", e.what()).c_str());
    }
    programs::install_stop_handlers();
    const auto start = std::chrono::steady_clock::now();
    const std::size_t curves = x.kinds.size();
    // Jobs curve-major, seed-minor; the last `seeds` jobs evaluate the uniform policy.
    const std::vector<Job> results = run_parallel((curves + 1) * seeds, threads, [&](std::size_t job) {
        const std::size_t c = job / seeds;
        const std::uint64_t seed = job % seeds;
        return run_job(x, c == curves ? std::nullopt : std::optional<Kind>(x.kinds[c]), iterations, seed);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (programs::stop_requested()) {
        std::fprintf(stderr, "maxent-control: %s: stopped; nothing was written and %s is unchanged\n",
                     programs::stop_signal_name(), folder.path().string().c_str());
        return programs::stop_exit_status();
    }

    programs::ExperimentResult r;
    r.settings.iterations = iterations;
    r.settings.batch = batch;
    r.settings.alpha = alpha;
    r.settings.step = programs::StepKind::adam;
    r.settings.rho = rho;
    r.settings.seeds.clear();
    for (std::uint64_t s = 0; s < seeds; ++s) r.settings.seeds.push_back(s);
    std::vector<std::string> labels{"uniform"};
    std::vector<std::vector<double>> heat(curves + 1);
    std::vector<std::vector<const Final*>> finals(curves + 1);  // panel 0 = uniform
    for (std::size_t c = 0; c <= curves; ++c) {
        const std::size_t panel = c == curves ? 0 : c + 1;
        if (c < curves) {
            programs::CurveRuns curve;
            curve.curve = {objective_of(x.kinds[c]), 0.0, programs::PolicyClass::belief_averaged,
                           label_of(x.kinds[c])};
            labels.push_back(curve.curve.label);
            for (std::size_t s = 0; s < seeds; ++s) curve.runs.push_back(results[c * seeds + s].run);
            r.curves.push_back(std::move(curve));
        }
        for (std::size_t s = 0; s < seeds; ++s) {
            const Final& f = results[c * seeds + s].final;
            if (heat[panel].empty()) heat[panel].assign(f.heat.size(), 0.0);
            for (std::size_t k = 0; k < f.heat.size(); ++k) heat[panel][k] += f.heat[k];
            finals[panel].push_back(&f);
        }
    }

    std::printf("%s: %s; Gaussian policy over particle-belief features (%zu particles), K = %zu, N = %zu, %zu seeds "
                "(%.1f s)\n",
                x.name.c_str(), facts.description.c_str(), x.particles, iterations, batch, seeds, seconds);
    std::printf("final policies, mean [95%% CI] over seeds of %zu episodes each: true-state entropy over %zu bins "
                "(max %.3f) and by kNN (k = %zu, differential), MOE by kNN; then the difference from the uniform "
                "policy, paired by seed\n",
                x.final_episodes, facts.state_bins, std::log(static_cast<double>(facts.state_bins)), knn_k);
    std::vector<double> entropy(curves + 1, 0.0);
    std::string csv = "policy,seed,mse_bins,mse_knn,moe_knn,mean_abs_action\n";
    for (std::size_t p = 0; p <= curves; ++p) {
        std::vector<double> bins, knn, moe, d_bins, d_knn;
        for (std::size_t s = 0; s < finals[p].size(); ++s) {
            const Final& f = *finals[p][s];
            const Final& u = *finals[0][s];
            bins.push_back(f.bins);
            knn.push_back(f.knn);
            moe.push_back(f.moe_knn);
            d_bins.push_back(f.bins - u.bins);
            d_knn.push_back(f.knn - u.knn);
            csv += cat(labels[p], ",", std::to_string(s), ",", num(f.bins), ",", num(f.knn), ",", num(f.moe_knn), ",",
                       num(f.mean_abs_action), "\n");
        }
        const MeanInterval b = ci(bins), k = ci(knn), m = ci(moe);
        entropy[p] = b.mean;
        std::printf("  %-8s bins %s  kNN %s  MOE kNN %s", labels[p].c_str(), interval_text(b).c_str(),
                    interval_text(k).c_str(), interval_text(m).c_str());
        if (p > 0) {
            const MeanInterval db = ci(d_bins), dk = ci(d_knn);
            std::printf("  vs uniform: bins %+.3f [%+.3f, %+.3f], kNN %+.3f [%+.3f, %+.3f]", db.mean, db.low, db.high,
                        dk.mean, dk.low, dk.high);
        }
        std::printf("\n");
    }

    const std::filesystem::path& dir = folder.staging();
    const std::vector<programs::CurveSummary> summary = programs::summarize(r, programs::Plotted::true_entropy);
    programs::write_file_atomically(dir / programs::output_name("runs.csv"),
                                    [&](std::FILE* f) { programs::write_runs_csv(f, r); });
    programs::write_file_atomically(dir / programs::output_name("summary.csv"),
                                    [&](std::FILE* f) { programs::write_summary_csv(f, summary); });
    programs::write_string_atomically(dir / programs::output_name("config.json"),
                                      config_json(x, facts, iterations, seeds, threads));
    programs::write_string_atomically(dir / programs::output_name("final.csv"), csv);
    programs::PlotSpec spec;
    spec.generator = cat("maxent-control: ", x.name);
    spec.subject = cat(x.name, ": ", facts.description, ";\nGaussian policy (tanh into the box) over the features of ",
                       std::to_string(x.particles), " particles, true states in ", std::to_string(facts.state_bins),
                       " bins");
    spec.states = facts.state_bins;
    spec.horizon = x.horizon;
    char uniform_title[64];
    std::snprintf(uniform_title, sizeof uniform_title, "uniform policy = %.3f", entropy[0]);
    spec.extra_lines.push_back({entropy[0], uniform_title});
    // The runtime's title names the index policies' class; these curves are one Gaussian policy.
    std::string script = programs::gnuplot_script(spec, r, summary);
    const std::string ba = cat(programs::name_of(programs::PolicyClass::belief_averaged), " policy;");
    if (const std::size_t at = script.find(ba); at != std::string::npos)
        script.replace(at, ba.size(), "Gaussian policy;");
    const programs::PlotOutcome curve_plot = programs::write_plot_script(dir, script, plot, folder.path());
    const programs::PlotOutcome heat_plot = write_heat(x, facts, dir, folder.path(), labels, heat, entropy, plot);
    folder.commit();
    std::printf("wrote %s: curves %s; heatmaps %s\n", folder.path().string().c_str(), curve_plot.message.c_str(),
                heat_plot.message.c_str());
    return curve_plot.failed || heat_plot.failed ? 1 : 0;
} catch (const error& e) {
    std::fprintf(stderr, "maxent-control: %s\n", e.what());
    return 1;
}

}  // namespace
}  // namespace maxent::control

int main(int argc, char** argv) { return maxent::control::control_main(argc, argv); }
