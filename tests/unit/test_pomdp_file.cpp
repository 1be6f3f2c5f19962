// Tests of model/pomdp_file.hpp, the reader of Cassandra's POMDP text format: every shipped
// model (tests/data/classic) reads with the sizes hand-read from its preamble; tiger's
// posteriors match the hand-derived 0.85 and 0.85^2 / (0.85^2 + 0.15^2); each corner-case
// file under tests/data/pomdp pins one feature of the format with values worked out by
// hand in the file's comments; every error category names file, line and column; and
// truncated, mutated or random inputs never do anything but parse or throw parse_error.
// The writer (model/pomdp_writer.hpp): a grid world and learned models read back == and a
// tiny model is written as the hand-written text.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include <sys/stat.h>
#include <unistd.h>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned/em.hpp"
#include "maxent/belief/learned/to_pomdp.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/model/pomdp_writer.hpp"

#include "../fuzz/writer_fuzz.hpp"

#ifndef MAXENT_CLASSIC_POMDP_DIR
#error "tests/CMakeLists.txt must define MAXENT_CLASSIC_POMDP_DIR"
#endif
#ifndef MAXENT_TEST_DATA_DIR
#error "tests/CMakeLists.txt must define MAXENT_TEST_DATA_DIR"
#endif

namespace test_pomdp_file {

namespace pomdp_file_test {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using maxent::PomdpFile;
using maxent::ReadOptions;

const fs::path classic_dir{MAXENT_CLASSIC_POMDP_DIR};
const fs::path data_dir = fs::path{MAXENT_TEST_DATA_DIR} / "pomdp";

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE(in.good());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// P(s' | s, a) by labels.
double P(const PomdpFile& f, const std::string& s, const std::string& a, const std::string& next) {
    const auto& m = f.model;
    return m.transition_probability(m.state_index(s), m.action_index(a), m.state_index(next));
}
/// Obs(o | s', a) by labels.
double Z(const PomdpFile& f, const std::string& a, const std::string& s, const std::string& o) {
    const auto& m = f.model;
    return m.observation_probability(m.action_index(a), m.state_index(s), m.observation_index(o));
}
double R(const PomdpFile& f, const std::string& a, const std::string& s, const std::string& next, const std::string& o) {
    const auto& m = f.model;
    return f.reward(m.action_index(a), m.state_index(s), m.state_index(next), m.observation_index(o));
}

/// The message of the parse_error that parsing `text` (named "err.pomdp") throws.
std::string error_of(std::string_view text, const ReadOptions& options = {}) {
    try {
        (void)maxent::parse_pomdp(text, "err.pomdp", options);
    } catch (const maxent::parse_error& e) {
        return e.what();
    }
    return "<no parse_error>";
}

/// Either parses or throws parse_error; anything else fails the test.
bool parses_or_parse_error(std::string_view text, const ReadOptions& options = {}) {
    try {
        const PomdpFile f = maxent::parse_pomdp(text, "fuzz", options);
        return std::abs(f.model.initial_distribution().sum() - 1.0) <= 1e-9;
    } catch (const maxent::parse_error&) {
        return true;
    } catch (...) {
        return false;
    }
}

/// A preamble of five lines: entries written after it start on line 6.
const std::string preamble = "discount: 0.9\nvalues: reward\nstates: a b\nactions: x\nobservations: o\n";
const std::string valid_body = "T: x identity\nO: x uniform\n";

}  // namespace pomdp_file_test

using namespace pomdp_file_test;

// --- the shipped models ------------------------------------------------------------------

TEST_CASE("every shipped model reads with the sizes of its preamble", "[pomdp-file]") {
    struct Expected {
        std::size_t S, A, O;
        double discount;
        bool action_dependent_obs;
    };
    // Read by hand from each file's preamble (and its O: entries for the last column).
    const std::map<std::string, Expected> expected{
        {"1d.noisy.POMDP", {4, 2, 2, 0.75, false}},   {"4x3.95.POMDP", {11, 4, 6, 0.95, false}},
        {"cheese.95.POMDP", {11, 4, 7, 0.95, false}}, {"concert.POMDP", {2, 3, 2, 1.0, true}},
        {"hallway.POMDP", {60, 5, 21, 0.95, false}},  {"mini-hall2.pomdp", {13, 3, 9, 0.95, false}},
        {"network.POMDP", {7, 4, 2, 0.95, false}},    {"shuttle.95.POMDP", {8, 3, 5, 0.95, false}},
        {"tiger.95.POMDP", {2, 3, 2, 0.95, true}},
    };
    std::set<std::string> seen;
    REQUIRE(fs::is_directory(classic_dir));
    for (const auto& entry : fs::directory_iterator(classic_dir)) {
        const std::string name = entry.path().filename().string();
        if (name == "README.md") continue;
        INFO(name);
        const auto it = expected.find(name);
        REQUIRE(it != expected.end());  // a new shipped file needs its sizes added above
        ReadOptions options;
        if (name == "mini-hall2.pomdp") options.empty_transition_rows = maxent::EmptyRows::self_loop;
        const PomdpFile f = maxent::read_pomdp_file(entry.path(), options);
        const Expected& e = it->second;
        CHECK(f.model.num_states() == e.S);
        CHECK(f.model.num_actions() == e.A);
        CHECK(f.model.num_observations() == e.O);
        REQUIRE(f.discount.has_value());
        CHECK(*f.discount == Approx(e.discount));
        CHECK_FALSE(f.values_are_costs);
        CHECK(f.model.horizon() == e.S);  // default horizon T = S
        CHECK(f.model.observation_depends_on_action() == e.action_dependent_obs);
        CHECK(f.model.initial_distribution().sum() == Approx(1.0).margin(1e-12));
        seen.insert(name);
    }
    CHECK(seen.size() == expected.size());
}

TEST_CASE("tiger: labels, rewards and the hand-derived posteriors after listening", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(classic_dir / "tiger.95.POMDP");
    const auto& m = f.model;
    CHECK(m.state_label(0) == "tiger-left");
    CHECK(m.state_label(1) == "tiger-right");
    CHECK(m.action_label(2) == "open-right");
    CHECK(m.observation_label(0) == "tiger-left");
    CHECK(P(f, "tiger-left", "listen", "tiger-left") == 1.0);       // T: listen identity
    CHECK(P(f, "tiger-right", "open-left", "tiger-left") == 0.5);   // T: open-left uniform
    CHECK(Z(f, "listen", "tiger-left", "tiger-left") == Approx(0.85));
    CHECK(Z(f, "open-right", "tiger-right", "tiger-left") == 0.5);  // O: open-right uniform
    CHECK(R(f, "listen", "tiger-right", "tiger-left", "tiger-right") == -1.0);
    CHECK(R(f, "open-left", "tiger-left", "tiger-right", "tiger-left") == -100.0);
    CHECK(R(f, "open-right", "tiger-left", "tiger-left", "tiger-left") == 10.0);
    const Eigen::MatrixXd r = f.expected_rewards();
    CHECK(r(0, 0) == Approx(-1.0));
    CHECK(r(0, 1) == Approx(-100.0));
    CHECK(r(1, 1) == Approx(10.0));

    // b0 = (0.5, 0.5); listen, hear tiger-left: b1 ∝ (0.85 * 0.5, 0.15 * 0.5) = (0.85, 0.15);
    // again: b2 ∝ (0.85^2, 0.15^2) = (0.7225, 0.0225) / 0.745 = (0.969799, 0.030201).
    maxent::BayesFilter<PomdpFile::Model> filter(m, m.initial_distribution());
    Eigen::VectorXd b;
    filter.initial(b);
    REQUIRE(b.size() == 2);
    CHECK(b[0] == Approx(0.5));
    const std::size_t listen = m.action_index("listen"), hear_left = m.observation_index("tiger-left");
    filter.update(b, listen, hear_left);
    CHECK(b[0] == Approx(0.85).margin(1e-12));
    CHECK(b[1] == Approx(0.15).margin(1e-12));
    filter.update(b, listen, hear_left);
    CHECK(b[0] == Approx(0.7225 / 0.745).margin(1e-12));
    CHECK(b[1] == Approx(0.0225 / 0.745).margin(1e-12));
    CHECK(b[0] == Approx(0.9698).margin(1e-4));

    // The same posterior computed directly from the model's matrices (no filter).
    Eigen::VectorXd direct = m.initial_distribution();
    for (int step = 0; step < 2; ++step) {
        Eigen::VectorXd next = Eigen::VectorXd::Zero(2);
        for (std::size_t s = 0; s < 2; ++s)
            for (std::size_t sp = 0; sp < 2; ++sp)
                next[static_cast<Eigen::Index>(sp)] += direct[static_cast<Eigen::Index>(s)] *
                                                       m.transition_probability(s, listen, sp) *
                                                       m.observation_probability(listen, sp, hear_left);
        direct = next / next.sum();
    }
    CHECK(direct[0] == Approx(0.7225 / 0.745).margin(1e-12));
}

TEST_CASE("shipped models: entries checked by hand", "[pomdp-file]") {
    SECTION("1d.noisy: the 6-decimal start vector and rows are renormalised exactly") {
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "1d.noisy.POMDP");
        const Eigen::VectorXd& mu = f.model.initial_distribution();
        CHECK(mu[0] == Approx(1.0 / 3.0).margin(1e-15));
        CHECK(mu[3] == 0.0);
        CHECK(P(f, "goal", "w0", "left") == Approx(1.0 / 3.0).margin(1e-15));
        CHECK(P(f, "middle", "e0", "goal") == Approx(0.9));
        CHECK(Z(f, "e0", "goal", "goal") == 1.0);
        CHECK(R(f, "w0", "middle", "goal", "goal") == 1.0);
        CHECK(R(f, "w0", "middle", "goal", "nothing") == 0.0);
    }
    SECTION("concert: row entries on one line, action-dependent observations, no start: (uniform)") {
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "concert.POMDP");
        CHECK(P(f, "bored", "radio", "bored") == Approx(0.7));
        CHECK(Z(f, "nothing", "interested", "want-to-go") == Approx(0.9));
        CHECK(Z(f, "tv", "interested", "want-to-go") == Approx(0.8));
        CHECK(f.model.initial_distribution()[1] == 0.5);
        CHECK(R(f, "tv", "bored", "interested", "want-to-go") == -10.0);
        CHECK(R(f, "radio", "interested", "bored", "dont-want-to-go") == -4.0);
        CHECK(R(f, "radio", "bored", "bored", "want-to-go") == 0.0);  // unspecified
    }
    SECTION("network: values on the next line, T: reboot : * : s000") {
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "network.POMDP");
        CHECK(P(f, "crash", "reboot", "s000") == 1.0);
        CHECK(P(f, "s020", "unrestrict", "s040") == Approx(0.3));
        CHECK(Z(f, "steady", "s080", "down") == Approx(0.3));
        CHECK(R(f, "steady", "s060", "s100", "up") == Approx(40.000004));
        CHECK(R(f, "reboot", "s060", "s000", "up") == -40.0);
        CHECK(f.model.initial_distribution()[6] == Approx(1.0 / 7.0));
    }
    SECTION("shuttle: numbered states and observations, named actions") {
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "shuttle.95.POMDP");
        CHECK(f.model.state_label(7) == "7");
        CHECK(f.model.initial_distribution()[7] == 1.0);
        CHECK(P(f, "1", "Backup", "2") == Approx(0.3));
        CHECK(Z(f, "TurnAround", "2", "3") == Approx(0.3));
        CHECK(R(f, "GoForward", "6", "6", "4") == -3.0);
        CHECK(R(f, "Backup", "3", "0", "0") == 10.0);
        CHECK(R(f, "GoForward", "7", "6", "0") == 0.0);  // the commented-out rule
    }
    SECTION("hallway: element entries over numbered sets, T: * : s rows") {
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "hallway.POMDP");
        CHECK(P(f, "0", "1", "5") == Approx(0.05));
        CHECK(P(f, "0", "1", "0") == Approx(0.95));
        CHECK(P(f, "57", "3", "0") == Approx(0.017865));
        CHECK(Z(f, "4", "56", "20") == 1.0);
        CHECK(R(f, "2", "17", "58", "3") == 1.0);
    }
    SECTION("cheese: identical per-action O: matrices are stored once") {
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "cheese.95.POMDP");
        CHECK_FALSE(f.model.observation_depends_on_action());
        CHECK(Z(f, "W0", "3", "1") == 1.0);
    }
    SECTION("mini-hall2: the goal state has no T: entries") {
        const std::string msg = [] {
            try {
                (void)maxent::read_pomdp_file(classic_dir / "mini-hall2.pomdp");
            } catch (const maxent::parse_error& e) {
                return std::string(e.what());
            }
            return std::string("<no parse_error>");
        }();
        CHECK_THAT(msg, Contains("mini-hall2.pomdp:") && Contains("s = 12, a = 0") &&
                            Contains("EmptyRows::self_loop"));
        ReadOptions options;
        options.empty_transition_rows = maxent::EmptyRows::self_loop;
        const PomdpFile f = maxent::read_pomdp_file(classic_dir / "mini-hall2.pomdp", options);
        const std::vector<std::pair<std::size_t, std::size_t>> absorbing{{0, 12}, {1, 12}, {2, 12}};
        CHECK(f.absorbing_rows == absorbing);
        for (const char* a : {"0", "1", "2"}) CHECK(P(f, "12", a, "12") == 1.0);
        CHECK(P(f, "11", "2", "10") == 1.0);
    }
}

