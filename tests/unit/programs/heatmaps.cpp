// tests/unit/programs/heatmaps.cpp (through test_programs.cpp) — maxent-paper's heatmaps of the final policies' visitation
// (runtime/results.hpp count_visits, uniform_baseline.hpp, output.hpp heatmap panels, the work area):
// a corridor whose visits are known exactly, E·T counted steps per run for every policy
// class and a learned belief model, counting that changes nothing else a run computes,
// fractions by hand, the walls drawn, counts kept by the work area, the flag.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/policy/observation_policy.hpp"
#include "maxent/policy/uniform.hpp"

#include "runtime/choices.hpp"
#include "runtime/cli.hpp"
#include "runtime/experiments.hpp"
#include "runtime/output.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/uniform_baseline.hpp"

namespace mp = maxent::programs;

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

}  // namespace

TEST_CASE("heatmap counts: a corridor walked to the right, counted exactly", "[paper][heatmap]") {
    // 3 x 1 corridor, start (0, 0), T = 3, deterministic moves; the policy goes right with
    // probability exactly 1 (the other logits' exp underflows to 0).
    const maxent::GridPomdp world = maxent::make_grid_world(
        {.layout = maxent::GridLayout::single_room(3, 1), .slip = 0.0, .observation = maxent::observe::gaussian_variance(0.1)});
    REQUIRE(world.horizon() == 3);
    maxent::ObservationPolicy right(world.num_observations(), 4);
    right.parameters().setConstant(-1000.0);
    right.parameters().col(static_cast<Eigen::Index>(maxent::move_index(maxent::Move::right))).setZero();
    const maxent::BayesFilter<maxent::GridPomdp> filter(world);

    // The paper's counting: s_1, s_2, s_3 = cells 0, 1, 2, once each per episode.
    const mp::VisitCounts paper = mp::count_visits(world, filter, right, maxent::StateCounting::paper, 5, 7);
    CHECK(paper.episodes == 7);
    CHECK(paper.counts == std::vector<std::uint64_t>{7, 7, 7});
    CHECK(paper.mean_entropy == Approx(std::log(3.0)));
    // The authors' counting: s_2, s_3, s_4 = cells 1, 2, 2 (the wall stops the last move).
    const mp::VisitCounts authors = mp::count_visits(world, filter, right, maxent::StateCounting::authors, 5, 7);
    CHECK(authors.counts == std::vector<std::uint64_t>{0, 7, 14});
    CHECK(authors.mean_entropy == Approx(-(std::log(1.0 / 3.0) / 3.0 + 2.0 * std::log(2.0 / 3.0) / 3.0)));
    // The policy and the updater are copies: the same call gives the same counts.
    CHECK(mp::count_visits(world, filter, right, maxent::StateCounting::paper, 5, 7) == paper);

    // A panel of both: cell fractions (7 + 0) / 42, (7 + 7) / 42, (7 + 14) / 42.
    const mp::HeatmapPanel p = mp::visits_panel("right", {&paper, &authors}, 3);
    REQUIRE(p.fraction.size() == 3);
    CHECK(p.fraction[0] == 7.0 / 42.0);
    CHECK(p.fraction[1] == 14.0 / 42.0);
    CHECK(p.fraction[2] == 21.0 / 42.0);
    CHECK_THROWS_WITH(mp::visits_panel("right", {&paper}, 4),
                      Catch::Contains("visit counts of 3 states, the world has 4"));

    // The uniform policy on the same streams: every episode still counts T = 3 steps, and
    // start cell 0 is visited at least once per episode.
    const mp::VisitCounts uniform =
        mp::count_visits(world, filter, maxent::UniformPolicy(4), maxent::StateCounting::paper, 5, 50);
    CHECK(sum(uniform.counts) == 150);
    CHECK(uniform.counts[0] >= 50);
}

