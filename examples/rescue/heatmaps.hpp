// examples/rescue/heatmaps.hpp — maxent-rescue's heatmaps of where the true states go, for
// both sensors (main.cpp: cells; range.cpp: ranges): heatmap.csv, heatmap.gp and heatmap.png
// (output.hpp write_heatmaps), panel 0 the uniform policy, then one per curve, each cell the
// fraction of counted steps; the walls x = 1/2 and y = 1/2 with doorways of width `door`
// centred at 1/4 and 3/4.
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "runtime/heatmaps.hpp"

namespace maxent::programs {

inline PlotOutcome write_room_heatmaps(const std::filesystem::path& dir, const std::filesystem::path& shown,
                                       const std::string& title, std::size_t per_side, double door,
                                       const std::vector<std::string>& labels,
                                       const std::vector<std::vector<double>>& heat,
                                       const std::vector<double>& entropy, bool render) {
    std::vector<HeatmapPanel> panels;
    for (std::size_t p = 0; p < heat.size(); ++p) {
        double total = 0.0;
        for (const double c : heat[p]) total += c;
        HeatmapPanel panel{labels[p], std::vector<double>(heat[p].size(), 0.0), {}};
        for (std::size_t k = 0; k < heat[p].size(); ++k) panel.fraction[k] = total > 0.0 ? heat[p][k] / total : 0.0;
        char note[64];
        std::snprintf(note, sizeof note, "true-state entropy %.3f", entropy[p]);
        panel.note = note;
        panels.push_back(std::move(panel));
    }
    HeatmapSpec spec;
    spec.generator = "maxent-rescue";
    spec.title = title;
    spec.width = spec.height = per_side;
    spec.cell = 1.0 / static_cast<double>(per_side);
    const double h = 0.5 * door;
    const std::array<std::pair<double, double>, 3> pieces{{{0.0, 0.25 - h}, {0.25 + h, 0.75 - h}, {0.75 + h, 1.0}}};
    for (const auto& [a, b] : pieces) {
        spec.walls.push_back({0.5, a, 0.5, b});
        spec.walls.push_back({a, 0.5, b, 0.5});
    }
    return write_heatmaps(dir, spec, panels, "ix", "iy", render, shown);
}

}  // namespace maxent::programs
