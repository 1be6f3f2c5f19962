// tests/unit/programs/paper_runner.cpp (through test_programs.cpp) — the maxent-paper experiment runner (examples/paper/):
// Student-t quantiles against published values, the confidence-bound arithmetic against
// hand computations, the command line, the registry's curves, and a scaled-down fig2a end
// to end (files, columns, row counts, byte-identical output for 1 and 2 threads, only
// complete runs kept after an interruption).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/policy/policies.hpp"

#include "runtime/choices.hpp"
#include "runtime/cli.hpp"
#include "runtime/components.hpp"
#include "runtime/experiments.hpp"
#include "runtime/output.hpp"
#include "runtime/policy_classes.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/signals.hpp"
#include "runtime/text.hpp"
#include "runtime/threads.hpp"
#include "runtime/uniform_baseline.hpp"

namespace mp = maxent::programs;

namespace {

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (const char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

/// A fresh scratch directory, removed at scope exit.
struct ScratchDir {
    std::filesystem::path path;
    explicit ScratchDir(const std::string& tag) {
        path = std::filesystem::temp_directory_path() /
               ("maxent_paper_test_" + tag + "_" + std::to_string(static_cast<long>(getpid())));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

/// fig2a scaled down: 3 seeds, 12 iterations, batch 5 (fast also under ASan at -O0).
mp::Settings tiny_settings() {
    mp::Settings s;
    s.seeds = {0, 1, 2};
    s.iterations = 12;
    s.batch = 5;
    return s;
}

}  // namespace

TEST_CASE("Student t quantiles match published values", "[paper]") {
    CHECK(maxent::student_t_quantile(0.975, 1) == Approx(12.7062047).epsilon(1e-8));
    CHECK(maxent::student_t_quantile(0.975, 15) == Approx(2.131449546).epsilon(1e-9));
    CHECK(maxent::student_t_quantile(0.975, 30) == Approx(2.042272456).epsilon(1e-9));
    // df = 1 is the Cauchy distribution: t_p = tan(π (p - 1/2)) exactly.
    CHECK(maxent::student_t_quantile(0.975, 1) == Approx(std::tan(std::numbers::pi * 0.475)).epsilon(1e-13));
    // df = 2 has the closed form t_p = (2p - 1) / sqrt(2 p (1 - p)).
    for (const double p : {0.6, 0.9, 0.975, 0.999}) {
        const double exact = (2 * p - 1) / std::sqrt(2 * p * (1 - p));
        CHECK(maxent::student_t_quantile(p, 2) == Approx(exact).epsilon(1e-12));
    }
    // Symmetry and the median.
    CHECK(maxent::student_t_quantile(0.025, 15) == Approx(-2.131449546).epsilon(1e-9));
    CHECK(maxent::student_t_quantile(0.5, 7) == 0.0);
    // Large df approaches the normal quantile 1.959963985.
    CHECK(maxent::student_t_quantile(0.975, 1e6) == Approx(1.959963985).epsilon(1e-5));
    CHECK_THROWS_AS(maxent::student_t_quantile(1.0, 3), maxent::config_error);
    CHECK_THROWS_AS(maxent::student_t_quantile(0.9, 0), maxent::config_error);
}

TEST_CASE("two_pass_mean_interval matches a hand computation", "[paper]") {
    // {1, 2, 4}: mean 7/3, s² = (16/9 + 1/9 + 25/9) / 2 = 7/3, t_{0.975,2} = 4.302652729749464.
    const std::vector<double> v{1.0, 2.0, 4.0};
    const maxent::MeanInterval ci = maxent::two_pass_mean_interval(v);
    const double half = 4.302652729749464 * std::sqrt(7.0 / 3.0) / std::sqrt(3.0);
    CHECK(ci.n == 3);
    CHECK(ci.mean == Approx(7.0 / 3.0).epsilon(1e-15));
    CHECK(ci.low == Approx(7.0 / 3.0 - half).epsilon(1e-12));
    CHECK(ci.high == Approx(7.0 / 3.0 + half).epsilon(1e-12));
    CHECK(half == Approx(3.7945).epsilon(1e-4));
    // n = 1: the bounds are the mean (documented choice).
    const std::vector<double> one{2.5};
    const maxent::MeanInterval c1 = maxent::two_pass_mean_interval(one);
    CHECK(c1.low == 2.5);
    CHECK(c1.high == 2.5);
    CHECK(c1.n == 1);
    // Identical values: zero width.
    const std::vector<double> same{3.0, 3.0, 3.0};
    CHECK(maxent::two_pass_mean_interval(same).high == 3.0);
    CHECK_THROWS_AS(maxent::two_pass_mean_interval(std::vector<double>{}), maxent::config_error);
    CHECK_THROWS_AS(maxent::two_pass_mean_interval(std::vector<double>{1.0, std::nan("")}), maxent::config_error);
}

TEST_CASE("summarize: per-iteration bounds across complete seeds only", "[paper]") {
    const mp::Experiment* e = mp::find_experiment("fig2f");  // plots belief_entropy_sum
    REQUIRE(e != nullptr);
    mp::ExperimentResult r;
    r.experiment = e;
    r.settings.seeds = {0, 1, 2, 3};
    r.settings.iterations = 2;
    mp::CurveRuns c;
    c.curve = {mp::Objective::mbe, 0.0, mp::PolicyClass::belief_averaged, "mbe"};
    // belief_entropy_sum per seed: iteration 0 -> {1, 2, 4}, iteration 1 -> {10, 10, 13}.
    c.runs.push_back({0, {{0.5, 0.0, 1.0}, {0.1, 0.0, 10.0}}, true});
    c.runs.push_back({1, {{0.5, 0.0, 2.0}, {0.1, 0.0, 10.0}}, true});
    c.runs.push_back({2, {{0.5, 0.0, 4.0}, {0.1, 0.0, 13.0}}, true});
    c.runs.push_back({3, {{9.9, 9.9, 99.0}}, false});  // interrupted: excluded
    r.curves.push_back(c);
    const std::vector<mp::CurveSummary> s = mp::summarize(r, e->plotted);
    REQUIRE(s.size() == 1);
    REQUIRE(s[0].rows.size() == 2);
    const double t2 = 4.302652729749464;
    CHECK(s[0].rows[0].ci.n == 3);
    CHECK(s[0].rows[0].ci.mean == Approx(7.0 / 3.0));
    CHECK(s[0].rows[0].ci.high - s[0].rows[0].ci.mean == Approx(t2 * std::sqrt(7.0 / 3.0) / std::sqrt(3.0)));
    // iteration 1: mean 11, s² = (1 + 1 + 4) / 2 = 3.
    CHECK(s[0].rows[1].ci.mean == Approx(11.0));
    CHECK(s[0].rows[1].ci.low == Approx(11.0 - t2 * std::sqrt(3.0) / std::sqrt(3.0)));
    // The true-entropy column would give a zero-width band at iteration 0.
    const std::vector<mp::CurveSummary> t = mp::summarize(r, mp::Plotted::true_entropy);
    CHECK(t[0].rows[0].ci.low == Approx(0.5));
    CHECK(t[0].rows[0].ci.high == Approx(0.5));
}

TEST_CASE("the registry names every panel and labels curves", "[paper]") {
    for (const char* name : {"fig2a", "fig2b", "fig2c", "fig2d", "fig2e", "fig2f", "fig2g", "fig2h", "fig3a", "fig3b",
                             "fig3c", "fig3d", "fig4a", "fig4b", "fig4c", "fig4d", "fig4e", "fig4f", "fig5a", "fig5b"})
        CHECK(mp::find_experiment(name) != nullptr);
    CHECK(mp::find_experiment("fig2i") == nullptr);
    CHECK(mp::expand_experiment_name("fig2").size() == 8);
    CHECK(mp::expand_experiment_name("fig4").size() == 6);
    CHECK(mp::expand_experiment_name("all").size() == 20);  // the paper's panels; not room80
    CHECK(mp::experiments().size() == 26);  // and room80, nosim2b, nosim2c, nosim2d, nosim2g, rooms200
    REQUIRE(mp::find_experiment("room80") != nullptr);
    CHECK_FALSE(mp::find_experiment("room80")->paper);
    CHECK(mp::find_experiment("room80")->env.num_states() == 6400);
    CHECK(mp::expand_experiment_name("room80").size() == 1);
    // rooms200: the large map with its own horizon (T = 1000, not S); the paper's grids keep T = S.
    const mp::Experiment* rooms = mp::find_experiment("rooms200");
    REQUIRE(rooms != nullptr);
    CHECK_FALSE(rooms->paper);
    const maxent::GridPomdp big = rooms->env.build();
    CHECK(big.num_states() == 40000);
    CHECK(big.horizon() == 1000);
    CHECK(rooms->env.describe().find(", T = 1000") != std::string::npos);
    CHECK(mp::find_experiment("fig2c")->env.build().horizon() == 36);
    CHECK(mp::find_experiment("fig2c")->env.describe().find("T =") == std::string::npos);
    CHECK(mp::expand_experiment_name("nope").empty());

    const mp::Settings defaults;
    std::vector<std::string> labels;
    for (const mp::Curve& c : mp::make_curves(*mp::find_experiment("fig2a"), defaults)) labels.push_back(c.label);
    CHECK(labels == std::vector<std::string>{"mse", "moe", "mbe", "reg-mbe"});
    labels.clear();
    for (const mp::Curve& c : mp::make_curves(*mp::find_experiment("fig3a"), defaults)) labels.push_back(c.label);
    CHECK(labels == std::vector<std::string>{"mbe@0", "mbe@0.01", "mbe@0.03", "mbe@0.04", "reg-mbe@0",
                                             "reg-mbe@0.01", "reg-mbe@0.03", "reg-mbe@0.04"});
    const std::vector<mp::Curve> fig4 = mp::make_curves(*mp::find_experiment("fig4c"), defaults);
    REQUIRE(fig4.size() == 12);
    CHECK(fig4[0].label == "mse/O");
    CHECK(fig4[1].label == "mse/BA");
    CHECK(fig4[2].label == "mse/S");
    CHECK(fig4[11].label == "reg-mbe/S");
    // Paper defaults and environments.
    CHECK(defaults.seeds.size() == 16);
    CHECK(defaults.iterations == 12000);
    CHECK(defaults.batch == 10);
    CHECK(defaults.effective_alpha() == 0.3);
    CHECK(defaults.rho == 0.02);
    const mp::EnvironmentSpec& b = mp::find_experiment("fig2b")->env;
    CHECK(b.build().num_states() == 25);
    CHECK(b.variance == 10.0);
    CHECK(mp::find_experiment("fig2d")->env.build().num_observations() == 4);
    CHECK(mp::find_experiment("fig2g")->env.build().num_observations() == 2);
    CHECK(mp::find_experiment("fig2e")->env.slip == 0.1);
    CHECK(mp::find_experiment("fig5b")->env.build().num_states() == 16);
}

TEST_CASE("oracle learners are labelled and say what of the truth they were given", "[paper]") {
    // Every learner handed part of the true model carries the oracle marker in its curve labels;
    // the log-only ones are given only L = S, and only when --latent-states is not given.
    mp::Settings s;
    s.learning.learners = {"em", "em-sparse", "cloned-hmm", "em-known-motion", "em-known-sensor"};
    s.objectives = std::vector<mp::Objective>{};
    s.learned = std::vector<mp::Objective>{mp::Objective::reg_mbe};
    std::vector<std::string> labels;
    for (const mp::Curve& c : mp::make_curves(*mp::find_experiment("nosim2b"), s)) labels.push_back(c.label);
    CHECK(labels == std::vector<std::string>{"learned-reg-mbe", "learned-reg-mbe+em-sparse", "learned-reg-mbe+cloned-hmm",
                                             "learned-reg-mbe+em-known-motion(oracle)",
                                             "learned-reg-mbe+em-known-sensor(oracle)"});
    using Given = std::vector<std::string>;
    CHECK(mp::learner_given("em", s.learning) == Given{"number of states"});
    CHECK(mp::learner_given("em-known-motion", s.learning) == Given{"number of states", "transitions", "state identities"});
    CHECK(mp::learner_given("em-known-sensor", s.learning) == Given{"number of states", "emissions"});
    s.learning.latent_states = 7;  // L given: the log-only learners know nothing of the world
    CHECK(mp::learner_given("cloned-hmm", s.learning).empty());
    CHECK(mp::learner_given("em-sparse", s.learning).empty());
    CHECK(mp::learner_given("em-known-sensor", s.learning) == Given{"number of states", "emissions"});
}

TEST_CASE("the command line overrides settings and rejects bad values", "[paper]") {
    const mp::Options o = mp::parse_command_line({"fig3a", "--seeds", "0-3,8", "--iterations=50", "--batch", "4",
                                                  "--objectives", "mbe,reg-mbe", "--noise", "0,0.02", "--rho",
                                                  "0.05", "--threads", "2", "--out", "x", "--estimator", "optimal",
                                                  "--step", "adam", "--counting", "authors", "--quiet"});
    CHECK(o.experiments == std::vector<std::string>{"fig3a"});
    CHECK(o.settings.seeds == std::vector<std::uint64_t>{0, 1, 2, 3, 8});
    CHECK(o.settings.iterations == 50);
    CHECK(o.settings.batch == 4);
    REQUIRE(o.settings.objectives.has_value());
    CHECK(o.settings.objectives->size() == 2);
    REQUIRE(o.settings.noises.has_value());
    CHECK((*o.settings.noises)[1] == 0.02);
    CHECK(o.settings.rho == 0.05);
    CHECK(o.threads == 2);
    CHECK(o.out == "x");
    CHECK(o.settings.estimator == mp::EstimatorKind::optimal);
    CHECK(o.settings.step == mp::StepKind::adam);
    CHECK(o.settings.effective_alpha() == 0.05);
    CHECK(o.settings.counting == maxent::StateCounting::authors);
    CHECK(o.progress == mp::Options::ProgressMode::quiet);

    auto message_of = [](std::vector<std::string> args) -> std::string {
        try {
            (void)mp::parse_command_line(args);
        } catch (const mp::usage_error& e) {
            return e.what();
        }
        return "(no error)";
    };
    const std::string m1 = message_of({"--iterations", "abc"});
    CHECK(m1.find("--iterations") != std::string::npos);
    CHECK(m1.find("abc") != std::string::npos);
    CHECK(message_of({"--seeds", "5-2"}).find("5-2") != std::string::npos);
    CHECK(message_of({"--seeds", "1,1"}).find("twice") != std::string::npos);
    CHECK(message_of({"--objectives", "mse,foo"}).find("foo") != std::string::npos);
    CHECK(message_of({"--frobnicate"}).find("--frobnicate") != std::string::npos);
    CHECK(message_of({"--rho", "-1"}).find("-1") != std::string::npos);
    CHECK(message_of({"--alpha", "0"}).find("--alpha") != std::string::npos);
    CHECK(message_of({"--batch"}).find("missing value") != std::string::npos);
    CHECK(message_of({"fig9"}).find("fig9") != std::string::npos);
    CHECK(message_of({"--step", "sgd"}).find("sgd") != std::string::npos);
    CHECK(message_of({"--list=1"}).find("--list") != std::string::npos);
    CHECK(mp::parse_command_line({"--help"}).help);
    CHECK(mp::parse_command_line({}).experiments.empty());
}

TEST_CASE("a scaled-down fig2a end to end: files, columns, bounds, thread independence", "[paper]") {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    const mp::Settings s = tiny_settings();
    const mp::ExperimentResult r1 = mp::run_experiment(e, s, 1);
    const mp::ExperimentResult r2 = mp::run_experiment(e, s, 2);
    REQUIRE(r1.complete_runs() == 12);
    CHECK_FALSE(r1.interrupted);

    ScratchDir d1("t1"), d2("t2");
    mp::RunInfo info;
    info.version = "test";
    const mp::WrittenFiles w1 = mp::write_experiment(d1.path, r1, mp::uniform_runs(r1, 1), info, {.render = false});
    info.threads = 2;
    const mp::WrittenFiles w2 = mp::write_experiment(d2.path, r2, mp::uniform_runs(r2, 1), info, {.render = false});
    REQUIRE(w1.wrote);
    REQUIRE(w2.wrote);
    for (const char* f : {"runs.csv", "summary.csv", "config.json", "curves.gp"})
        CHECK(std::filesystem::exists(w1.dir / f));
    CHECK_FALSE(std::filesystem::exists(w1.dir / "runs.csv.tmp"));

    const std::string runs1 = read_file(w1.dir / "runs.csv"), runs2 = read_file(w2.dir / "runs.csv");
    const std::string sum1 = read_file(w1.dir / "summary.csv"), sum2 = read_file(w2.dir / "summary.csv");
    CHECK(runs1 == runs2);  // byte-identical for 1 and 2 threads
    CHECK(sum1 == sum2);

    const std::vector<std::string> rows = lines_of(runs1);
    REQUIRE(rows.size() == 1 + 4 * 3 * 12);
    CHECK(rows[0] == "objective,seed,iteration,true_entropy,feedback,belief_entropy_sum");
    CHECK(rows[1].rfind("mse,0,0,", 0) == 0);
    CHECK(rows.back().rfind("reg-mbe,2,11,", 0) == 0);
    for (std::size_t i = 1; i < rows.size(); ++i) REQUIRE(split(rows[i], ',').size() == 6);
    // MSE: the feedback is the true-state entropy itself.
    const std::vector<std::string> first = split(rows[1], ',');
    CHECK(first[3] == first[4]);
    // Entropies lie in [0, log S]; Σ_t H(b_t) in [0, T log S].
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const std::vector<std::string> f = split(rows[i], ',');
        const double h = std::stod(f[3]), b = std::stod(f[5]);
        REQUIRE(h >= 0.0);
        REQUIRE(h <= std::log(25.0) + 1e-12);
        REQUIRE(b >= 0.0);
        REQUIRE(b <= 25 * std::log(25.0) + 1e-9);
    }

    // summary.csv: header, 4 curves x 12 iterations, and the bounds of "mbe" at iteration 7
    // recomputed by hand from the three runs.csv rows (%.17g round-trips exactly).
    const std::vector<std::string> srows = lines_of(sum1);
    REQUIRE(srows.size() == 1 + 4 * 12);
    CHECK(srows[0] == "objective,iteration,mean,ci_low,ci_high,n");
    std::vector<double> x;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const std::vector<std::string> f = split(rows[i], ',');
        if (f[0] == "mbe" && f[2] == "7") x.push_back(std::stod(f[3]));
    }
    REQUIRE(x.size() == 3);
    const double mean = (x[0] + x[1] + x[2]) / 3.0;
    const double var = ((x[0] - mean) * (x[0] - mean) + (x[1] - mean) * (x[1] - mean) + (x[2] - mean) * (x[2] - mean)) / 2.0;
    const double half = 4.302652729749464 * std::sqrt(var / 3.0);
    const std::vector<std::string> srow = split(srows[1 + 2 * 12 + 7], ',');
    REQUIRE(srow.size() == 6);
    CHECK(srow[0] == "mbe");
    CHECK(srow[1] == "7");
    CHECK(std::stod(srow[2]) == Approx(mean).epsilon(1e-14));
    CHECK(std::stod(srow[3]) == Approx(mean - half).epsilon(1e-12));
    CHECK(std::stod(srow[4]) == Approx(mean + half).epsilon(1e-12));
    CHECK(srow[5] == "3");

    const std::string config = read_file(w1.dir / "config.json");
    CHECK(config.find("\"seeds\": [0, 1, 2]") != std::string::npos);
    CHECK(config.find("\"iterations\": 12") != std::string::npos);
    CHECK(config.find("\"batch\": 5") != std::string::npos);
    CHECK(config.find("\"maxent_version\": \"test\"") != std::string::npos);
    CHECK(config.find("\"observation_variance\": 0.1") != std::string::npos);
}

TEST_CASE("an interrupted experiment keeps only complete runs", "[paper]") {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    mp::Settings s = tiny_settings();
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    std::atomic<bool> stop{true};
    ScratchDir d("stop");

    // Stopped before any iteration: nothing complete, nothing written.
    const mp::ExperimentResult none = mp::run_experiment(e, s, 2, &stop);
    CHECK(none.interrupted);
    CHECK(none.complete_runs() == 0);
    CHECK_FALSE(mp::write_experiment(d.path, none, mp::uniform_runs(none, 1), {}, {.render = false}).wrote);
    CHECK_FALSE(std::filesystem::exists(d.path / "fig2a"));

    // Seed 1 finished earlier (shared through the cache), seeds 0 and 2 interrupted.
    mp::RunCache cache;
    mp::Settings one = s;
    one.seeds = {1};
    const mp::ExperimentResult done = mp::run_experiment(e, one, 1, nullptr, nullptr, &cache);
    REQUIRE(cache.size() == 1);
    const mp::ExperimentResult partial = mp::run_experiment(e, s, 2, &stop, nullptr, &cache);
    CHECK(partial.interrupted);
    CHECK(partial.complete_runs() == 1);
    const mp::WrittenFiles w = mp::write_experiment(d.path, partial, mp::uniform_runs(partial, 1), {}, {.render = false});
    REQUIRE(w.wrote);
    const std::vector<std::string> rows = lines_of(read_file(w.dir / "runs.csv"));
    REQUIRE(rows.size() == 1 + 12);
    CHECK(rows[1].rfind("mse,1,0,", 0) == 0);
    // The cached run is the same run: identical numbers.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", done.curves[0].runs[0].records[0].true_entropy);
    CHECK(split(rows[1], ',')[3] == buf);
    // n = 1: the bounds equal the mean.
    const std::vector<std::string> srow = split(lines_of(read_file(w.dir / "summary.csv"))[1], ',');
    CHECK(srow[2] == srow[3]);
    CHECK(srow[2] == srow[4]);
    CHECK(srow[5] == "1");
}

TEST_CASE("files are replaced atomically", "[paper]") {
    ScratchDir d("atomic");
    const std::filesystem::path p = d.path / "f.csv";
    mp::write_string_atomically(p, "old\n");
    CHECK_THROWS(mp::write_file_atomically(p, [](std::FILE* f) {
        std::fputs("partial", f);
        throw std::runtime_error("writer failed");
    }));
    CHECK(read_file(p) == "old\n");
    CHECK_FALSE(std::filesystem::exists(d.path / "f.csv.tmp"));
    mp::write_string_atomically(p, "new\n");
    CHECK(read_file(p) == "new\n");
}

TEST_CASE("fig2f shares the runs of fig2e and plots the regulariser", "[paper]") {
    mp::Settings s;
    s.seeds = {4};
    s.iterations = 3;
    s.objectives = std::vector<mp::Objective>{mp::Objective::reg_mbe};
    mp::RunCache cache;
    const mp::ExperimentResult e = mp::run_experiment(*mp::find_experiment("fig2e"), s, 1, nullptr, nullptr, &cache);
    CHECK(mp::pending_runs(*mp::find_experiment("fig2f"), s, &cache) == 0);
    const mp::ExperimentResult f = mp::run_experiment(*mp::find_experiment("fig2f"), s, 1, nullptr, nullptr, &cache);
    CHECK(f.iterations_run == 0);
    REQUIRE(f.complete_runs() == 1);
    const std::vector<mp::CurveSummary> sf = mp::summarize(f, f.experiment->plotted);
    CHECK(sf[0].rows[2].ci.mean == e.curves[0].runs[0].records[2].belief_entropy_sum);
    const std::string script = mp::gnuplot_script(f, sf);
    CHECK(script.find("Σ_t H(b_t)") != std::string::npos);
    CHECK(script.find("T log S") != std::string::npos);
    const std::string script_e = mp::gnuplot_script(e, mp::summarize(e, e.experiment->plotted));
    CHECK(script_e.find("true-state entropy") != std::string::npos);
    CHECK(script_e.find("log S = log 25") != std::string::npos);
}

TEST_CASE("one work queue: each experiment's runs are those it gets alone, for any thread count", "[paper]") {
    mp::Settings s;
    s.seeds = {0, 3};
    s.iterations = 4;
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse, mp::Objective::reg_mbe};
    std::vector<mp::ExperimentPlan> plans;
    for (const char* name : {"fig2a", "fig2e", "fig2f", "fig2c"}) {
        mp::ExperimentPlan p;
        p.experiment = mp::find_experiment(name);
        p.settings = s;
        p.progress_curve_offset = 2 * plans.size();
        plans.push_back(p);
    }
    plans[0].selected = {1, 0, 0, 1};  // a shard's slice of fig2a
    // fig2c's runs (6 x 6, T = 36) are estimated (36 * 36) / (25 * 25) times fig2a's: they start first.
    const mp::Curve c = mp::make_curves(*plans[0].experiment, s)[0];
    CHECK(mp::estimated_run_cost(plans[3].experiment->env.build(), c, s) * 625 ==
          mp::estimated_run_cost(plans[0].experiment->env.build(), c, s) * 1296);
    for (const std::size_t threads : {std::size_t{1}, std::size_t{3}}) {
        mp::ProgressCounters progress(8);
        for (mp::ExperimentPlan& p : plans) p.progress = &progress;
        const std::vector<mp::ExperimentResult> all = mp::run_experiments(plans, threads);
        REQUIRE(all.size() == plans.size());
        for (std::size_t p = 0; p < plans.size(); ++p) {
            const std::vector<char>* sel = plans[p].selected.empty() ? nullptr : &plans[p].selected;
            const mp::ExperimentResult alone = mp::run_experiment(*plans[p].experiment, s, 1, nullptr, nullptr, nullptr, sel);
            REQUIRE(all[p].curves.size() == alone.curves.size());
            CHECK_FALSE(all[p].interrupted);
            for (std::size_t k = 0; k < alone.curves.size(); ++k) {
                std::size_t wanted = 0;
                for (std::size_t i = 0; i < s.seeds.size(); ++i) {
                    wanted += all[p].is_selected(k, i) ? 1 : 0;
                    const mp::SeedRun& a = all[p].curves[k].runs[i];
                    const mp::SeedRun& b = alone.curves[k].runs[i];
                    CHECK(a.complete == b.complete);
                    REQUIRE(a.records.size() == b.records.size());
                    for (std::size_t r = 0; r < a.records.size(); ++r) {
                        CHECK(a.records[r].true_entropy == b.records[r].true_entropy);
                        CHECK(a.records[r].feedback == b.records[r].feedback);
                        CHECK(a.records[r].belief_entropy_sum == b.records[r].belief_entropy_sum);
                    }
                }
                CHECK(progress.runs_done[2 * p + k].load() == wanted);  // each plan's curves at its offset
            }
        }
        CHECK(all[0].complete_runs() == 2);
        CHECK(all[1].iterations_run == 4 * 4);  // fig2e trains its 4 runs ...
        CHECK(all[2].iterations_run == 0);      // ... and fig2f shares them
        CHECK(all[2].shared == 4);
        CHECK(all[3].iterations_run == 4 * 4);
    }
}

