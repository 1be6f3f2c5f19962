// tests/unit/programs/shards.cpp (through test_programs.cpp) — runtime/shards.hpp, merge.hpp, json.hpp and run_store.hpp:
// the assignment of runs to shards (every run once, deterministic, balanced by cost), the
// work area's per-run files (exact round trip, reused only by the same key and build), the
// JSON reader of config.json, and a sharded run_experiment merged back in memory.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "runtime/config_json.hpp"
#include "runtime/experiments.hpp"
#include "runtime/json.hpp"
#include "runtime/merge.hpp"
#include "runtime/output.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/shards.hpp"

namespace mp = maxent::programs;

TEST_CASE("shards: every run in exactly one slice, balanced by cost, the same everywhere", "[shards]") {
    const std::vector<std::uint64_t> costs{2, 2, 4, 3, 2, 2, 4, 3, 2, 2, 2};
    for (std::size_t n = 1; n <= 13; ++n) {
        const std::vector<std::size_t> a = mp::assign_shards(costs, n);
        CHECK(a == mp::assign_shards(costs, n));
        std::vector<std::uint64_t> load(n, 0);
        for (std::size_t j = 0; j < costs.size(); ++j) {
            REQUIRE(a[j] < n);
            load[a[j]] += costs[j];
        }
        const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
        if (n <= costs.size()) CHECK(*hi - *lo <= 4);  // greedy: within the largest cost
    }
    // Equal costs: round robin in job order.
    CHECK(mp::assign_shards({1, 1, 1, 1, 1, 1}, 4) == std::vector<std::size_t>{0, 1, 2, 3, 0, 1});

    // The selections of the N shards of a study partition its jobs.
    const mp::Experiment& e = *mp::find_experiment("fig4a");
    mp::Settings s;
    s.seeds = {0, 1, 2, 3, 4};
    const std::vector<mp::Curve> curves = mp::make_curves(e, s);
    std::vector<int> seen(curves.size() * s.seeds.size(), 0);
    for (std::size_t i = 1; i <= 7; ++i) {
        const std::vector<char> sel = mp::shard_selection(curves, s.seeds.size(), {i, 7});
        for (std::size_t j = 0; j < sel.size(); ++j) seen[j] += sel[j];
    }
    for (const int x : seen) CHECK(x == 1);
    CHECK(mp::without_shard({"fig2a", "--shard", "2/4", "--seeds", "0-3", "--shard=1/2"}) ==
          std::vector<std::string>{"fig2a", "--seeds", "0-3"});
}

TEST_CASE("the flag --shard I/N is parsed and checked", "[shards]") {
    const mp::Options o = mp::parse_command_line({"fig2a", "--shard", "3/8"});
    CHECK(o.shard.index == 3);
    CHECK(o.shard.count == 8);
    for (const char* bad : {"0/4", "5/4", "4", "a/b", "1/0", "1/100001"})
        CHECK_THROWS_WITH(mp::parse_command_line({"fig2a", "--shard", bad}),
                          Catch::Contains("--shard: '") && Catch::Contains("is not a shard I/N"));
}

