// runtime/output.hpp — the files of one experiment, written and replaced as one set
// (files.hpp) in OUT/<experiment>/:
//   runs.csv, learning.csv, summary.csv  the runs and the curves' bands (tables.hpp)
//   learned/<label>-seed<k>.pomdp        each learned-belief run's final learned model (POMDP file)
//   config.json                          the settings and the build (config_json.hpp)
//   uniform.csv   seed,episodes,true_entropy: the uniformly random policy's mean true-state
//                 entropy per seed of the study (uniform_baseline.hpp), maxent-paper only
//   curves.gp, curves.png, gnuplot.log   the plot (plots.hpp)
//   heatmap.csv, heatmap.gp, heatmap.png with --heatmap-episodes E > 0: where the FINAL
//                 policies take the true state (heatmaps.hpp): per panel ("uniform", then
//                 every curve) and grid cell, the counted steps spent in the cell by E
//                 episodes of the final policy of every complete run, over all their counted
//                 steps; episode e of seed s draws from stream(s, heatmap_stream_run, e)
//   visits.csv    shards only (shards.hpp): the raw counts of each run, for the merge
// The runs of a study are also kept, each as soon as it finishes, in the work area
// OUT/.<name>.runs/ beside the folder (run_store.hpp), which the program removes once the set
// is committed with every run complete. Only writes: the uniform policy's rollouts come in
// (UniformRuns, uniform_baseline.hpp), the final policies' visits with the runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "config_json.hpp"
#include "experiments.hpp"
#include "files.hpp"
#include "heatmaps.hpp"
#include "plots.hpp"
#include "results.hpp"
#include "tables.hpp"
#include "text.hpp"
#include "uniform_baseline.hpp"

namespace maxent::programs {

// ---------------------------------------------------------------------------------------
// The uniform policy's baseline (maxent-paper)
// ---------------------------------------------------------------------------------------

/// uniform.csv: `values[i]` is the uniform policy's mean true-state entropy for `seeds[i]`
/// (uniform_baseline).
inline void write_uniform_csv(std::FILE* f, const std::vector<std::uint64_t>& seeds,
                              const std::vector<double>& values) {
    std::string text = "seed,episodes,true_entropy\n";
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        text += cat(std::to_string(seeds[i]), ",", std::to_string(paper_uniform_episodes), ",");
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g\n", values[i]);
        text += buf;
    }
    std::fwrite(text.data(), 1, text.size(), f);
}

// ---------------------------------------------------------------------------------------
// maxent-paper's heatmaps (grid worlds)
// ---------------------------------------------------------------------------------------

/// A panel of the visits of `runs` on a world of `cells` true states: a cell's fraction is
/// its counts summed over the runs divided by all their counts, i.e. (every episode has the
/// same T counted steps) the mean over runs and episodes of the fraction of an episode's
/// counted steps spent in the cell. The note gives the runs' mean true-state entropy.
[[nodiscard]] inline HeatmapPanel visits_panel(const std::string& label, const std::vector<const VisitCounts*>& runs,
                                               std::size_t cells) {
    HeatmapPanel p{label, std::vector<double>(cells, 0.0), {}};
    std::vector<std::uint64_t> sum(cells, 0);
    std::uint64_t total = 0;
    double entropy = 0.0;
    for (const VisitCounts* v : runs) {
        if (v->counts.size() != cells)
            throw output_error(cat("heatmap of '", label, "': a run has visit counts of ", std::to_string(v->counts.size()),
                                   " states, the world has ", std::to_string(cells)));
        for (std::size_t k = 0; k < cells; ++k) {
            sum[k] += v->counts[k];
            total += v->counts[k];
        }
        entropy += v->mean_entropy;
    }
    if (total > 0)
        for (std::size_t k = 0; k < cells; ++k) p.fraction[k] = static_cast<double>(sum[k]) / static_cast<double>(total);
    if (!runs.empty()) {
        char note[96];
        std::snprintf(note, sizeof note, "true-state entropy %.3f, %zu seed%s",
                      entropy / static_cast<double>(runs.size()), runs.size(), runs.size() == 1 ? "" : "s");
        p.note = note;
    }
    return p;
}

/// The panels of `r` (Settings::heatmap_episodes > 0): "uniform" first (`uniform`, one per
/// seed: uniform_visits), then every curve with complete runs, in curve order.
[[nodiscard]] std::vector<HeatmapPanel> grid_heatmap_panels(const ExperimentResult& r,
                                                            const std::vector<VisitCounts>& uniform);

/// The grid of experiment `e` for heatmap_script: cell (x, y) centred at (x, y), row 0 at the
/// top, its thin walls as black segments.
[[nodiscard]] inline HeatmapSpec grid_heatmap_spec(const ExperimentResult& r) {
    const Experiment& e = *r.experiment;
    HeatmapSpec spec;
    spec.generator = cat("maxent-paper: ", e.name);
    spec.title = cat(e.name, " (", e.figure, "): ", e.env.describe(),
                     "\nwhere the final policies take the true state: fraction of the counted steps per cell, ",
                     std::to_string(r.settings.heatmap_episodes),
                     " episodes per seed, mean over seeds; walls in black, row y = 0 at the top");
    spec.width = e.env.width;
    spec.height = e.env.height;
    spec.x0 = spec.y0 = -0.5;
    spec.y_down = true;
    for (const Wall& w : e.env.grid_layout().walls()) {
        const double x = w.cell.x, y = w.cell.y;
        if (w.side == Move::down)
            spec.walls.push_back({x - 0.5, y + 0.5, x + 0.5, y + 0.5});
        else
            spec.walls.push_back({x + 0.5, y - 0.5, x + 0.5, y + 0.5});
    }
    return spec;
}

// ---------------------------------------------------------------------------------------
// Everything
// ---------------------------------------------------------------------------------------

struct WrittenFiles {
    std::filesystem::path dir;
    bool wrote = false;  ///< false when no run completed (nothing was written)
    PlotOutcome plot;
    bool heatmaps = false;  ///< heatmap.csv and heatmap.gp were written
    PlotOutcome heatmap;    ///< heatmap.png
};

/// The folder of experiment `e` under `out`: out/<name>, prepared (see OutputFolder).
[[nodiscard]] inline OutputFolder experiment_folder(const std::filesystem::path& out, const Experiment& e) {
    return OutputFolder(out / safe_folder_name(e.name, "experiment"));
}

/// How the plot is drawn: rendered by gnuplot (`render`; curves.gp is always written), the
/// moving-average window (--smooth), and the heatmaps' colour scales (--heatmap-scale panel:
/// HeatmapSpec::own_scales).
struct PlotOptions {
    bool render = true;
    std::size_t smooth = 1;
    bool heatmap_own_scales = false;
};

/// Writes the experiment's set into `folder` (prepared before the training): config.json,
/// runs.csv, summary.csv, uniform.csv, the plot and, with heatmap episodes, heatmap.csv,
/// heatmap.gp and heatmap.png (the plots rendered when `plot.render`), keeping
/// only complete runs, and commits it; `uniform` is uniform_runs(r, threads). When no run
/// completed, writes nothing and leaves the previous set.
WrittenFiles write_experiment(OutputFolder& folder, const ExperimentResult& r, const UniformRuns& uniform,
                              const RunInfo& info, const PlotOptions& plot);

/// The same, preparing out/<name> itself (for callers that did not prepare it earlier).
WrittenFiles write_experiment(const std::filesystem::path& out, const ExperimentResult& r,
                              const UniformRuns& uniform, const RunInfo& info, const PlotOptions& plot);

}  // namespace maxent::programs