TEST_CASE("threads default to the CPUs the process may use: its affinity mask and its Slurm task", "[paper]") {
    for (const char* v : {"SLURM_CPUS_PER_TASK", "SLURM_JOB_ID", "SLURM_CPUS_ON_NODE"}) unsetenv(v);
    cpu_set_t mask;
    REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
    const std::size_t cpus = static_cast<std::size_t>(CPU_COUNT(&mask));
    CHECK(mp::usable_threads() == cpus);
    CHECK(mp::resolve_threads(3) == 3);
    CHECK(mp::resolve_threads(0) == cpus);
    // Pinned to one CPU (as by taskset -c): one thread.
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask)) {
            CPU_SET(c, &one);
            break;
        }
    REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
    CHECK(mp::usable_threads() == 1);
    REQUIRE(sched_setaffinity(0, sizeof mask, &mask) == 0);
    // A Slurm task: its --cpus-per-task, else the job's CPUs on the node; never above the mask.
    setenv("SLURM_CPUS_PER_TASK", "1", 1);
    CHECK(mp::usable_threads() == 1);
    setenv("SLURM_CPUS_PER_TASK", "100000", 1);
    CHECK(mp::usable_threads() == cpus);
    setenv("SLURM_CPUS_PER_TASK", "two", 1);
    CHECK(mp::usable_threads() == cpus);
    unsetenv("SLURM_CPUS_PER_TASK");
    setenv("SLURM_CPUS_ON_NODE", "1", 1);
    CHECK(mp::usable_threads() == cpus);  // not in a job: ignored
    setenv("SLURM_JOB_ID", "42", 1);
    CHECK(mp::usable_threads() == 1);
    for (const char* v : {"SLURM_CPUS_PER_TASK", "SLURM_JOB_ID", "SLURM_CPUS_ON_NODE"}) unsetenv(v);
}