TEST_CASE("the work area keeps a run exactly and only for the same key and build", "[shards]") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("maxent-runstore-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const mp::RunStore store(dir, "{\"compiler\": \"x\"}");
    mp::SeedRun run;
    run.seed = 7;
    run.complete = true;
    run.table_rows = 12;
    run.table_bytes = 3456;
    run.records = {{0.1, -1e-300, 1.0 / 3.0}, {std::nextafter(2.0, 3.0), 5e-324, mp::max_run_value}};
    store.save("key|a", run);
    const auto back = store.load("key|a");
    REQUIRE(back);
    CHECK(back->seed == 7);
    CHECK(back->complete);
    CHECK(back->table_rows == 12);
    CHECK(back->table_bytes == 3456);
    REQUIRE(back->records.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
        CHECK(back->records[k].true_entropy == run.records[k].true_entropy);
        CHECK(back->records[k].feedback == run.records[k].feedback);
        CHECK(back->records[k].belief_entropy_sum == run.records[k].belief_entropy_sum);
    }
    CHECK(back->fits.empty());
    CHECK(std::isnan(back->truth_heldout));

    // A learned-belief run keeps its fits, exactly (a NaN held-out value included).
    mp::SeedRun learned = run;
    learned.truth_heldout = -3.4913014314530235;
    learned.fits.push_back({0, 500, 100, false, -3.3503624818126441, -3.7143142830299003});
    learned.fits.push_back({2000, 1500, 10, true, 1.0 / 3.0, std::numeric_limits<double>::quiet_NaN()});
    store.save("key|learned", learned);
    const auto fits = store.load("key|learned");
    REQUIRE(fits);
    REQUIRE(fits->fits.size() == 2);
    CHECK(fits->truth_heldout == learned.truth_heldout);
    CHECK(fits->fits[0].iteration == 0);
    CHECK(fits->fits[0].episodes == 500);
    CHECK(fits->fits[0].em_iterations == 100);
    CHECK_FALSE(fits->fits[0].converged);
    CHECK(fits->fits[0].train_log_likelihood == learned.fits[0].train_log_likelihood);
    CHECK(fits->fits[0].heldout_log_likelihood == learned.fits[0].heldout_log_likelihood);
    CHECK(fits->fits[1].iteration == 2000);
    CHECK(fits->fits[1].converged);
    CHECK(fits->fits[1].train_log_likelihood == 1.0 / 3.0);
    CHECK(std::isnan(fits->fits[1].heldout_log_likelihood));
    REQUIRE(fits->records.size() == 2);

    CHECK_FALSE(store.load("key|b"));
    CHECK_FALSE(mp::RunStore(dir, "{\"compiler\": \"y\"}").load("key|a"));
    mp::SeedRun partial = run;
    partial.complete = false;
    store.save("key|c", partial);  // incomplete runs are not kept
    CHECK_FALSE(store.load("key|c"));
    store.clear();
    CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("config.json reads back: strings, numbers as written, nesting", "[shards]") {
    const mp::Json j = mp::parse_json(
        R"({"a": "x\"y\\z\n\u0001", "b": [1, 2.5e-3, -0.0], "c": {"d": true, "e": null}, "f": []})", "test");
    CHECK(j.find("a")->text == "x\"y\\z\n\x01");
    REQUIRE(j.find("b")->items.size() == 3);
    CHECK(j.find("b")->items[1].text == "2.5e-3");
    CHECK(j.find("c")->find("d")->text == "true");
    CHECK(j.find("c")->find("e")->kind == mp::Json::Kind::null);
    CHECK(j.find("f")->items.empty());
    CHECK_THROWS_WITH(mp::parse_json("{\"a\": }", "cfg"), Catch::Contains("cfg: not valid JSON"));
}

TEST_CASE("a sharded study put back together equals the whole study", "[shards]") {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    mp::Settings s;
    s.seeds = {0, 1, 2};
    s.iterations = 5;
    const mp::ExperimentResult whole = mp::run_experiment(e, s, 1);
    mp::ExperimentResult merged;
    merged.experiment = &e;
    merged.settings = s;
    merged.curves = whole.curves;
    for (mp::CurveRuns& c : merged.curves)
        for (mp::SeedRun& r : c.runs) r = {};
    const std::vector<mp::Curve> curves = mp::make_curves(e, s);
    for (std::size_t i = 1; i <= 5; ++i) {
        const std::vector<char> sel = mp::shard_selection(curves, s.seeds.size(), {i, 5});
        const mp::ExperimentResult part = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, &sel);
        CHECK_FALSE(part.interrupted);
        CHECK(part.complete_runs() == part.selected_runs());
        for (std::size_t c = 0; c < curves.size(); ++c)
            for (std::size_t k = 0; k < s.seeds.size(); ++k)
                if (part.curves[c].runs[k].complete) merged.curves[c].runs[k] = part.curves[c].runs[k];
    }
    CHECK(mp::config_json(merged, {}) == mp::config_json(whole, {}));
    for (std::size_t c = 0; c < curves.size(); ++c)
        for (std::size_t k = 0; k < s.seeds.size(); ++k) {
            const auto& a = merged.curves[c].runs[k].records;
            const auto& b = whole.curves[c].runs[k].records;
            REQUIRE(a.size() == b.size());
            for (std::size_t x = 0; x < a.size(); ++x) CHECK(a[x].true_entropy == b[x].true_entropy);
        }
}