TEST_CASE("heatmap counts: E T per run for every policy class and a learned model, nothing else changes",
          "[paper][heatmap]") {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    const maxent::GridPomdp model = e.env.build();
    mp::Settings s;
    s.iterations = 4;
    s.batch = 3;
    s.learning.warmup = 10;
    s.learning.heldout = 0;
    s.learning.restarts = 1;
    s.learning.em_iterations = 3;
    s.learning.refit_every = 2;  // the counts use the filter of the last refit
    s.learning.refit_iterations = 1;
    const std::vector<mp::Curve> curves{{mp::Objective::mse, 0.0, mp::PolicyClass::belief_averaged, "mse"},
                                        {mp::Objective::mbe, 0.01, mp::PolicyClass::believed_state, "mbe/S@0.01"},
                                        {mp::Objective::mse, 0.0, mp::PolicyClass::belief_state, "mse/B"},
                                        {mp::Objective::moe, 0.0, mp::PolicyClass::observation, "moe/O"},
                                        {mp::Objective::reg_mbe, 0.0, mp::PolicyClass::belief_averaged, "learned", true}};
    for (const maxent::StateCounting counting : {maxent::StateCounting::paper, maxent::StateCounting::authors}) {
        s.counting = counting;
        for (const mp::Curve& c : curves) {
            INFO(c.label << ", counting " << mp::name_of(counting));
            s.heatmap_episodes = 0;
            const mp::SeedRun off = mp::run_curve_seed(model, c, s, 3);
            CHECK(off.visits.episodes == 0);
            CHECK(off.visits.counts.empty());
            s.heatmap_episodes = 6;
            const mp::SeedRun on = mp::run_curve_seed(model, c, s, 3);
            REQUIRE(on.complete);
            CHECK(on.visits.episodes == 6);
            REQUIRE(on.visits.counts.size() == 25);
            CHECK(sum(on.visits.counts) == 6 * 25);  // E episodes x T = S = 25 counted steps
            CHECK(on.visits.mean_entropy > 0.0);
            CHECK(on.visits.mean_entropy <= std::log(25.0));
            // Counting touches nothing the training computed.
            REQUIRE(on.records.size() == off.records.size());
            for (std::size_t k = 0; k < on.records.size(); ++k) {
                CHECK(on.records[k].true_entropy == off.records[k].true_entropy);
                CHECK(on.records[k].feedback == off.records[k].feedback);
                CHECK(on.records[k].belief_entropy_sum == off.records[k].belief_entropy_sum);
            }
            CHECK(on.table_rows == off.table_rows);
            CHECK(on.fits.size() == off.fits.size());
            CHECK(mp::run_curve_seed(model, c, s, 3).visits == on.visits);  // a pure function of the seed
        }
    }
}