// ---------------------------------------------------------------------------------------
// Reliability: the command line's numbers and seed lists, the output set as a
// whole, the gnuplot script's strings, the stop signals.
// ---------------------------------------------------------------------------------------

namespace {
std::string usage_message(const std::vector<std::string>& args) {
    try {
        (void)mp::parse_command_line(args);
    } catch (const mp::usage_error& e) {
        return e.what();
    }
    return "(no error)";
}
}  // namespace

TEST_CASE("numbers that underflow or overflow a double say so", "[paper][reliability]") {
    const std::string under = usage_message({"--noise", "1e-400"});
    CHECK(under.find("--noise") != std::string::npos);
    CHECK(under.find("'1e-400'") != std::string::npos);
    CHECK(under.find("underflows") != std::string::npos);
    CHECK(under.find("[0, 1]") == std::string::npos);
    const std::string over = usage_message({"--noise", "0,1e400"});
    CHECK(over.find("'1e400'") != std::string::npos);
    CHECK(over.find("overflows") != std::string::npos);
    CHECK(usage_message({"--rho", "1e-400"}).find("underflows") != std::string::npos);
    CHECK(usage_message({"--alpha", "-1e999"}).find("overflows") != std::string::npos);
    // Still "not a number" / out of [0, 1] when that is the problem; a denormal is a number.
    CHECK(usage_message({"--noise", "2"}).find("[0, 1]") != std::string::npos);
    CHECK(usage_message({"--rho", "x"}).find("is not a finite number") != std::string::npos);
    CHECK((*mp::parse_command_line({"--noise", "1e-310"}).settings.noises)[0] == 1e-310);
}