// --- corner cases, one file each -------------------------------------------------------------

TEST_CASE("corner case: wildcards and later entries override earlier ones", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "wildcards_override.pomdp");
    CHECK(P(f, "s0", "a", "s1") == 1.0);
    CHECK(P(f, "s0", "a", "s0") == 0.0);
    CHECK(f.model.transition(0, 0).size() == 1);  // the cleared cell is not stored
    CHECK(P(f, "s1", "a", "s1") == 1.0);
    for (const char* next : {"s0", "s1", "s2", "s3"}) CHECK(P(f, "s2", "a", next) == 0.25);
    CHECK(P(f, "s2", "b", "s2") == 0.5);
    CHECK(P(f, "s2", "b", "s3") == 0.0);
    CHECK(P(f, "s3", "b", "s3") == 1.0);
    CHECK(P(f, "s0", "b", "s0") == 1.0);
    CHECK(Z(f, "a", "s0", "x") == 1.0);
    CHECK(Z(f, "b", "s3", "y") == 1.0);
    CHECK(Z(f, "b", "s3", "x") == 0.0);
    CHECK(R(f, "b", "s0", "s1", "x") == 1.0);   // default rule
    CHECK(R(f, "a", "s0", "s1", "x") == 5.0);   // later, more specific
    CHECK(R(f, "a", "s0", "s1", "y") == -2.0);  // latest, most specific
    CHECK(R(f, "a", "s3", "s3", "y") == 7.0);   // a later wildcard overrides an earlier specific rule
    CHECK(R(f, "b", "s3", "s0", "x") == 7.0);
}

