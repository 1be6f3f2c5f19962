// tests/unit/programs/class_b.cpp (through test_programs.cpp) — the paper runner with the
// belief-state class B (fig5a): its curves, its runs and the table size it reports.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/choices.hpp"
#include "runtime/config_json.hpp"
#include "runtime/experiments.hpp"
#include "runtime/output.hpp"
#include "runtime/results.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"

namespace class_b_test {
using Catch::Matchers::Contains;

TEST_CASE("the paper runner's fig5 compares BA with class B and reports B's table", "[tabular][paper]") {
    namespace mp = maxent::programs;
    const mp::Experiment* e = mp::find_experiment("fig5a");
    REQUIRE(e != nullptr);
    mp::Settings s;
    s.seeds = {0, 1};
    s.iterations = 3;
    std::vector<std::string> labels;
    for (const mp::Curve& c : mp::make_curves(*e, s)) labels.push_back(c.label);
    CHECK(labels == std::vector<std::string>{"mse/BA", "mse/B", "mbe/BA", "mbe/B"});
    CHECK(mp::parse_policy_class("b") == mp::PolicyClass::belief_state);
    CHECK(e->env.variance == 0.2);
    const mp::ExperimentResult r = mp::run_experiment(*e, s, 1);
    REQUIRE(r.complete_runs() == 8);
    const mp::CurveRuns& b = r.curves[1];
    REQUIRE(b.curve.policy == mp::PolicyClass::belief_state);
    // 3 iterations x 10 trajectories x 8 beliefs: between 1 (the prior) and 240 rows.
    for (const mp::SeedRun& run : b.runs) {
        CHECK(run.table_rows > 1);
        CHECK(run.table_rows <= 240);
        CHECK(run.table_bytes > run.table_rows * 4 * sizeof(double));
    }
    CHECK(r.curves[0].runs[0].table_rows == 0);  // BA has no table
    const std::string json = mp::config_json(r, mp::RunInfo{});
    CHECK_THAT(json, Contains("\"policy_class\": \"B\""));
    CHECK_THAT(json, Contains("\"table_rows_max\": "));
    CHECK_THAT(json, Contains("\"table_bytes_max\": "));
}

}  // namespace class_b_test
