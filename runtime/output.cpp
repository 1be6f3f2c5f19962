// runtime/output.cpp — an experiment's whole set of files (write_experiment) and its
// heatmap panels, compiled once; the uniform policy's rollouts come in (uniform_baseline.hpp).
#include "output.hpp"

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "maxent/core/statistics.hpp"

namespace maxent::programs {

std::vector<HeatmapPanel> grid_heatmap_panels(const ExperimentResult& r, const std::vector<VisitCounts>& uniform) {
    const std::size_t cells = r.experiment->env.num_states();
    std::vector<HeatmapPanel> panels;
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

WrittenFiles write_experiment(OutputFolder& folder, const ExperimentResult& r, const UniformRuns& uniform_runs,
                              const RunInfo& info, const PlotOptions& plot) {
    WrittenFiles w;
    w.dir = folder.path();
    if (r.complete_runs() == 0) {
        folder.discard();
        return w;
    }
    const std::size_t seeds = r.settings.seeds.size();
    const std::size_t visits = r.settings.heatmap_episodes > 0 ? seeds : 0;
    if (uniform_runs.entropy.size() != seeds || uniform_runs.visits.size() != visits)
        throw output_error(cat("the files of '", r.experiment->name, "': the uniform policy's runs hold ",
                               std::to_string(uniform_runs.entropy.size()), " entropies and ",
                               std::to_string(uniform_runs.visits.size()), " visit counts, the study needs ",
                               std::to_string(seeds), " and ", std::to_string(visits), " (uniform_runs)"));
    const std::filesystem::path& dir = folder.staging();
    const std::vector<CurveSummary> summary = summarize(r, r.experiment->plotted);
    write_file_atomically(dir / output_name("runs.csv"), [&](std::FILE* f) { write_runs_csv(f, r); });
    write_file_atomically(dir / output_name("summary.csv"), [&](std::FILE* f) { write_summary_csv(f, summary); });
    write_string_atomically(dir / output_name("config.json"), config_json(r, info));
    if (has_learned_curves(r))
        write_file_atomically(dir / output_name("learning.csv"), [&](std::FILE* f) { write_learning_csv(f, r); });
    if (has_learned_curves(r)) write_learned_models(dir, r);
    const std::vector<double>& uniform = uniform_runs.entropy;
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
        w.heatmap = write_heatmaps(dir, spec, grid_heatmap_panels(r, uniform_runs.visits), "x", "y", plot.render, w.dir);
        w.heatmaps = true;
    }
    folder.commit();
    w.wrote = true;
    return w;
}

WrittenFiles write_experiment(const std::filesystem::path& out, const ExperimentResult& r, const UniformRuns& uniform,
                              const RunInfo& info, const PlotOptions& plot) {
    if (r.complete_runs() == 0) return {out / safe_folder_name(r.experiment->name, "experiment"), false, {}, false, {}};
    OutputFolder folder = experiment_folder(out, *r.experiment);
    return write_experiment(folder, r, uniform, info, plot);
}

}  // namespace maxent::programs