TEST_CASE("values: the plural spellings 'rewards' and 'costs' are read as reward and cost", "[pomdp-file]") {
    // The classic ejs4 to ejs7 files say `values: rewards`; other readers accept both plurals.
    const std::string body = "states: a b\nactions: x\nobservations: o\nT: x identity\nO: x uniform\n";
    CHECK_FALSE(maxent::parse_pomdp("values: rewards\n" + body).values_are_costs);
    CHECK(maxent::parse_pomdp("values: costs\n" + body).values_are_costs);
    CHECK_FALSE(maxent::parse_pomdp("values: reward\n" + body).values_are_costs);
    CHECK(maxent::parse_pomdp("values: cost\n" + body).values_are_costs);
}

TEST_CASE("corner case: row and matrix forms over numbered sets", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "matrix_forms.pomdp");
    const auto& m = f.model;
    CHECK(m.state_label(2) == "2");
    CHECK(m.action_label(1) == "1");
    CHECK(m.observation_label(0) == "0");
    CHECK(f.values_are_costs);
    CHECK(*f.discount == 0.5);
    CHECK(m.initial_distribution()[2] == Approx(0.5));
    CHECK(P(f, "1", "0", "2") == 0.5);
    CHECK(P(f, "2", "0", "1") == 0.0);
    CHECK(P(f, "2", "1", "0") == 0.0);  // the element entry before the row form is replaced
    CHECK(P(f, "2", "1", "2") == 1.0);
    CHECK(P(f, "1", "1", "1") == 1.0);
    CHECK(m.observation_depends_on_action());
    CHECK(Z(f, "0", "1", "1") == Approx(0.8));
    CHECK(Z(f, "1", "1", "1") == 1.0);
    CHECK(Z(f, "1", "2", "0") == 0.5);
    CHECK(R(f, "0", "1", "0", "1") == 2.0);
    CHECK(R(f, "0", "1", "2", "0") == 5.0);
    CHECK(R(f, "0", "1", "2", "1") == 6.0);
    CHECK(R(f, "1", "2", "0", "0") == -1.5);
    CHECK(R(f, "1", "2", "0", "1") == 2.5);
    CHECK(R(f, "0", "0", "0", "0") == 0.0);
}

TEST_CASE("corner case: identity, uniform and reset", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "identity_uniform.pomdp");
    CHECK(P(f, "1", "stay", "1") == 1.0);
    CHECK(f.model.transition(1, 0).size() == 1);
    CHECK(P(f, "0", "mix", "2") == Approx(1.0 / 3.0).margin(1e-15));
    CHECK(P(f, "0", "jump", "0") == Approx(0.2));  // reset: the start distribution
    CHECK(P(f, "0", "jump", "2") == Approx(0.5));
    CHECK(P(f, "1", "jump", "0") == Approx(1.0 / 3.0).margin(1e-15));
    CHECK(P(f, "2", "jump", "2") == 1.0);
    CHECK(Z(f, "stay", "2", "3") == 0.25);
    CHECK(Z(f, "jump", "2", "3") == 1.0);
    CHECK(Z(f, "jump", "1", "3") == 0.25);
    CHECK(f.model.observation_depends_on_action());
}

