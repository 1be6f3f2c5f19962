// runtime/output.cpp — the parts of an experiment's files that roll out policies
// (the uniform baseline, the heatmaps), compiled once; and the fingerprint's JSON.
#include "output.hpp"

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/policy/uniform.hpp"

#include "fingerprint.hpp"
#include "run_store.hpp"
#include "uniform.hpp"

namespace maxent::programs {

std::string fields_json(const Fields& f) {
    std::string j = "{";
    for (std::size_t i = 0; i < f.size(); ++i)
        j += cat(i ? ", " : "", json_string(f[i].first), ": ", json_string(f[i].second));
    return j + "}";
}

void check_learned_model_text(std::string_view text, std::string_view name) {
    (void)parse_pomdp(text, name);
}

std::vector<double> uniform_baseline(const Experiment& e, const Settings& s, std::size_t threads) {
    const GridPomdp model = e.env.build();
    return run_parallel(s.seeds.size(), threads, [&](std::size_t i) {
        return uniform_entropy(model, s.counting, s.seeds[i], paper_uniform_episodes);
    });
}

std::vector<VisitCounts> uniform_visits(const Experiment& e, const Settings& s, std::size_t threads) {
    const GridPomdp model = e.env.build();
    return run_parallel(s.seeds.size(), threads, [&](std::size_t i) {
        return count_visits(model, BayesFilter<GridPomdp>(model), UniformPolicy(model.num_actions()), s.counting,
                            s.seeds[i], s.heatmap_episodes);
    });
}

std::vector<HeatmapPanel> grid_heatmap_panels(const ExperimentResult& r, std::size_t threads) {
    const std::size_t cells = r.experiment->env.num_states();
    std::vector<HeatmapPanel> panels;
    const std::vector<VisitCounts> uniform = uniform_visits(*r.experiment, r.settings, threads);
    std::vector<const VisitCounts*> runs;
    for (const VisitCounts& v : uniform) runs.push_back(&v);
    panels.push_back(visits_panel("uniform", runs, cells));
    for (const CurveRuns& c : r.curves) {
        runs.clear();
        for (const SeedRun& run : c.runs)
            if (run.complete) runs.push_back(&run.visits);
        if (!runs.empty()) panels.push_back(visits_panel(c.curve.label, runs, cells));
    }
    return panels;
}

WrittenFiles write_experiment(OutputFolder& folder, const ExperimentResult& r, const RunInfo& info,
                              const PlotOptions& plot) {
    WrittenFiles w;
    w.dir = folder.path();
    if (r.complete_runs() == 0) {
        folder.discard();
        return w;
    }
    const std::filesystem::path& dir = folder.staging();
    const std::vector<CurveSummary> summary = summarize(r, r.experiment->plotted);
    write_file_atomically(dir / output_name("runs.csv"), [&](std::FILE* f) { write_runs_csv(f, r); });
    write_file_atomically(dir / output_name("summary.csv"), [&](std::FILE* f) { write_summary_csv(f, summary); });
    write_string_atomically(dir / output_name("config.json"), config_json(r, info));
    if (has_learned_curves(r))
        write_file_atomically(dir / output_name("learning.csv"), [&](std::FILE* f) { write_learning_csv(f, r); });
    if (has_learned_curves(r)) write_learned_models(dir, r);
    const std::vector<double> uniform = uniform_baseline(*r.experiment, r.settings, plot.threads);
    write_file_atomically(dir / output_name("uniform.csv"), [&](std::FILE* f) { write_uniform_csv(f, r.settings.seeds, uniform); });
    PlotSpec p = plot_spec(*r.experiment);
    p.smooth = plot.smooth;
    if (p.plotted == Plotted::true_entropy && !uniform.empty()) {
        const MeanInterval u = two_pass_mean_interval(uniform, 0.95);
        char title[96];
        std::snprintf(title, sizeof title, "uniform random policy = %.3f", u.mean);
        p.extra_lines.push_back({u.mean, title});
    }
    w.plot = write_plot_script(dir, gnuplot_script(p, r, summary), plot.render, w.dir);
    if (r.settings.heatmap_episodes > 0) {
        HeatmapSpec spec = grid_heatmap_spec(r);
        spec.own_scales = plot.heatmap_own_scales;
        w.heatmap = write_heatmaps(dir, spec, grid_heatmap_panels(r, plot.threads), "x", "y", plot.render, w.dir);
        w.heatmaps = true;
    }
    folder.commit();
    w.wrote = true;
    return w;
}

WrittenFiles write_experiment(const std::filesystem::path& out, const ExperimentResult& r, const RunInfo& info,
                              const PlotOptions& plot) {
    if (r.complete_runs() == 0) return {out / safe_folder_name(r.experiment->name, "experiment"), false, {}, false, {}};
    OutputFolder folder = experiment_folder(out, *r.experiment);
    return write_experiment(folder, r, info, plot);
}

}  // namespace maxent::programs