TEST_CASE("heatmap panels: uniform first, one per curve, fractions summing to 1, the walls of four rooms",
          "[paper][heatmap]") {
    const mp::Experiment& e = *mp::find_experiment("fig2c");
    mp::Settings s;
    s.seeds = {0, 1};
    s.iterations = 3;
    s.batch = 2;
    s.heatmap_episodes = 4;
    const mp::ExperimentResult r = mp::run_experiment(e, s, 2);
    const std::vector<mp::HeatmapPanel> panels = mp::grid_heatmap_panels(r, mp::uniform_visits(e, s, 1));
    REQUIRE(panels.size() == 5);
    CHECK(panels[0].label == "uniform");
    CHECK(panels[1].label == "mse");
    CHECK(panels[4].label == "reg-mbe");
    for (const mp::HeatmapPanel& p : panels) {
        REQUIRE(p.fraction.size() == 36);
        CHECK(std::accumulate(p.fraction.begin(), p.fraction.end(), 0.0) == Approx(1.0));
        CHECK(p.note.find("2 seeds") != std::string::npos);
    }
    // The same with 2 threads for the uniform panel.
    const std::vector<mp::HeatmapPanel> again = mp::grid_heatmap_panels(r, mp::uniform_visits(e, s, 2));
    CHECK(again[0].fraction == panels[0].fraction);
    // Four rooms 6 x 6: 4 wall pieces below row 2 (x = 1..4) and 4 right of column 2 (y = 1..4).
    const mp::HeatmapSpec spec = mp::grid_heatmap_spec(r);
    CHECK(spec.width == 6);
    CHECK(spec.y_down);
    REQUIRE(spec.walls.size() == 8);
    std::size_t horizontal = 0;
    for (const auto& w : spec.walls) horizontal += w.y1 == 2.5 && w.y2 == 2.5 ? 1 : 0;
    CHECK(horizontal == 4);
    const std::string script = mp::heatmap_script(spec, panels);
    CHECK(script.find("set yrange [5.5:-0.5]") != std::string::npos);
    // 6 cells a side: a tic at each cell's centre, none at the edges between them.
    CHECK(script.find("set xtics 0,1,5\nset ytics 0,1,5\n") != std::string::npos);
    CHECK(script.find("set multiplot layout 2,3") != std::string::npos);
    CHECK(script.find("set arrow 8 ") != std::string::npos);
    CHECK(script.find("set arrow 9 ") == std::string::npos);
    // One colour bar for the figure, drawn once with the last panel right of the grid, and the
    // canvas wide enough for it and its tick labels (0.0025: 6 characters of about 7 pixels).
    const std::size_t bar = script.find("set colorbox user origin screen ");
    REQUIRE(bar != std::string::npos);
    CHECK(script.find("set colorbox user", bar + 1) == std::string::npos);
    CHECK(script.find("unset colorbox") < script.find("plot $heat0"));
    CHECK(bar > script.find("plot $heat3"));
    CHECK(bar < script.find("plot $heat4"));
    const std::size_t size_at = script.find("pngcairo size ");
    REQUIRE(size_at != std::string::npos);
    const double canvas_width = std::stod(script.substr(size_at + 14));
    const double bar_x = std::stod(script.substr(bar + 32));
    const std::size_t margins = script.find(" margins screen ");
    REQUIRE(margins != std::string::npos);
    const double grid_right = std::stod(script.substr(script.find(',', margins) + 1));
    CHECK(bar_x > grid_right);
    CHECK((1.0 - bar_x) * canvas_width >= 15.0 + 10.0 + 6.0 * 7.0);

    // One colour scale by default: one cbrange, from 0 to the largest fraction of any panel,
    // stated once as the variable cbmax (a reader edits one number); with own_scales, one per
    // panel, each from 0 to that panel's largest fraction.
    auto count = [](const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    };
    auto range_of = [](double top) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "set cbrange [0:%.6g]\n", top);
        return std::string(buf);
    };
    double top = 0.0;
    for (const mp::HeatmapPanel& p : panels) top = std::max(top, *std::max_element(p.fraction.begin(), p.fraction.end()));
    CHECK(count(script, "set cbrange") == 1);
    CHECK(count(script, "cbmax = ") == 1);
    char stated[64];
    std::snprintf(stated, sizeof stated, "\ncbmax = %.6g\nset cbrange [0:cbmax]\n", top);
    CHECK(script.find(stated) != std::string::npos);
    CHECK(script.find(stated) < script.find("plot $heat0"));
    // The panels' peaks differ (the uniform policy's start cell), so the shared top is not any
    // other panel's own: each panel would have drawn a scale of its own.
    CHECK(*std::max_element(panels[0].fraction.begin(), panels[0].fraction.end()) !=
          *std::max_element(panels[1].fraction.begin(), panels[1].fraction.end()));
    mp::HeatmapSpec own = spec;
    own.own_scales = true;
    const std::string per_panel = mp::heatmap_script(own, panels);
    CHECK(count(per_panel, "set cbrange") == 5);
    std::size_t at = 0;
    for (const mp::HeatmapPanel& p : panels) {  // in panel order, each before its plot
        at = per_panel.find(range_of(*std::max_element(p.fraction.begin(), p.fraction.end())), at);
        REQUIRE(at != std::string::npos);
        CHECK(per_panel.find("plot $heat", at) < per_panel.find("set cbrange", at + 1));
    }
    CHECK(per_panel.find("each panel on its own colour scale") != std::string::npos);
    CHECK(per_panel.find("cbmax") == std::string::npos);
    CHECK(per_panel.find("colorbox") == std::string::npos);  // each panel's own bar, beside it
}