TEST_CASE("corner case: the forms of start", "[pomdp-file]") {
    SECTION("start include:") {
        const PomdpFile f = maxent::read_pomdp_file(data_dir / "start_include.pomdp");
        const Eigen::VectorXd expected = (Eigen::VectorXd(4) << 0.0, 0.5, 0.0, 0.5).finished();
        CHECK(f.model.initial_distribution().isApprox(expected));
    }
    SECTION("start exclude:") {
        const PomdpFile f = maxent::read_pomdp_file(data_dir / "start_exclude.pomdp");
        const Eigen::VectorXd expected = (Eigen::VectorXd(4) << 0.0, 0.5, 0.0, 0.5).finished();
        CHECK(f.model.initial_distribution().isApprox(expected));
    }
    SECTION("start: <name>") {
        const PomdpFile f = maxent::read_pomdp_file(data_dir / "start_state.pomdp");
        const Eigen::VectorXd expected = (Eigen::VectorXd(3) << 0.0, 0.0, 1.0).finished();
        CHECK(f.model.initial_distribution().isApprox(expected));
    }
    SECTION("start: <number>, start: uniform, and a single state") {
        const std::string head = "states: 3\nactions: 1\nobservations: 1\n";
        const std::string body = "T: 0 identity\nO: 0 uniform\n";
        const PomdpFile one = maxent::parse_pomdp(head + "start: 1\n" + body);
        CHECK(one.model.initial_distribution()[1] == 1.0);
        const PomdpFile uni = maxent::parse_pomdp(head + "start: uniform\n" + body);
        CHECK(uni.model.initial_distribution()[2] == Approx(1.0 / 3.0));
        const PomdpFile vec = maxent::parse_pomdp(head + "start: 0 0 1\n" + body);
        CHECK(vec.model.initial_distribution()[2] == 1.0);
        const std::string single = "states: 1\nactions: 1\nobservations: 1\n";
        CHECK(maxent::parse_pomdp(single + "start: 1\n" + body).model.initial_distribution()[0] == 1.0);
        CHECK(maxent::parse_pomdp(single + "start: 0\n" + body).model.initial_distribution()[0] == 1.0);
        CHECK(maxent::parse_pomdp(single + "start: 1.0\n" + body).model.initial_distribution()[0] == 1.0);
    }
}

TEST_CASE("corner case: named and numbered sets, references by name or number", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "named_vs_numbered.pomdp");
    CHECK(f.model.state_label(0) == "left");
    CHECK(f.model.action_label(1) == "wait");
    CHECK(f.model.observation_label(2) == "2");
    CHECK(P(f, "left", "go", "right") == 1.0);
    CHECK(P(f, "right", "go", "left") == 1.0);
    CHECK(P(f, "right", "wait", "right") == 1.0);
    CHECK(Z(f, "go", "right", "2") == 1.0);
    CHECK(f.model.initial_distribution()[0] == 0.5);
    CHECK(*f.discount == 1.0);
}

TEST_CASE("corner case: comments, CRLF, tabs, no spaces, no final newline", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "comments.pomdp");
    CHECK(f.model.num_states() == 2);
    CHECK(f.model.action_label(0) == "x");
    CHECK(P(f, "a", "x", "b") == 1.0);
    CHECK(P(f, "b", "x", "a") == 1.0);
    CHECK(Z(f, "x", "a", "hear-a") == 0.75);
    CHECK(Z(f, "x", "b", "hear-b") == 0.75);
    CHECK(f.model.initial_distribution()[1] == 0.5);
    CHECK(*f.discount == 0.95);
    // a UTF-8 byte order mark before the first section is skipped
    CHECK(maxent::parse_pomdp("\xEF\xBB\xBF" + preamble + valid_body).model.num_states() == 2);
}

TEST_CASE("corner case: exponent notation and signs", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "exponent_notation.pomdp");
    CHECK(*f.discount == 0.95);
    CHECK(f.model.initial_distribution()[0] == 0.25);
    CHECK(P(f, "0", "0", "1") == 0.5);
    CHECK(P(f, "1", "0", "0") == 1.0);
    CHECK(Z(f, "0", "1", "0") == 0.25);
    CHECK(Z(f, "0", "1", "1") == 0.75);
    CHECK(R(f, "0", "0", "1", "1") == -150.0);
    CHECK(R(f, "0", "1", "0", "1") == 1000.0);
    CHECK(R(f, "0", "1", "0", "0") == 0.0);
}

TEST_CASE("corner case: action-dependent observations", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "action_dependent_obs.pomdp");
    REQUIRE(f.model.observation_depends_on_action());
    CHECK(Z(f, "look", "left", "hear-left") == Approx(0.85));
    CHECK(Z(f, "peek", "left", "hear-left") == Approx(0.6));
    CHECK(f.model.observation_matrix(0).coeff(1, 1) == Approx(0.85));
    CHECK(f.model.observation_matrix(1).coeff(1, 1) == Approx(0.6));
}

TEST_CASE("corner case: rows rounded to 4 decimals are renormalised within the tolerance", "[pomdp-file]") {
    const PomdpFile f = maxent::read_pomdp_file(data_dir / "rounded_rows.pomdp");
    CHECK(f.model.initial_distribution()[0] == Approx(1.0 / 3.0).margin(1e-15));
    CHECK(P(f, "0", "0", "2") == Approx(1.0 / 3.0).margin(1e-15));
    CHECK(P(f, "1", "0", "0") == Approx(0.5).margin(1e-15));
    // The same file with a tolerance below the rounding error is rejected.
    ReadOptions strict;
    strict.row_tolerance = 1e-5;
    CHECK_THROWS_AS(maxent::read_pomdp_file(data_dir / "rounded_rows.pomdp", strict), maxent::parse_error);
}

TEST_CASE("horizon is the caller's, T = S by default", "[pomdp-file]") {
    const std::string text = preamble + valid_body;
    CHECK(maxent::parse_pomdp(text).model.horizon() == 2);
    ReadOptions options;
    options.horizon = 7;
    CHECK(maxent::parse_pomdp(text, "h", options).model.horizon() == 7);
}

TEST_CASE("a 1000-state model is stored sparse", "[pomdp-file]") {
    std::ostringstream out;
    const int S = 1000;
    out << "discount: 0.95\nvalues: reward\nstates: " << S << "\nactions: left right\nobservations: 3\n";
    for (int s = 0; s < S; ++s) {
        out << "T: left : " << s << " : " << (s + S - 1) % S << " 0.9\n";
        out << "T: left : " << s << " : " << s << " 0.1\n";
        out << "T: right : " << s << " : " << (s + 1) % S << " 1.0\n";
        out << "O: * : " << s << " : " << s % 3 << " 1.0\n";
    }
    const PomdpFile f = maxent::parse_pomdp(out.str());
    CHECK(f.model.transition_matrix(0).nonZeros() == 2 * S);
    CHECK(f.model.transition_matrix(1).nonZeros() == S);
    CHECK(P(f, "0", "left", "999") == Approx(0.9));
    CHECK(Z(f, "right", "998", "2") == 1.0);
    CHECK_FALSE(f.model.observation_depends_on_action());
}