TEST_CASE("seed lists: duplicates found in O(n log n), same messages and order", "[paper][reliability]") {
    const auto start = std::chrono::steady_clock::now();
    CHECK(usage_message({"--seeds", "0-99998,50"}) == "--seeds: '0-99998,50' lists seed 50 twice");
    const mp::Options o = mp::parse_command_line({"--seeds", "99999,0-99998"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    REQUIRE(o.settings.seeds.size() == 100000);
    CHECK(o.settings.seeds.front() == 99999);
    CHECK(o.settings.seeds[1] == 0);
    CHECK(o.settings.seeds.back() == 99998);
    CHECK(seconds < 1.0);  // the quadratic check took 3 to 6 s
    CHECK(usage_message({"--seeds", "7,3-9,3"}) == "--seeds: '7,3-9,3' lists seed 7 twice");
    CHECK(usage_message({"--seeds", "1,1,x"}) == "--seeds: '1,1,x' lists seed 1 twice");
    CHECK(mp::parse_command_line({"--seeds", "5,0-2,9"}).settings.seeds == std::vector<std::uint64_t>{5, 0, 1, 2, 9});
}

TEST_CASE("folder names never leave the output directory", "[paper][reliability]") {
    CHECK(mp::safe_folder_name("tiger.95") == "tiger.95");
    CHECK(mp::safe_folder_name("..") == "model");
    CHECK(mp::safe_folder_name(".") == "model");
    CHECK(mp::safe_folder_name("") == "model");
    CHECK(mp::safe_folder_name(".hidden") == "hidden");
    CHECK(mp::safe_folder_name("a/../b") == "a_.._b");
    CHECK(mp::safe_folder_name("new\nline") == "new_line");
    CHECK(mp::safe_folder_name("x\\y") == "x_y");
}

TEST_CASE("the output set is replaced as a whole", "[paper][reliability]") {
    ScratchDir d("set");
    const std::filesystem::path final_dir = d.path / "fig2a";
    {
        mp::OutputFolder f(final_dir);
        CHECK_FALSE(std::filesystem::exists(final_dir));  // nothing visible before commit
        mp::write_string_atomically(f.staging() / "runs.csv", "old\n");
        mp::write_string_atomically(f.staging() / "curves.png", "old plot\n");
        f.commit();
    }
    CHECK(read_file(final_dir / "runs.csv") == "old\n");
    // A legacy temporary of a killed older version is replaced with the set.
    mp::write_string_atomically(final_dir / "summary.csv.tmp", "stale\n");
    {
        mp::OutputFolder f(final_dir);
        mp::write_string_atomically(f.staging() / "runs.csv", "new\n");  // no plot this time
        f.commit();
    }
    CHECK(read_file(final_dir / "runs.csv") == "new\n");
    CHECK_FALSE(std::filesystem::exists(final_dir / "curves.png"));  // no plot of an earlier run
    CHECK_FALSE(std::filesystem::exists(final_dir / "summary.csv.tmp"));
    {
        mp::OutputFolder f(final_dir);  // not committed (an error, or no complete run)
        mp::write_string_atomically(f.staging() / "runs.csv", "lost\n");
    }
    CHECK(read_file(final_dir / "runs.csv") == "new\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(d.path)) ++entries;
    CHECK(entries == 1);  // no staging or old folder left behind

    // Refused before any work: a file in place of the directory, a folder with foreign files.
    mp::write_string_atomically(d.path / "file", "x");
    CHECK_THROWS_WITH(mp::OutputFolder(d.path / "file" / "fig2a"), Catch::Contains("Not a directory"));
    CHECK_THROWS_WITH(mp::OutputFolder(d.path / "file"), Catch::Contains("Not a directory"));
    mp::write_string_atomically(final_dir / "notes.txt", "mine");
    CHECK_THROWS_WITH(mp::OutputFolder(final_dir), Catch::Contains("notes.txt"));
}

TEST_CASE("a run killed while writing leaves the previous set, and the next run cleans up", "[paper][reliability]") {
    ScratchDir d("kill");
    const std::filesystem::path final_dir = d.path / "fig2a";
    {
        mp::OutputFolder f(final_dir);
        mp::write_string_atomically(f.staging() / "runs.csv", "old runs\n");
        mp::write_string_atomically(f.staging() / "config.json", "old config\n");
        f.commit();
    }
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // a rerun killed after writing runs.csv, before config.json
        mp::OutputFolder f(final_dir);
        mp::write_string_atomically(f.staging() / "runs.csv", "new runs\n");
        raise(SIGKILL);
        _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    CHECK(read_file(final_dir / "runs.csv") == "old runs\n");
    CHECK(read_file(final_dir / "config.json") == "old config\n");
    const std::filesystem::path stale = d.path / (".fig2a.partial-" + std::to_string(child));
    CHECK(std::filesystem::exists(stale / "runs.csv"));
    { mp::OutputFolder next(final_dir); }  // the next run removes the dead process's folder
    CHECK_FALSE(std::filesystem::exists(stale));
    CHECK(read_file(final_dir / "runs.csv") == "old runs\n");
}

TEST_CASE("a run with nothing complete leaves the previous set, write_experiment fills the folder", "[paper][reliability]") {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    mp::Settings s = tiny_settings();
    s.seeds = {0};
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    ScratchDir d("write");
    mp::OutputFolder folder = mp::experiment_folder(d.path, e);
    const mp::ExperimentResult r = mp::run_experiment(e, s, 1);
    const mp::WrittenFiles w = mp::write_experiment(folder, r, mp::uniform_runs(r, 1), {}, {.render = false});
    REQUIRE(w.wrote);
    CHECK(w.dir == d.path / "fig2a");
    CHECK(lines_of(read_file(w.dir / "runs.csv")).size() == 1 + 12);
    CHECK(w.plot.message.find(w.dir.string()) != std::string::npos);  // names the final folder
    std::atomic<bool> stop{true};
    mp::OutputFolder again = mp::experiment_folder(d.path, e);
    const mp::ExperimentResult stopped = mp::run_experiment(e, s, 1, &stop);
    CHECK_FALSE(mp::write_experiment(again, stopped, mp::uniform_runs(stopped, 1), {}, {.render = false}).wrote);
    CHECK(lines_of(read_file(w.dir / "runs.csv")).size() == 1 + 12);
    // Uniform runs that are not the study's (one seed too many, none) are refused, naming the
    // experiment and the counts, and the previous set stays.
    mp::UniformRuns extra = mp::uniform_runs(r, 1);
    extra.entropy.push_back(0.0);
    {
        mp::OutputFolder third = mp::experiment_folder(d.path, e);
        CHECK_THROWS_WITH(mp::write_experiment(third, r, extra, {}, {.render = false}),
                          Catch::Contains("'fig2a'") && Catch::Contains("2 entropies") && Catch::Contains("needs 1"));
    }
    {
        mp::OutputFolder fourth = mp::experiment_folder(d.path, e);
        CHECK_THROWS_AS(mp::write_experiment(fourth, r, mp::UniformRuns{}, {}, {.render = false}), mp::output_error);
    }
    CHECK(lines_of(read_file(w.dir / "runs.csv")).size() == 1 + 12);
}

TEST_CASE("gnuplot strings are literal: no line breaks, quotes or command substitution leak", "[paper][reliability]") {
    CHECK(mp::gnuplot_string("plain") == "'plain'");
    CHECK(mp::gnuplot_string("it's") == "'it''s'");
    CHECK(mp::gnuplot_string("a\nb") == "'a'.\"\\n\".'b'");
    CHECK(mp::gnuplot_string("x`touch y`\"z") == "'x`touch y`\"z'");
    CHECK(mp::gnuplot_string("t\tr\r") == "'t?r?'");
    CHECK(mp::gnuplot_comment_text("a\nb\\") == "a?b\\");

    ScratchDir d("gp");
    mp::Settings s = tiny_settings();
    s.seeds = {0};
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    const mp::ExperimentResult r = mp::run_experiment(*mp::find_experiment("fig2a"), s, 1);
    mp::PlotSpec p = mp::plot_spec(*r.experiment);
    p.generator = "x\nset output 'evil.png'\\";
    p.subject = "name `touch injected` with \"quotes\", 'single' and a\nline break";
    const std::string script = mp::gnuplot_script(p, r, mp::summarize(r, p.plotted));
    CHECK(script.find("\nset output 'evil.png'") == std::string::npos);
    if (mp::gnuplot_available()) {
        const mp::PlotOutcome o = mp::write_plot_script(d.path, script, true);
        CHECK(o.drawn);
        CHECK_FALSE(o.failed);
        CHECK(std::filesystem::exists(d.path / "curves.png"));
        CHECK_FALSE(std::filesystem::exists(d.path / "injected"));
        CHECK_FALSE(std::filesystem::exists(d.path / "evil.png"));
        // A script gnuplot rejects: no plot is claimed.
        std::filesystem::create_directories(d.path / "bad");
        const mp::PlotOutcome bad = mp::write_plot_script(d.path / "bad", "this is no gnuplot command\n", true);
        CHECK_FALSE(bad.drawn);
        CHECK(bad.failed);
        CHECK(bad.message.find("exited with status") != std::string::npos);
    }
}

TEST_CASE("no two curves of a plot share a line colour", "[paper][plot]") {
    // The curves of a nosim study with several learners: one learned curve per objective and learner.
    auto colours_of = [](const std::vector<std::pair<mp::Objective, std::string>>& curves) {
        mp::ExperimentResult r;
        r.settings.seeds = {0};
        r.settings.iterations = 3;
        for (const auto& [objective, learner] : curves) {
            mp::CurveRuns c;
            c.curve.objective = objective;
            c.curve.learned = !learner.empty();
            c.curve.learner = learner.empty() ? "em" : learner;
            c.curve.label = mp::cat(mp::name_of(objective), learner.empty() ? "" : "+", learner);
            mp::SeedRun run;
            run.complete = true;
            run.records.assign(3, {1.0, 1.0, 1.0});
            c.runs.push_back(run);
            r.curves.push_back(c);
        }
        mp::PlotSpec p;
        p.states = 25;
        p.horizon = 25;
        const std::string script = mp::gnuplot_script(p, r, mp::summarize(r, p.plotted));
        std::vector<std::string> colours;  // the lines' colours (the bands repeat them)
        const std::string key = "with lines lw 1.8 lc rgb \"";
        for (std::size_t at = script.find(key); at != std::string::npos; at = script.find(key, at + 1))
            colours.push_back(script.substr(at + key.size(), 7));
        return colours;
    };
    auto distinct = [](std::vector<std::string> c) {
        std::sort(c.begin(), c.end());
        return std::adjacent_find(c.begin(), c.end()) == c.end();
    };
    using O = mp::Objective;
    // Two learners' curves of one objective (they shared the objective's learned colour).
    const auto two = colours_of({{O::mbe, ""}, {O::mbe, "em"}, {O::mbe, "cloned-hmm"}});
    REQUIRE(two.size() == 3);
    CHECK(distinct(two));
    // Four objectives and two learned objectives with four learners each: 12 curves, more than the palette.
    std::vector<std::pair<O, std::string>> many = {{O::mse, ""}, {O::moe, ""}, {O::mbe, ""}, {O::reg_mbe, ""}};
    for (const O o : {O::mbe, O::reg_mbe})
        for (const char* l : {"em", "cloned-hmm", "em-known-motion", "em-select"}) many.emplace_back(o, l);
    const auto all = colours_of(many);
    REQUIRE(all.size() == 12);
    CHECK(distinct(all));
    for (const std::string& c : all) CHECK((c.size() == 7 && c[0] == '#'));
    // The first learner's curve of each objective keeps the objective's learned colour.
    CHECK(all[4] == "#44AA99");
    CHECK(all[8] == "#999933");
    // One curve per objective keeps the objective's colour: the same as before the learned curves.
    const auto plain = colours_of({{O::mse, ""}, {O::moe, ""}, {O::mbe, ""}, {O::reg_mbe, ""}});
    CHECK(std::vector<std::string>(all.begin(), all.begin() + 4) == plain);
    CHECK(plain == std::vector<std::string>{"#332288", "#CC6677", "#117733", "#DDCC77"});
}

TEST_CASE("SIGTERM stops like the first Ctrl-C", "[paper][reliability]") {
    mp::install_stop_handlers();
    CHECK_FALSE(mp::stop_requested());
    raise(SIGTERM);  // the handler runs before raise returns
    CHECK(mp::stop_requested());
    CHECK(mp::stop_flag().load());
    CHECK(mp::stop_exit_status() == 128 + SIGTERM);
    std::signal(SIGINT, SIG_DFL);  // leave the test process as it was (SIGTERM was reset by SA_RESETHAND)
    // The runner stops at the flag: nothing complete.
    mp::Settings s = tiny_settings();
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    CHECK(mp::run_experiment(*mp::find_experiment("fig2a"), s, 1, &mp::stop_flag()).complete_runs() == 0);
}

TEST_CASE("without a simulator: the nosim experiments, their curves, flags and cache keys", "[paper][nosim]") {
    const auto group = mp::expand_experiment_name("nosim");
    REQUIRE(group.size() == 4);
    CHECK(group[0]->name == "nosim2b");
    CHECK(group[3]->name == "nosim2g");
    CHECK(mp::expand_experiment_name("all").size() == 20);  // not part of the paper's panels
    const mp::Experiment& e = *mp::find_experiment("nosim2d");
    mp::Settings s;
    std::vector<std::string> labels;
    for (const mp::Curve& c : mp::make_curves(e, s)) labels.push_back(c.label + (c.learned ? "*" : ""));
    CHECK(labels == std::vector<std::string>{"mse", "moe", "reg-mbe", "learned-mbe*", "learned-reg-mbe*"});

    const mp::Options o = mp::parse_command_line({"nosim2d", "--learned", "reg-mbe", "--latent-states", "12",
                                                  "--warmup", "40", "--refit-every", "0", "--refit-iterations",
                                                  "3", "--window", "7", "--smoothing", "0.5", "--learned-prior"});
    const mp::LearningSettings& l = o.settings.learning;
    CHECK(l.latent_states == 12);
    CHECK(l.warmup == 40);
    CHECK(l.refit_every == 0);
    CHECK(l.refit_iterations == 3);
    CHECK(l.window == 7);
    CHECK(l.smoothing == 0.5);
    CHECK(l.learned_prior);
    // The defaults are the library's one set; the paper's uniform b_1 is one flag away.
    const maxent::LearnedBeliefDefaults& d = maxent::learned_belief_defaults;
    CHECK((s.learning.smoothing == d.smoothing && s.learning.restarts == d.restarts &&
           s.learning.em_iterations == d.em_iterations && s.learning.warmup == d.warmup &&
           s.learning.heldout == d.heldout && s.learning.refit_every == d.refit_every &&
           s.learning.refit_iterations == d.refit_iterations && s.learning.window == d.window &&
           s.learning.learned_prior == d.learned_prior));
    const mp::LearningSettings u =
        mp::parse_command_line({"nosim2d", "--uniform-prior", "--restarts", "4", "--em-iterations", "30"})
            .settings.learning;
    CHECK_FALSE(u.learned_prior);
    CHECK(u.restarts == 4);
    CHECK(u.em_iterations == 30);
    CHECK_THAT(mp::learning_summary(u), Catch::Contains("b_1 = uniform"));
    CHECK_THAT(mp::learning_summary(s.learning), Catch::Contains("b_1 = the learned initial distribution"));
    // The printed L is what each learner trains with: S, --latent-states, or chosen per run.
    CHECK_THAT(mp::learning_summary(s.learning), Catch::StartsWith("learned beliefs: L = S latent states; first fit"));
    auto summary = [](std::vector<std::string> args) {
        args.insert(args.begin(), "nosim2d");
        return mp::learning_summary(mp::parse_command_line(args).settings.learning);
    };
    CHECK_THAT(summary({"--learners", "em-select"}),
               Catch::StartsWith("learned beliefs: L chosen per run by held-out likelihood, at most 64; first fit"));
    CHECK_THAT(summary({"--learners", "em,em-select,cloned-hmm-select,cloned-hmm,em-known-motion", "--latent-states",
                        "13", "--select-max-states", "32"}),
               Catch::StartsWith("learned beliefs: L = 13 latent states (--latent-states) for em; L chosen per run by "
                                 "held-out likelihood, at most 32, for em-select; clone total (and allocation) chosen "
                                 "per run by held-out likelihood, at most 32, for cloned-hmm-select; L = 13 clones "
                                 "split evenly among the observations (--latent-states) for cloned-hmm; L = S latent "
                                 "states for em-known-motion; first fit"));
    CHECK_THAT(summary({"--learners", "em,em-select,cloned-hmm-select,cloned-hmm"}),
               Catch::Contains("EM steps, smoothing 0.001 (at most 1000 EM steps for cloned-hmm-select, cloned-hmm; "
                               "smoothing chosen per run for em-select); the filter's b_1"));
    CHECK_THAT(summary({"--learners", "em,em-sparse,em-known-sensor"}),
               Catch::StartsWith("learned beliefs: L = S latent states; first fit"));
    const auto curves = mp::make_curves(e, o.settings);
    REQUIRE(curves.size() == 4);
    CHECK(curves.back().label == "learned-reg-mbe");
    CHECK(mp::make_curves(e, mp::parse_command_line({"nosim2d", "--learned", "none"}).settings).size() == 3);

    // The learning settings are part of the key of learned curves only.
    mp::Settings other = s;
    other.learning.window = 999;
    const auto cs = mp::make_curves(e, s);
    CHECK(mp::settings_key(cs[0], s, 0) == mp::settings_key(cs[0], other, 0));
    CHECK(mp::settings_key(cs[3], s, 0) != mp::settings_key(cs[3], other, 0));
}

// ---------------------------------------------------------------------------------------
// Plots and the uniform baseline: --policies / --policy, --smooth, the moving
// average, the legend inside the frame, uniform.csv against a random walk written here.
// ---------------------------------------------------------------------------------------

TEST_CASE("maxent-paper takes --policy for --policies, and --smooth a positive window", "[paper][cli]") {
    const mp::Options a = mp::parse_command_line({"fig4a", "--policies", "O,S"});
    const mp::Options b = mp::parse_command_line({"fig4a", "--policy=O,S"});
    REQUIRE(a.settings.policies);
    REQUIRE(b.settings.policies);
    CHECK(*a.settings.policies == *b.settings.policies);
    CHECK(a.smooth == 1);
    CHECK(mp::parse_command_line({"--smooth", "25"}).smooth == 25);
    CHECK(usage_message({"--smooth", "0"}).find("'0'") != std::string::npos);
    CHECK(usage_message({"--policy", "XY"}).find("'XY'") != std::string::npos);
}

TEST_CASE("the moving average of the plot is centred and cut at the ends", "[paper]") {
    std::vector<mp::SummaryRow> rows;
    for (std::size_t k = 0; k < 5; ++k) {
        const double v = static_cast<double>(k * k);  // 0 1 4 9 16
        rows.push_back({k, {v, v - 1.0, v + 1.0, 3}});
    }
    const std::vector<mp::SummaryRow> w3 = mp::moving_average(rows, 3);
    const double expected[5] = {(0 + 1) / 2.0, (0 + 1 + 4) / 3.0, (1 + 4 + 9) / 3.0, (4 + 9 + 16) / 3.0, (9 + 16) / 2.0};
    for (std::size_t k = 0; k < 5; ++k) {
        CHECK(w3[k].iteration == k);
        CHECK(w3[k].ci.n == 3);
        CHECK(w3[k].ci.mean == Approx(expected[k]).epsilon(1e-15));
        CHECK(w3[k].ci.low == Approx(expected[k] - 1.0).epsilon(1e-15));
        CHECK(w3[k].ci.high == Approx(expected[k] + 1.0).epsilon(1e-15));
    }
    // An even window leans forward: k - 1 .. k + 2.
    CHECK(mp::moving_average(rows, 4)[1].ci.mean == Approx((0 + 1 + 4 + 9) / 4.0));
    CHECK(mp::moving_average(rows, 1)[3].ci.mean == 9.0);
    CHECK(mp::moving_average(rows, 100)[0].ci.mean == Approx((0 + 1 + 4 + 9 + 16) / 5.0));
}

namespace {
/// The mean true-state entropy of the uniformly random walk on the deterministic 5 x 5 room
/// of fig2a, written from docs/reference.md "Grid worlds" (start (0, 0), up/down/left/right,
/// moves into the border stay), counting s_1 .. s_25: a Monte Carlo estimate with its own
/// generator, independent of the library's rollout.
double random_walk_entropy_5x5(std::size_t episodes) {
    std::mt19937_64 g(2024);
    std::uniform_int_distribution<int> action(0, 3);
    double sum = 0.0;
    for (std::size_t e = 0; e < episodes; ++e) {
        int counts[25] = {};
        int x = 0, y = 0;
        ++counts[0];
        for (int t = 1; t < 25; ++t) {
            switch (action(g)) {
                case 0: y = std::max(0, y - 1); break;
                case 1: y = std::min(4, y + 1); break;
                case 2: x = std::max(0, x - 1); break;
                default: x = std::min(4, x + 1); break;
            }
            ++counts[x + 5 * y];
        }
        double h = 0.0;
        for (const int c : counts)
            if (c > 0) h -= c / 25.0 * std::log(c / 25.0);
        sum += h;
    }
    return sum / static_cast<double>(episodes);
}
}  // namespace

TEST_CASE("maxent-paper writes the uniform policy's baseline and draws it, the legend inside", "[paper]") {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    mp::Settings s = tiny_settings();
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    const mp::ExperimentResult r = mp::run_experiment(e, s, 1);
    ScratchDir d1("u1"), d2("u2");
    const mp::WrittenFiles w1 = mp::write_experiment(d1.path, r, mp::uniform_runs(r, 1), {}, {.render = false, .smooth = 5});
    const mp::WrittenFiles w2 = mp::write_experiment(d2.path, r, mp::uniform_runs(r, 2), {}, {.render = false, .smooth = 5});
    const std::string u = read_file(w1.dir / "uniform.csv");
    CHECK(u == read_file(w2.dir / "uniform.csv"));  // independent of the thread count
    const std::vector<std::string> rows = lines_of(u);
    REQUIRE(rows.size() == 1 + s.seeds.size());
    CHECK(rows[0] == "seed,episodes,true_entropy");
    double mean = 0.0;
    for (std::size_t i = 0; i < s.seeds.size(); ++i) {
        const std::vector<std::string> f = split(rows[1 + i], ',');
        REQUIRE(f.size() == 3);
        CHECK(f[0] == std::to_string(s.seeds[i]));
        CHECK(f[1] == std::to_string(mp::paper_uniform_episodes));
        mean += std::stod(f[2]) / static_cast<double>(s.seeds.size());
    }
    // 3000 episodes against 200000 of an independent walk: the standard error of the
    // difference is about 0.3 / sqrt(3000) ≈ 0.006.
    CHECK(mean == Approx(random_walk_entropy_5x5(200000)).margin(0.03));

    const std::string gp = read_file(w1.dir / "curves.gp");
    char line[64];
    std::snprintf(line, sizeof line, "uniform random policy = %.3f", mean);
    CHECK(gp.find(line) != std::string::npos);
    CHECK(gp.find("set key inside right bottom") != std::string::npos);
    CHECK(gp.find("moving average over 5 iterations") != std::string::npos);
    CHECK(gp.find("#332288") != std::string::npos);  // mse: the palette's first colour
}

TEST_CASE("the run-time estimator and step boxes give the held component's bits", "[paper][components]") {
    // AnyEstimator / AnyStep (runtime/components.hpp) against the library's types used
    // directly, through run_curve_seed (the programs' path) and a plain Trainer on the same
    // grid, seed and settings: == on every record.
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    const maxent::GridPomdp model = e.env.build();
    mp::Settings s = tiny_settings();
    s.iterations = 6;
    const mp::Curve curve{maxent::programs::Objective::mse, 0.0, mp::PolicyClass::belief_averaged, "mse", false};
    auto direct = [&](auto estimator, auto step) {
        using Updater = maxent::NoisyBelief<maxent::BayesFilter<maxent::GridPomdp>>;
        maxent::Trainer t(model, Updater(maxent::BayesFilter<maxent::GridPomdp>(model), 0.0),
                          maxent::BeliefAveragedPolicy(model.num_states(), model.num_actions()), maxent::MSE{},
                          estimator, step, mp::trainer_config(s, 1));
        return t.run();
    };
    auto same = [](const mp::SeedRun& boxed, const maxent::TrainResult& plain) {
        REQUIRE(boxed.complete);
        REQUIRE(boxed.records.size() == plain.history.size());
        for (std::size_t k = 0; k < plain.history.size(); ++k) {
            CHECK(boxed.records[k].true_entropy == plain.history[k].true_entropy);
            CHECK(boxed.records[k].feedback == plain.history[k].feedback);
            CHECK(boxed.records[k].belief_entropy_sum == plain.history[k].belief_entropy_sum);
        }
    };
    SECTION("the per-step baseline, recorded only when chosen") {
        s.estimator = mp::EstimatorKind::per_step;
        const maxent::TrainResult plain = direct(maxent::PerStepBaseline{}, maxent::ConstantStep(0.3));
        same(mp::run_curve_seed(model, curve, s, 1), plain);
        // ... and it is another estimator: the batch-mean run differs after the first step.
        s.estimator = mp::EstimatorKind::batch_mean;
        const mp::SeedRun other = mp::run_curve_seed(model, curve, s, 1);
        CHECK(other.records.back().true_entropy != plain.history.back().true_entropy);
    }
    SECTION("lazy Adam") {
        s.step = mp::StepKind::lazy_adam;
        CHECK(s.effective_alpha() == 0.05);
        same(mp::run_curve_seed(model, curve, s, 1), direct(maxent::BatchMeanBaseline{}, maxent::LazyAdam(0.05)));
    }
    SECTION("names, kinds and the boxes' own answers") {
        for (const mp::EstimatorKind k : {mp::EstimatorKind::reinforce, mp::EstimatorKind::batch_mean,
                                          mp::EstimatorKind::leave_one_out, mp::EstimatorKind::optimal,
                                          mp::EstimatorKind::per_step}) {
            const mp::AnyEstimator box(k);
            CHECK(box.kind() == k);
            CHECK(mp::parse_estimator(box.name()) == k);
            CHECK(box.uses_steps() == (k == mp::EstimatorKind::per_step));
            CHECK(mp::estimator_names.find(box.name()) != std::string_view::npos);
        }
        for (const mp::StepKind k : {mp::StepKind::constant, mp::StepKind::adam, mp::StepKind::lazy_adam}) {
            const mp::AnyStep box(k, 0.125);
            CHECK(box.kind() == k);
            CHECK(box.alpha() == 0.125);
            CHECK(mp::parse_step(box.name()) == k);
            CHECK(mp::step_names.find(box.name()) != std::string_view::npos);
        }
        CHECK(mp::AnyEstimator(maxent::OptimalBaseline{}).kind() == mp::EstimatorKind::optimal);
        CHECK(mp::AnyStep(maxent::LazyAdam(0.2)).kind() == mp::StepKind::lazy_adam);
        mp::AnyEstimator per_step(mp::EstimatorKind::per_step);
        const std::vector<double> f{1.0, 2.0};
        const std::vector<Eigen::MatrixXd> sc(2, Eigen::MatrixXd::Ones(2, 2));
        Eigen::MatrixXd out;
        CHECK_THROWS_WITH(per_step.estimate(f, sc, out), Catch::Contains("without per-step scores"));
    }
    SECTION("the command line: per-step and lazy-adam by name, and the class B refusal") {
        const mp::Options o = mp::parse_command_line({"fig5a", "--estimator", "per-step", "--step", "lazy-adam"});
        CHECK(o.settings.estimator == mp::EstimatorKind::per_step);
        CHECK(o.settings.step == mp::StepKind::lazy_adam);
        try {
            (void)mp::parse_command_line({"--estimator", "greedy"});
            FAIL("no usage error");
        } catch (const mp::usage_error& x) {
            CHECK(std::string(x.what()).find("greedy") != std::string::npos);
            CHECK(std::string(x.what()).find("per-step") != std::string::npos);
        }
        // fig5a trains the belief-state class B: refused before any run, naming the curve.
        mp::Settings b = o.settings;
        b.iterations = 2;
        b.seeds = {0};
        CHECK_THROWS_WITH(mp::run_experiment(*mp::find_experiment("fig5a"), b, 1),
                          Catch::Contains("the per-step estimator needs per-step scores") &&
                              Catch::Contains("class B"));
        // Likewise a learned-belief curve of class B (its rows would change meaning at every
        // refit), named, before the other curves train.
        mp::Settings l;
        l.iterations = 2;
        l.seeds = {0};
        l.objectives = std::vector<mp::Objective>{mp::Objective::mse};
        l.policies = std::vector<mp::PolicyClass>{mp::PolicyClass::belief_averaged, mp::PolicyClass::belief_state};
        l.learned = std::vector<mp::Objective>{mp::Objective::mbe};
        mp::ProgressCounters progress(4);
        CHECK_THROWS_WITH(mp::run_experiment(*mp::find_experiment("nosim2b"), l, 1, nullptr, &progress),
                          Catch::StartsWith("curve 'learned-mbe/B': learned beliefs: the belief-state class B"));
        CHECK(progress.iterations.load() == 0);
    }
}

TEST_CASE("run-time choices: policy classes, the learned class-B refusal, the feedback box", "[paper][components]") {
    // One mapping from PolicyClass to the library's type (make_policy), and the rows of its parameters.
    auto type_of = [](mp::PolicyClass c) {
        const mp::AnyPolicy p = mp::make_policy(c, 3, 2);
        CHECK(std::visit([](const auto& q) { return q.parameters().rows(); }, p) == 3);
        return static_cast<int>(p.index());
    };
    CHECK(type_of(mp::PolicyClass::observation) == 0);
    CHECK(std::holds_alternative<maxent::ObservationPolicy>(mp::make_policy(mp::PolicyClass::observation, 3, 2)));
    CHECK(std::holds_alternative<maxent::BeliefAveragedPolicy>(mp::make_policy(mp::PolicyClass::belief_averaged, 3, 2)));
    CHECK(std::holds_alternative<maxent::BelievedStatePolicy>(mp::make_policy(mp::PolicyClass::believed_state, 3, 2)));
    CHECK(std::holds_alternative<maxent::BeliefMixturePolicy>(mp::make_policy(mp::PolicyClass::belief_mixture, 3, 2)));
    CHECK(std::holds_alternative<maxent::TabularBeliefPolicy>(mp::make_policy(mp::PolicyClass::belief_state, 3, 2)));
    CHECK(mp::policy_type_name(mp::make_policy(mp::PolicyClass::belief_mixture, 3, 2)) == "BeliefMixturePolicy");
    // run_algorithm1: K iterations, or none when stopped before the first; a class the kind is
    // not offered (B with a learned belief model) is refused by name, before any fit.
    {
        const mp::IndexPomdp world = mp::index_pomdp(mp::find_experiment("fig2a")->env.build());
        maxent::TrainerConfig config;
        config.iterations = 2;
        config.batch = 2;
        const mp::RunChoices choices{mp::make_policy(mp::PolicyClass::belief_averaged, world.num_states(), 4),
                                     mp::AnyFeedback(mp::Objective::mse, 0.0), mp::AnyEstimator(mp::EstimatorKind::batch_mean),
                                     mp::AnyStep(mp::StepKind::constant, 0.1), config};
        const mp::NoisyFilter<mp::IndexPomdp> filter(maxent::BayesFilter<mp::IndexPomdp>(world), 0.0);
        const mp::Algorithm1Run r = mp::run_algorithm1(world, filter, choices);
        CHECK(r.complete(config));
        CHECK(r.trained.history.size() == 2);
        CHECK(std::holds_alternative<maxent::BeliefAveragedPolicy>(*r.policy));
        std::atomic<bool> stop{true};
        mp::RunControl control;
        control.stop = &stop;
        const mp::Algorithm1Run stopped = mp::run_algorithm1(world, filter, choices, control);
        CHECK(stopped.trained.stopped_early);
        CHECK(stopped.trained.history.empty());
        mp::RunChoices b = choices;
        b.policy = mp::make_policy(mp::PolicyClass::belief_state, world.num_states(), 4);
        CHECK_THROWS_WITH(mp::run_algorithm1(world, mp::LearnedBelief{}, b),
                          "run_algorithm1: TabularBeliefPolicy is not offered with this world and belief model");
    }
    CHECK(mp::policy_rows(mp::PolicyClass::observation, 7, 3) == 7);
    CHECK(mp::policy_rows(mp::PolicyClass::belief_mixture, 7, 3) == 3);
    // The refusal, thrown from one place, names the caller.
    CHECK_NOTHROW(mp::refuse_learned_class_b(mp::PolicyClass::belief_averaged, "x"));
    CHECK_THROWS_WITH(mp::refuse_learned_class_b(mp::PolicyClass::belief_state, "curve 'c'"),
                      "curve 'c': learned beliefs: the belief-state class B is not offered with a learned model "
                      "(its table rows are beliefs, which change meaning at every refit)");
    // The feedback box: the paper's four by objective, PartitionEntropy, a callable.
    CHECK(mp::AnyFeedback(mp::Objective::reg_mbe, 0.1).name() == "reg-mbe");
    CHECK(mp::AnyFeedback(maxent::PartitionEntropy({0, 0, 1})).name() == "partition");
    maxent::RolloutNeeds needs;
    needs.beliefs = true;
    const mp::AnyFeedback mine(mp::CallableFeedback{[](const maxent::Trajectory&) { return 1.5; }, needs, "mine"});
    maxent::DefaultRng g = maxent::stream(0);
    CHECK(mine(maxent::Trajectory{}, g) == 1.5);
    CHECK(mine.needs().beliefs);
    CHECK(mine.name() == "mine");
    CHECK(mine.is_callable());
    CHECK_FALSE(mp::AnyFeedback(mp::Objective::mse, 0.0).is_callable());
}

TEST_CASE("the learned-belief counts: one table for the flags and the Python keys", "[paper][cli]") {
    const mp::LearningCount* every = mp::learning_flag("--refit-every");
    REQUIRE(every != nullptr);
    CHECK(every->least == 0);
    CHECK(every->field == &mp::LearningSettings::refit_every);
    REQUIRE(mp::learning_flag("--latent-states") != nullptr);
    CHECK(mp::learning_flag("--latent-states")->least == 1);
    CHECK(mp::learning_flag("--heldout") == nullptr);  // a Python key, not a flag
    CHECK(mp::learning_flag("refit-every") == nullptr);
    CHECK(mp::parse_command_line({"nosim2b", "--refit-every", "0", "--window", "7"}).settings.learning.refit_every == 0);
    CHECK(mp::parse_command_line({"nosim2b", "--window", "7"}).settings.learning.window == 7);
    CHECK_THROWS_AS(mp::parse_command_line({"nosim2b", "--warmup", "0"}), mp::usage_error);
}