TEST_CASE("the work area keeps heatmap counts, a kept run with other counts is trained again", "[paper][heatmap]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("maxent-heatmap-store-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const mp::RunStore store(dir, "{\"compiler\": \"x\"}");
    mp::SeedRun run;
    run.seed = 2;
    run.complete = true;
    run.records = {{0.5, 0.25, 1.0}};
    run.visits = {3, {1, 0, 5, mp::max_kept_run_visits - 6}, 1.0 / 3.0};  // the most a run may hold
    store.save("k", run);
    const auto back = store.load("k");
    REQUIRE(back);
    CHECK(back->visits == run.visits);

    const mp::Experiment& e = *mp::find_experiment("fig2a");
    mp::Settings s;
    s.seeds = {0};
    s.iterations = 2;
    s.batch = 2;
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    s.heatmap_episodes = 3;
    const mp::RunStore area(dir / "area", "{\"compiler\": \"x\"}");
    CHECK(mp::pending_runs(e, s, nullptr, nullptr, &area) == 1);
    const mp::ExperimentResult first = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, &area);
    CHECK(first.reused == 0);
    CHECK(mp::pending_runs(e, s, nullptr, nullptr, &area) == 0);
    const mp::ExperimentResult again = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, &area);
    CHECK(again.reused == 1);
    CHECK(again.curves[0].runs[0].visits == first.curves[0].runs[0].visits);
    s.heatmap_episodes = 4;  // other counts: trained again, and counted as pending (progress total)
    CHECK(mp::pending_runs(e, s, nullptr, nullptr, &area) == 1);
    mp::RunCache cache;
    cache.insert(mp::run_key(e.env, mp::make_curves(e, s)[0], s, 0), first.curves[0].runs[0]);
    CHECK(mp::pending_runs(e, s, &cache, nullptr, nullptr) == 1);  // the cached run has E = 3
    const mp::ExperimentResult other = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, &area);
    CHECK(other.reused == 0);
    CHECK(other.curves[0].runs[0].visits.episodes == 4);
    s.heatmap_episodes = 0;  // no heatmaps: any kept run serves
    CHECK(mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, &area).reused == 1);
    store.clear();
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("the flag --heatmap-episodes: default 100, 0 turns heatmaps off, bad values named", "[paper][heatmap][cli]") {
    CHECK(mp::parse_command_line({}).settings.heatmap_episodes == 100);
    CHECK(mp::parse_command_line({"--heatmap-episodes", "0"}).settings.heatmap_episodes == 0);
    CHECK(mp::parse_command_line({"--heatmap-episodes=250"}).settings.heatmap_episodes == 250);
    CHECK(mp::Settings{}.heatmap_episodes == 0);  // other programs count nothing
    for (const char* bad : {"-1", "ten", "1e3", ""}) {
        INFO(bad);
        CHECK_THROWS_WITH(mp::parse_command_line({"--heatmap-episodes", bad}),
                          Catch::Contains("--heatmap-episodes: '" + std::string(bad) + "'"));
    }
    CHECK_FALSE(mp::parse_command_line({}).heatmap_own_scales);
    CHECK(mp::parse_command_line({"--heatmap-scale", "panel"}).heatmap_own_scales);
    CHECK_FALSE(mp::parse_command_line({"--heatmap-scale=shared"}).heatmap_own_scales);
    CHECK_THROWS_WITH(mp::parse_command_line({"--heatmap-scale", "log"}),
                      Catch::Contains("--heatmap-scale: 'log' is not one of shared, panel"));
}