// --- errors: one test per category, each naming file, line and column -------------------------

TEST_CASE("error: an unknown name", "[pomdp-file]") {
    CHECK_THAT(error_of(preamble + "T: x : a : c 1.0\n"), Contains("err.pomdp:6:12: unknown state 'c'"));
    CHECK_THAT(error_of(preamble + "T: y identity\n"), Contains("err.pomdp:6:4: unknown action 'y'"));
    CHECK_THAT(error_of(preamble + "O: x : a : z 1.0\n"), Contains("err.pomdp:6:12: unknown observation 'z'"));
    CHECK_THAT(error_of(preamble + "T: x : 2 : 0 1.0\n"), Contains("err.pomdp:6:8: state number '2' is outside [0, 2)"));
    CHECK_THAT(error_of("states: 3\nactions: 1\nobservations: 1\nT: 0 : zero : 0 1.0\n"),
               Contains("err.pomdp:4:8: unknown state 'zero': the states are numbered 0 to 2"));
    CHECK_THAT(error_of(preamble + "start: c\n"), Contains("err.pomdp:6:8: unknown state 'c'"));
    CHECK_THAT(error_of(preamble + "start include: a *\n"), Contains("err.pomdp:6:18: '*' is not allowed here"));
}

TEST_CASE("error: a number out of [0, 1] or not a number", "[pomdp-file]") {
    CHECK_THAT(error_of(preamble + "T: x : a : b 1.5\n"),
               Contains("err.pomdp:6:14: probability '1.5' in the T: entry is outside [0, 1]"));
    CHECK_THAT(error_of(preamble + "T: x\n1 0\n0 -0.5\n"), Contains("err.pomdp:8:3: probability '-0.5'"));
    CHECK_THAT(error_of(preamble + "O: x : a\n1e1\n"), Contains("err.pomdp:7:1: probability '1e1'"));
    CHECK_THAT(error_of("discount: 1.5\n"), Contains("err.pomdp:1:11: discount '1.5' is outside [0, 1]"));
    CHECK_THAT(error_of(preamble + "T: x : a : b nan\n"),
               Contains("err.pomdp:6:14: expected a probability for the T: entry but found 'nan'"));
    CHECK_THAT(error_of(preamble + "T: x : a : b inf\n"), Contains("err.pomdp:6:14: expected a probability"));
    CHECK_THAT(error_of(preamble + "T: x : a : b 0.5.5\n"), Contains("err.pomdp:6:14: expected a probability"));
    CHECK_THAT(error_of(preamble + "R: x : a : b : o 1e999\n"),
               Contains("err.pomdp:6:18: number '1e999' is out of the range of double"));
    CHECK_THAT(error_of(preamble + "R: x : a : b : o ten\n"),
               Contains("err.pomdp:6:18: expected a number for the R: entry but found 'ten'"));
}

TEST_CASE("error: a missing section", "[pomdp-file]") {
    CHECK_THAT(error_of("discount: 0.9\nstates: a b\nobservations: o\nT: x identity\n"),
               Contains("err.pomdp:4:1: missing 'actions:' section"));
    CHECK_THAT(error_of("states: 2\nactions: 1\n"), Contains("err.pomdp:3:1: missing 'observations:' section"));
    CHECK_THAT(error_of(""), Contains("err.pomdp:1:1: missing 'states:' section"));
    CHECK_THAT(error_of("actions: 1\nobservations: 1\nstart: uniform\n"),
               Contains("err.pomdp:3:1: 'start:' needs the 'states:' section before it"));
    // no T: entries at all: the first row is reported, at the end of the file
    CHECK_THAT(error_of(preamble + "O: x uniform\n"),
               Contains("err.pomdp:7:1: no transition probabilities T(s' | s = 'a', a = 'x')"));
    CHECK_THAT(error_of(preamble + "T: x identity\nO: x : a : o 1\n"),
               Contains("err.pomdp:8:1: no observation probabilities O(o | s' = 'b', a = 'x')"));
}

TEST_CASE("error: a matrix or row with the wrong count of numbers", "[pomdp-file]") {
    CHECK_THAT(error_of(preamble + "T: x\n0.5 0.5\n0.5\nO: x uniform\n"),
               Contains("err.pomdp:9:1: expected a probability (number 4 of the 4 of the T: matrix) but found 'O'"));
    CHECK_THAT(error_of(preamble + "T: x\n0.5 0.5\n0.5 0.5 0.5\nO: x uniform\n"),
               Contains("err.pomdp:8:9: unexpected number '0.5': a preceding row or matrix has more numbers"));
    CHECK_THAT(error_of(preamble + "T: x : a 1"),
               Contains("err.pomdp:6:11: expected a probability (number 2 of the 2 of the T: row) but found end of file"));
    CHECK_THAT(error_of(preamble + "R: x : a\n1\n"),
               Contains("err.pomdp:8:1: expected a number (2 of the 2 of the R: matrix) but found end of file"));
}

TEST_CASE("error: a row off the simplex names the action and the state", "[pomdp-file]") {
    CHECK_THAT(error_of(preamble + "T: x : a 0.5 0.4\nT: x : b 0 1\nO: x uniform\n"),
               Contains("err.pomdp:6:1: transition probabilities T(s' | s = 'a', a = 'x') sum to 0.9") &&
                   Contains("row tolerance 0.001"));
    CHECK_THAT(error_of(preamble + "T: x identity\nO: x : b 0.5\nO: x : a 1\n"),
               Contains("err.pomdp:7:1: observation probabilities O(o | s' = 'b', a = 'x') sum to 0.5"));
    CHECK_THAT(error_of(preamble + "start: 0.6 0.6\n"),
               Contains("err.pomdp:6:1: the start vector sums to 1.2"));
    // within the tolerance: accepted; just outside: rejected
    CHECK(maxent::parse_pomdp(preamble + "T: x : a 0.5 0.4995\nT: x : b 0 1\nO: x uniform\n").model.transition(0, 0).size() == 2);
    CHECK_THAT(error_of(preamble + "T: x : a 0.5 0.498\nT: x : b 0 1\nO: x uniform\n"),
               Contains("err.pomdp:6:1: transition probabilities"));
}

TEST_CASE("error: trailing garbage and misplaced sections", "[pomdp-file]") {
    CHECK_THAT(error_of(preamble + valid_body + "hello world\n"),
               Contains("err.pomdp:8:1: expected a section (discount:, values:") && Contains("but found 'hello'"));
    CHECK_THAT(error_of(preamble + valid_body + "foo: 1\n"), Contains("err.pomdp:8:1: unknown section 'foo'"));
    CHECK_THAT(error_of(preamble + valid_body + ": :\n"), Contains("err.pomdp:8:1: expected a section"));
    CHECK_THAT(error_of(preamble + valid_body + "states: 3\n"),
               Contains("err.pomdp:8:1: 'states:' must come before the first T:, O: or R: entry"));
    CHECK_THAT(error_of(preamble + "states: 3\n"), Contains("err.pomdp:6:1: duplicate 'states:' section"));
    CHECK_THAT(error_of("values: profit\n"),
               Contains("err.pomdp:1:9: expected 'reward' or 'cost' (or 'rewards', 'costs') after 'values:' but "
                        "found 'profit'"));
    CHECK_THAT(error_of("values: rewardss\n"), Contains("err.pomdp:1:9: expected 'reward' or 'cost'"));
    CHECK_THAT(error_of("states: 3 a b\n"), Contains("err.pomdp:1:11: expected a section"));
    CHECK_THAT(error_of("states: a b a\n"), Contains("err.pomdp:1:13: duplicate state name 'a'"));
    CHECK_THAT(error_of("states: a uniform\n"), Contains("err.pomdp:1:11: 'uniform' is a keyword"));
    CHECK_THAT(error_of("states: a 2b\n"), Contains("err.pomdp:1:11: expected a state name but found '2b'"));
    CHECK_THAT(error_of("states:\nactions: 2\n"), Contains("err.pomdp:2:1: expected a count or a list of state names"));
    CHECK_THAT(error_of(preamble + "start exclude: a b\n"),
               Contains("err.pomdp:6:1: 'start exclude:' excludes every state"));
    CHECK_THAT(error_of(std::string("states: a\x01z\n")), Contains("err.pomdp:1:9: state name 'a\\x01z' contains a control"));
}

TEST_CASE("error: huge counts and budgets fail cleanly without allocating", "[pomdp-file]") {
    CHECK_THAT(error_of("states: 999999999999\n"),
               Contains("err.pomdp:1:9: 'states: 999999999999' exceeds the limit of 1000000 states"));
    CHECK_THAT(error_of("states: 2\nactions: 99999999999999999999999999\n"),
               Contains("err.pomdp:2:10: 'actions: 99999999999999999999999999' exceeds the limit"));
    CHECK_THAT(error_of("states: 1000000\nactions: 1000\nobservations: 1\nT: * identity\n"),
               Contains("err.pomdp:4:1: the model has 1000 actions x 1000000 states = 1000000000 transition rows"));
    ReadOptions small;
    small.max_cell_writes = 1000;
    CHECK_THAT(error_of("states: 100\nactions: 1\nobservations: 1\nT: * uniform\n", small),
               Contains("err.pomdp:4:1: the file writes more than 1000 T/O matrix cells"));
    CHECK_THAT(error_of("states: 40\nactions: 1\nobservations: 1\nT: * : * : * 0.025\nO: * : * : * 1\n", small),
               Contains("err.pomdp:4:1: the file writes more than 1000"));
    ReadOptions few_labels;
    few_labels.max_labels = 2;
    CHECK_THAT(error_of("states: a b c\n", few_labels), Contains("err.pomdp:1:13: more than 2 states"));
}

TEST_CASE("error: unreadable files and bad options", "[pomdp-file]") {
    const fs::path missing = data_dir / "no-such-file.pomdp";
    CHECK_THROWS_WITH(maxent::read_pomdp_file(missing), Contains("no-such-file.pomdp") && Contains("cannot read"));
    CHECK_THROWS_AS(maxent::read_pomdp_file(data_dir), maxent::parse_error);
    ReadOptions bad;
    bad.row_tolerance = -1.0;
    CHECK_THROWS_AS(maxent::parse_pomdp(preamble + valid_body, "x", bad), maxent::config_error);
    bad = ReadOptions{};
    bad.max_labels = 0;
    CHECK_THROWS_AS(maxent::parse_pomdp(preamble + valid_body, "x", bad), maxent::config_error);
    bad = ReadOptions{};
    bad.max_cell_writes = 0;
    CHECK_THROWS_AS(maxent::parse_pomdp(preamble + valid_body, "x", bad), maxent::config_error);
}

// --- robustness ---------------------------------------------------------------------------------

TEST_CASE("truncated, mutated and random inputs parse or throw parse_error, nothing else", "[pomdp-file]") {
    const std::string tiger = slurp(classic_dir / "tiger.95.POMDP");
    std::size_t parsed = 0;
    for (std::size_t n = 0; n <= tiger.size(); ++n) {
        const std::string_view prefix(tiger.data(), n);
        REQUIRE(parses_or_parse_error(prefix));
        try {
            (void)maxent::parse_pomdp(prefix);
            ++parsed;
        } catch (const maxent::parse_error&) {
        }
    }
    CHECK(parsed >= 1);  // the whole file (and prefixes that end inside its last reward)

    const std::string hallway = slurp(classic_dir / "hallway.POMDP");
    for (std::size_t n = 0; n < hallway.size(); n += 97) REQUIRE(parses_or_parse_error(hallway.substr(0, n)));

    maxent::DefaultRng g(20240611);
    const std::string alphabet = "T:O:R:*# \n\t0123456789.e-+abstuniformidentityresetstartincludeexclude";
    for (int round = 0; round < 300; ++round) {
        std::string mutated = tiger;
        const std::size_t edits = 1 + maxent::uniform_index(g, 8);
        for (std::size_t k = 0; k < edits; ++k) {
            const std::size_t at = maxent::uniform_index(g, mutated.size());
            switch (maxent::uniform_index(g, 3)) {
                case 0: mutated[at] = alphabet[maxent::uniform_index(g, alphabet.size())]; break;
                case 1: mutated.erase(at, 1 + maxent::uniform_index(g, 20)); break;
                default: mutated.insert(at, 1, alphabet[maxent::uniform_index(g, alphabet.size())]); break;
            }
            if (mutated.empty()) mutated.push_back('#');
        }
        REQUIRE(parses_or_parse_error(mutated));
        std::string garbage(maxent::uniform_index(g, 200), ' ');
        for (char& c : garbage) c = static_cast<char>(maxent::uniform_index(g, 256));
        REQUIRE(parses_or_parse_error(garbage));
    }
}

TEST_CASE("fuzzer regressions parse or throw parse_error", "[pomdp-file]") {
    const fs::path dir = data_dir / "regressions";
    REQUIRE(fs::is_directory(dir));
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
        INFO(entry.path().filename().string());
        ReadOptions options;
        options.max_cell_writes = std::size_t{1} << 20;  // the fuzz target's budget
        REQUIRE(parses_or_parse_error(slurp(entry.path()), options));
        options.empty_transition_rows = maxent::EmptyRows::self_loop;
        REQUIRE(parses_or_parse_error(slurp(entry.path()), options));
        ++count;
    }
    CHECK(count >= 1);
}

// --- the writer ------------------------------------------------------------------------

namespace pomdp_writer_test {

/// True when `f` read back holds exactly (==) the matrices and start of `m`.
template <class M>
bool same_numbers(const maxent::PomdpFile& f, const M& m) {
    if (f.model.num_states() != m.num_states() || f.model.num_actions() != m.num_actions() ||
        f.model.num_observations() != m.num_observations())
        return false;
    bool eq = f.model.initial_distribution() == m.initial_distribution();
    for (std::size_t a = 0; a < m.num_actions(); ++a) {
        eq = eq && Eigen::MatrixXd(f.model.transition_matrix(a)) == Eigen::MatrixXd(m.transition_matrix(a));
        eq = eq && Eigen::MatrixXd(f.model.observation_matrix(a)) == Eigen::MatrixXd(m.observation_matrix(a));
    }
    return eq && Eigen::MatrixXd(f.model.initial_observation_matrix()) == Eigen::MatrixXd(m.initial_observation_matrix());
}

template <class M>
std::string written(const M& m, const maxent::WriteOptions& options = {}) {
    std::ostringstream out;
    maxent::write_pomdp_file(m, out, options);
    return out.str();
}

}  // namespace pomdp_writer_test

TEST_CASE("write_pomdp_file: a grid world and learned models read back with identical numbers", "[pomdp_file][writer]") {
    const auto grid = maxent::make_grid_world({.layout = maxent::GridLayout::four_rooms(6, 6), .slip = 0.1});
    const maxent::PomdpFile g = maxent::parse_pomdp(pomdp_writer_test::written(grid, {.discount = 0.9, .title = {}}), "grid");
    CHECK(pomdp_writer_test::same_numbers(g, grid));
    REQUIRE(g.discount.has_value());
    CHECK(*g.discount == 0.9);
    // Learned models' rows are divided by their sums, so most do not sum to exactly 1 (the
    // writer must scale them for the reader's division to give them back): 10 fits.
    std::vector<maxent::ActionObservationSequence> data(30);
    maxent::DefaultRng rng(5);
    for (auto& q : data)
        for (std::size_t k = 0; k < 11; ++k) {
            if (k < 10) q.actions.push_back(static_cast<std::size_t>(rng() % 2));
            q.observations.push_back(static_cast<std::size_t>(rng() % 3));
        }
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
        const maxent::IohmmOptions o{.latent_states = 6, .num_actions = 2, .num_observations = 3, .restarts = 1,
                                     .max_iterations = 15, .seed = seed};
        const auto learned = maxent::to_finite_pomdp(maxent::fit_iohmm(data, o).model, 10);
        CHECK(pomdp_writer_test::same_numbers(maxent::parse_pomdp(pomdp_writer_test::written(learned), "learned"), learned));
    }
}

TEST_CASE("write_pomdp_file: a tiny model is written as the hand-written text", "[pomdp_file][writer]") {
    std::vector<Eigen::MatrixXd> P(2, Eigen::MatrixXd(2, 2)), E(1, Eigen::MatrixXd(2, 2));
    P[0] << 0.5, 0.5, 0, 1;
    P[1] << 1, 0, 0, 1;
    E[0] << 0.75, 0.25, 0.25, 0.75;
    Eigen::VectorXd mu(2);
    mu << 1, 0;
    const maxent::FinitePomdp<std::string, std::string, std::string> m({"left", "right"}, {"go", "stay"},
                                                                         {"dark", "light"}, P, E, mu, 3);
    const std::string expected = "# tiny\n"
                                 "# states, actions and observations are numbered 0..N-1 in the model's order:\n"
                                 "#   states: 'left' 'right'\n"
                                 "#   actions: 'go' 'stay'\n"
                                 "#   observations: 'dark' 'light'\n"
                                 "discount: 0.95\n"
                                 "values: reward\n"
                                 "states: 2\n"
                                 "actions: 2\n"
                                 "observations: 2\n"
                                 "\n"
                                 "start: 1 0\n"
                                 "\n"
                                 "T: 0\n"
                                 "0.5 0.5\n"
                                 "0 1\n"
                                 "\n"
                                 "T: 1\n"
                                 "1 0\n"
                                 "0 1\n"
                                 "\n"
                                 "O: *\n"
                                 "0.75 0.25\n"
                                 "0.25 0.75\n";
    CHECK(pomdp_writer_test::written(m, {.discount = 0.95, .title = "tiny"}) == expected);
}

TEST_CASE("write_pomdp_file: a start vector whose exact sum is off 1 reads back within a few ulps", "[pomdp_file][writer]") {
    // 0.7 + (0.3 + 4e-16): the exact sum is 1 + 4e-16 (about 2 ulps of 1), more than any
    // rounding of the reader's sum can make up, so the vector is written as it is.
    std::vector<Eigen::MatrixXd> P(1, Eigen::MatrixXd::Identity(2, 2)), E(1, Eigen::MatrixXd::Identity(2, 2));
    Eigen::VectorXd mu(2);
    mu << 0.7, 0.3 + 4e-16;
    const maxent::FinitePomdp<std::size_t, std::size_t, std::size_t> m({0, 1}, {0}, {0, 1}, P, E, mu, 2);
    const maxent::PomdpFile f = maxent::parse_pomdp(pomdp_writer_test::written(m), "start");
    for (Eigen::Index s = 0; s < 2; ++s)
        CHECK(std::abs(f.model.initial_distribution()[s] - mu[s]) <= 4 * std::numeric_limits<double>::epsilon() * mu[s]);
    CHECK(Eigen::MatrixXd(f.model.transition_matrix(0)) == P[0]);
}

TEST_CASE("write_pomdp_file: errors are named", "[pomdp_file][writer]") {
    const auto grid = maxent::make_grid_world({.layout = maxent::GridLayout::four_rooms(4, 4), .slip = 0.0});
    std::ostringstream failed;
    failed.setstate(std::ios::badbit);
    CHECK_THROWS_WITH(maxent::write_pomdp_file(grid, failed), Contains("writing to the stream failed"));
    std::ostringstream out;
    CHECK_THROWS_WITH(maxent::write_pomdp_file(grid, out, {.discount = 1.5, .title = {}}), Contains("discount 1.5 is not in [0, 1]"));
    // per-action emissions: o_1 has its own matrix, which the format cannot hold
    maxent::IohmmModel im;
    im.emission_model = maxent::EmissionModel::per_action;
    im.initial = Eigen::VectorXd::Constant(2, 0.5);
    Eigen::MatrixXd half = Eigen::MatrixXd::Constant(2, 2, 0.5), eye = Eigen::MatrixXd::Identity(2, 2);
    im.transitions = {half};
    im.emissions = {eye};
    im.initial_emission = half;
    CHECK_THROWS_WITH(maxent::write_pomdp_file(maxent::to_finite_pomdp(im, 3), out),
                      Contains("first observation Obs(o_1 | s_1) differs"));
}

TEST_CASE("write_pomdp_file: long rows divided by their sums read back exactly", "[pomdp_file][writer]") {
    // 300 states: rows of 300 Exp(1) draws divided by their sum. The exact sum of such a row
    // is off 1 by up to a few hundred ulps, more than any rescaling of the written numbers can
    // make the reader's division undo; the reader keeps rows that sum to 1 up to rounding.
    const Eigen::Index S = 300;
    maxent::DefaultRng g(11);
    auto draw = [&](auto&& row) {
        double total = 0.0;
        for (Eigen::Index j = 0; j < row.size(); ++j) {
            row[j] = -std::log(1.0 - maxent::uniform01(g));
            total += row[j];
        }
        row /= total;
    };
    std::vector<Eigen::MatrixXd> P(1, Eigen::MatrixXd(S, S)), E(1, Eigen::MatrixXd(S, 2));
    for (Eigen::Index s = 0; s < S; ++s) {
        draw(P[0].row(s));
        draw(E[0].row(s));
    }
    Eigen::VectorXd mu(S);
    draw(mu);
    std::vector<std::size_t> states(static_cast<std::size_t>(S));
    for (std::size_t s = 0; s < states.size(); ++s) states[s] = s;
    const maxent::FinitePomdp<std::size_t, std::size_t, std::size_t> m(states, {0}, {0, 1}, P, E, mu, 2);
    const PomdpFile f = maxent::parse_pomdp(pomdp_writer_test::written(m), "long");
    CHECK(f.model.initial_distribution() == m.initial_distribution());
    std::size_t differing = 0;
    const Eigen::MatrixXd read(f.model.transition_matrix(0)), given(m.transition_matrix(0));
    for (Eigen::Index s = 0; s < S; ++s) differing += read.row(s) == given.row(s) ? 0 : 1;
    CHECK(differing == 0);
    CHECK(pomdp_writer_test::same_numbers(f, m));
}

TEST_CASE("write_pomdp_file: line breaks in the title and labels cannot add sections", "[pomdp_file][writer]") {
    std::vector<Eigen::MatrixXd> P(1, Eigen::MatrixXd::Identity(2, 2)), E(1, Eigen::MatrixXd::Identity(2, 2));
    Eigen::VectorXd mu(2);
    mu << 0.25, 0.75;
    const maxent::FinitePomdp<std::string, std::string, std::string> m({"a\ndiscount: 0.1", "b"}, {"go\rR: * : * : * : * 3"},
                                                                         {"x", "y\n"}, P, E, mu, 2);
    const std::string text =
        pomdp_writer_test::written(m, {.discount = {}, .title = "model\ndiscount: 0.5\nR: * : * : * : * 7\r\nvalues: cost"});
    CHECK(text.rfind("# model discount: 0.5 R: * : * : * : * 7  values: cost\n", 0) == 0);
    const PomdpFile f = maxent::parse_pomdp(text, "title");
    CHECK_FALSE(f.discount.has_value());  // the model has none: no line of the title became one
    CHECK(f.rewards.empty());
    CHECK_FALSE(f.values_are_costs);
    CHECK(pomdp_writer_test::same_numbers(f, m));
}

TEST_CASE("writer fuzzer regressions read back with identical numbers", "[pomdp_file][writer]") {
    const fs::path dir = fs::path{MAXENT_TEST_DATA_DIR} / "pomdp_writer" / "regressions";
    REQUIRE(fs::is_directory(dir));
    std::size_t count = 0, written = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
        INFO(entry.path().filename().string());
        written += maxent::fuzz::pomdp_writer_round_trip(slurp(entry.path())) ? 1 : 0;  // traps on a difference
        ++count;
    }
    CHECK(count >= 4);
    CHECK(written >= 3);
}

TEST_CASE("read_pomdp_file refuses a FIFO, a device and a file above its size bound", "[pomdp-file]") {
    CHECK_THROWS_WITH(maxent::read_pomdp_file("/dev/zero"),
                      Contains("/dev/zero:0:0:") && Contains("a character device, not a regular file"));
    const fs::path dir = fs::temp_directory_path() / ("maxent-pomdp-read-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    REQUIRE(::mkfifo((dir / "pipe.pomdp").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(maxent::read_pomdp_file(dir / "pipe.pomdp"), Contains("a FIFO (named pipe)"));
    const fs::path tiger = classic_dir / "tiger.95.POMDP";
    const auto size = static_cast<std::uintmax_t>(fs::file_size(tiger));
    CHECK(maxent::read_pomdp_file(tiger, {}, size).model.num_states() == 2);
    CHECK_THROWS_WITH(maxent::read_pomdp_file(tiger, {}, size - 1),
                      Contains("tiger.95.POMDP:0:0:") && Contains("larger than " + std::to_string(size - 1)));
    fs::remove_all(dir);
}

}  // namespace test_pomdp_file
