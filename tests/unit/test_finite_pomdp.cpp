// Tests of model/finite_pomdp.hpp and model/labels.hpp: validation on construction (every
// failure is a maxent::model_error whose message names the offending row, column, value or
// label), label maps for hashable, ordered and equality-only label types, index checks, and
// agreement of the three construction paths (dense, sparse, from_functions) entry by entry
// against matrices written out by hand in this file.
#include <catch2/catch.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "maxent/belief/concepts.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/labels.hpp"

// --- user label types for from_functions ---------------------------------------------------
namespace finite_pomdp_test {

/// A state type with operator== and std::hash only (no operator<, not streamable).
struct Pos {
    int x = 0;
    bool operator==(const Pos&) const = default;
};

/// An action type: an enum class (hashable through std::hash, not streamable).
enum class Act { stay, go };

/// A label type with operator== only: neither hashable nor ordered nor streamable.
struct Opaque {
    int id = 0;
    bool operator==(const Opaque&) const = default;
};

/// A label type that is ordered but not hashable (the std::map path of LabelSet).
struct Ranked {
    int v = 0;
    auto operator<=>(const Ranked&) const = default;
};

}  // namespace finite_pomdp_test

template <>
struct std::hash<finite_pomdp_test::Pos> {
    std::size_t operator()(const finite_pomdp_test::Pos& p) const noexcept { return std::hash<int>{}(p.x); }
};
namespace test_finite_pomdp {

namespace {

using maxent::FinitePomdp;
using maxent::SparseDistribution;
using maxent::SparseMatrix;
using maxent::ValidationOptions;
using finite_pomdp_test::Act;
using finite_pomdp_test::Opaque;
using finite_pomdp_test::Pos;
using finite_pomdp_test::Ranked;

using StrPomdp = FinitePomdp<std::string, std::string, std::string>;

// Matches an exception whose what() contains every one of the given substrings.
class MessageContains : public Catch::MatcherBase<std::exception> {
public:
    MessageContains(std::initializer_list<std::string> parts) : parts_(parts) {}
    bool match(const std::exception& e) const override {
        const std::string what = e.what();
        for (const auto& p : parts_)
            if (what.find(p) == std::string::npos) return false;
        return true;
    }
    std::string describe() const override {
        std::ostringstream out;
        out << "message contains all of:";
        for (const auto& p : parts_) out << " \"" << p << '"';
        return out.str();
    }

private:
    std::vector<std::string> parts_;
};

Eigen::MatrixXd matrix(Eigen::Index rows, Eigen::Index cols, std::initializer_list<double> values) {
    Eigen::MatrixXd m(rows, cols);
    Eigen::Index k = 0;
    for (const double v : values) {
        m(k / cols, k % cols) = v;
        ++k;
    }
    REQUIRE(k == rows * cols);
    return m;
}

Eigen::VectorXd vector(std::initializer_list<double> values) {
    Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
    Eigen::Index k = 0;
    for (const double x : values) v[k++] = x;
    return v;
}

// Everything a string-labelled model is built from; tests break one piece at a time.
struct Spec {
    std::vector<std::string> states{"s0", "s1", "s2"};
    std::vector<std::string> actions{"left", "right"};
    std::vector<std::string> observations{"dark", "light"};
    std::vector<Eigen::MatrixXd> transitions{
        matrix(3, 3, {1.0, 0.0, 0.0,     //
                      0.5, 0.5, 0.0,     //
                      0.0, 0.25, 0.75}),  // left
        matrix(3, 3, {0.25, 0.75, 0.0,   //
                      0.0, 0.0, 1.0,     //
                      0.0, 0.0, 1.0})};  // right
    std::vector<Eigen::MatrixXd> obs{matrix(3, 2, {1.0, 0.0,  //
                                                   0.5, 0.5,  //
                                                   0.0, 1.0})};
    Eigen::VectorXd mu = vector({0.5, 0.25, 0.25});
    std::size_t horizon = 4;
};

StrPomdp build(const Spec& s, ValidationOptions options = {}) {
    return StrPomdp(s.states, s.actions, s.observations, s.transitions, s.obs, s.mu, s.horizon, options);
}

// The dense vector of length n that a sparse view describes.
Eigen::VectorXd dense(const SparseDistribution& d, std::size_t n) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
    REQUIRE(d.index.size() == d.probability.size());
    for (std::size_t k = 0; k < d.size(); ++k) {
        REQUIRE(d.index[k] >= 0);
        REQUIRE(static_cast<std::size_t>(d.index[k]) < n);
        v[d.index[k]] += d.probability[k];
    }
    return v;
}

// A view lists only positive entries, in strictly increasing index order.
bool only_positive_sorted(const SparseDistribution& d) {
    for (std::size_t k = 0; k < d.size(); ++k) {
        if (!(d.probability[k] > 0.0)) return false;
        if (k > 0 && d.index[k] <= d.index[k - 1]) return false;
    }
    return true;
}

}  // namespace

// =========================================================================================
// Validation on construction
// =========================================================================================

TEST_CASE("a valid model builds and reports its sizes, labels and horizon", "[model]") {
    const StrPomdp m = build(Spec{});
    REQUIRE(m.num_states() == 3);
    REQUIRE(m.num_actions() == 2);
    REQUIRE(m.num_observations() == 2);
    REQUIRE(m.horizon() == 4);
    REQUIRE(m.state_label(2) == "s2");
    REQUIRE(m.action_label(1) == "right");
    REQUIRE(m.observation_label(0) == "dark");
    REQUIRE(m.state_index("s1") == 1);
    REQUIRE(m.action_index("left") == 0);
    REQUIRE(m.observation_index("light") == 1);
    REQUIRE(m.tolerance() == 1e-9);
    STATIC_REQUIRE(std::derived_from<maxent::model_error, maxent::error>);
    STATIC_REQUIRE(std::derived_from<maxent::config_error, maxent::error>);
    STATIC_REQUIRE(std::derived_from<maxent::unknown_label_error, maxent::error>);
}

TEST_CASE("a transition row off the simplex by more than 1e-9 is rejected, within 1e-9 accepted", "[model]") {
    SECTION("1 + 2e-9 fails, naming the action, the row and its sum") {
        Spec s;
        s.transitions[1](1, 2) = 1.0 + 2e-9;  // right, row s1
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"transition matrix", "'right'", "row 1", "'s1'",
                                                "sums to 1.0000000019999999"}));
        // Also catchable as the library's base class.
        REQUIRE_THROWS_AS(build(s), maxent::error);
    }
    SECTION("1 - 2e-9 fails too (the tolerance is two-sided)") {
        Spec s;
        s.transitions[0](2, 1) = 0.25 - 2e-9;  // left, row s2
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"'left'", "row 2", "'s2'", "sums to 0.999999998"}));
    }
    SECTION("1 + 5e-10 passes") {
        Spec s;
        s.transitions[1](1, 2) = 1.0 + 5e-10;
        const StrPomdp m = build(s);
        REQUIRE(m.transition(1, 1)(2) == 1.0 + 5e-10);
    }
    SECTION("1 - 5e-10 passes") {
        Spec s;
        s.transitions[0](2, 1) = 0.25 - 5e-10;
        REQUIRE_NOTHROW(build(s));
    }
    SECTION("an all-zero row sums to 0 and fails") {
        Spec s;
        s.transitions[0].row(1).setZero();
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error, MessageContains({"'left'", "row 1", "sums to 0"}));
    }
}

TEST_CASE("an observation row that does not sum to 1 is rejected naming the row and its sum", "[model]") {
    Spec s;
    s.obs[0](2, 0) = 0.25;
    s.obs[0](2, 1) = 0.5;  // row s2 sums to 0.75
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"observation matrix", "row 2", "'s2'", "sums to 0.75"}));
}

TEST_CASE("an action-dependent observation row off the simplex names the action", "[model]") {
    Spec s;
    s.obs = {s.obs[0], s.obs[0]};
    s.obs[1](0, 0) = 0.5;  // right, row s0 sums to 0.5
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"observation matrix", "'right'", "row 0", "'s0'", "sums to 0.5"}));
}

TEST_CASE("a negative probability is rejected naming row, column and value", "[model]") {
    SECTION("in a transition matrix") {
        Spec s;
        s.transitions[0](2, 1) = -0.25;
        s.transitions[0](2, 2) = 1.25;  // the row still sums to 1
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"'left'", "row 2", "'s2'", "column 1", "'s1'", "negative", "-0.25"}));
    }
    SECTION("in an observation matrix") {
        Spec s;
        s.obs[0](1, 0) = 1.5;
        s.obs[0](1, 1) = -0.5;
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"observation matrix", "row 1", "column 1", "'light'", "-0.5"}));
    }
}

TEST_CASE("a NaN probability is rejected naming row, column and value", "[model]") {
    Spec s;
    s.transitions[1](0, 2) = std::numeric_limits<double>::quiet_NaN();
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"'right'", "row 0", "'s0'", "column 2", "'s2'", "nan"}));
}

TEST_CASE("an infinite probability is rejected naming row, column and value", "[model]") {
    Spec s;
    s.obs[0](1, 0) = std::numeric_limits<double>::infinity();
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"observation matrix", "row 1", "'s1'", "column 0", "'dark'", "inf"}));
}

TEST_CASE("dimension mismatch: wrong number of transition matrices", "[model]") {
    Spec s;
    s.transitions.pop_back();
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"got 1 transition matrices", "for 2 actions"}));
}

TEST_CASE("dimension mismatch: a transition matrix of the wrong shape", "[model]") {
    Spec s;
    s.transitions[1] = matrix(3, 2, {1.0, 0.0, 0.0, 1.0, 0.0, 1.0});
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"transition matrix", "'right'", "is 3 x 2", "expected 3 x 3"}));
}

TEST_CASE("dimension mismatch: an observation matrix of the wrong shape", "[model]") {
    Spec s;
    s.obs[0] = Eigen::MatrixXd::Identity(3, 3);
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"observation matrix", "is 3 x 3", "expected 3 x 2"}));
}

TEST_CASE("dimension mismatch: an initial distribution of the wrong size", "[model]") {
    Spec s;
    s.mu = vector({0.5, 0.5});
    REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                           MessageContains({"initial distribution has 2 entries", "3 states"}));
}

TEST_CASE("dimension mismatch: the number of observation matrices is neither 1 nor A", "[model]") {
    SECTION("3 matrices for 2 actions") {
        Spec s;
        s.obs = {s.obs[0], s.obs[0], s.obs[0]};
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"got 3 observation matrices", "for 2 actions"}));
    }
    SECTION("no matrix at all") {
        Spec s;
        s.obs.clear();
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"got 0 observation matrices", "for 2 actions"}));
    }
}

TEST_CASE("an empty state, action or observation set is rejected naming the set", "[model]") {
    SECTION("states") {
        Spec s;
        s.states.clear();
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error, MessageContains({"state set is empty"}));
    }
    SECTION("actions") {
        Spec s;
        s.actions.clear();
        s.transitions.clear();
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error, MessageContains({"action set is empty"}));
    }
    SECTION("observations") {
        Spec s;
        s.observations.clear();
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error, MessageContains({"observation set is empty"}));
    }
}

TEST_CASE("an initial distribution off the simplex is rejected", "[model]") {
    SECTION("sums to 0.9") {
        Spec s;
        s.mu = vector({0.5, 0.25, 0.15});
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"initial distribution sums to 0.9", "not 1"}));
    }
    SECTION("a negative entry, even though the sum is 1") {
        Spec s;
        s.mu = vector({1.25, -0.25, 0.0});
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"initial distribution", "entry 1", "'s1'", "-0.25"}));
    }
    SECTION("a NaN entry") {
        Spec s;
        s.mu[2] = std::numeric_limits<double>::quiet_NaN();
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"initial distribution", "entry 2", "'s2'", "nan"}));
    }
}

TEST_CASE("a horizon of 0 is rejected by the constructor and by set_horizon", "[model]") {
    SECTION("constructor") {
        Spec s;
        s.horizon = 0;
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error, MessageContains({"horizon", "got 0"}));
    }
    SECTION("set_horizon leaves the model unchanged") {
        StrPomdp m = build(Spec{});
        REQUIRE_THROWS_MATCHES(m.set_horizon(0), maxent::model_error, MessageContains({"horizon", "got 0"}));
        REQUIRE(m.horizon() == 4);
        m.set_horizon(7);
        REQUIRE(m.horizon() == 7);
    }
}

TEST_CASE("duplicate labels are rejected naming the label and both indices", "[model]") {
    SECTION("states") {
        Spec s;
        s.states = {"s0", "s1", "s0"};
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"duplicate state label 's0'", "index 2", "first at index 0"}));
    }
    SECTION("actions") {
        Spec s;
        s.actions = {"left", "left"};
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"duplicate action label 'left'", "index 1", "first at index 0"}));
    }
    SECTION("observations") {
        Spec s;
        s.observations = {"dark", "dark"};
        REQUIRE_THROWS_MATCHES(build(s), maxent::model_error,
                               MessageContains({"duplicate observation label 'dark'", "index 1"}));
    }
    SECTION("a label type that is not streamable is named by its index") {
        STATIC_REQUIRE_FALSE(maxent::Streamable<Pos>);
        REQUIRE_THROWS_MATCHES((maxent::LabelSet<Pos>({Pos{0}, Pos{1}, Pos{1}}, "state")), maxent::model_error,
                               MessageContains({"duplicate state label #2", "first at index 1"}));
    }
    SECTION("an ordered (not hashable) label type") {
        STATIC_REQUIRE_FALSE(maxent::Hashable<Ranked>);
        STATIC_REQUIRE(std::totally_ordered<Ranked>);
        REQUIRE_THROWS_MATCHES((maxent::LabelSet<Ranked>({Ranked{3}, Ranked{1}, Ranked{3}}, "action")),
                               maxent::model_error, MessageContains({"duplicate action label #2", "first at index 0"}));
    }
    SECTION("an equality-only label type") {
        REQUIRE_THROWS_MATCHES((maxent::LabelSet<Opaque>({Opaque{5}, Opaque{5}}, "observation")),
                               maxent::model_error,
                               MessageContains({"duplicate observation label #1", "first at index 0"}));
    }
}

TEST_CASE("a label type with only operator== works through a linear index", "[model]") {
    STATIC_REQUIRE_FALSE(maxent::Hashable<Opaque>);
    STATIC_REQUIRE_FALSE(std::totally_ordered<Opaque>);
    STATIC_REQUIRE(maxent::Label<Opaque>);
    const Spec s;
    const FinitePomdp<Opaque, Opaque, Opaque> m({Opaque{30}, Opaque{10}, Opaque{20}}, {Opaque{7}, Opaque{3}},
                                                {Opaque{1}, Opaque{2}}, s.transitions, s.obs, s.mu, s.horizon);
    REQUIRE(m.state_index(Opaque{30}) == 0);
    REQUIRE(m.state_index(Opaque{10}) == 1);
    REQUIRE(m.state_index(Opaque{20}) == 2);
    REQUIRE(m.action_index(Opaque{3}) == 1);
    REQUIRE(m.observation_index(Opaque{2}) == 1);
    REQUIRE(m.state_label(1) == Opaque{10});
    REQUIRE(m.states().contains(Opaque{20}));
    REQUIRE_FALSE(m.states().contains(Opaque{40}));
    REQUIRE_THROWS_MATCHES(m.state_index(Opaque{40}), maxent::unknown_label_error,
                           MessageContains({"unknown state"}));
    STATIC_REQUIRE(maxent::TabularPomdp<FinitePomdp<Opaque, Opaque, Opaque>>);
}

TEST_CASE("an ordered label type works through the ordered index", "[model]") {
    const maxent::LabelSet<Ranked> set({Ranked{30}, Ranked{10}, Ranked{20}}, "state");
    REQUIRE(set.size() == 3);
    REQUIRE(set.index(Ranked{30}) == 0);
    REQUIRE(set.index(Ranked{10}) == 1);
    REQUIRE(set.index(Ranked{20}) == 2);
    REQUIRE(set[2] == Ranked{20});
    REQUIRE_THROWS_AS(set.index(Ranked{0}), maxent::unknown_label_error);
}

TEST_CASE("unknown labels throw unknown_label_error naming the label", "[model]") {
    const StrPomdp m = build(Spec{});
    REQUIRE_THROWS_MATCHES(m.state_index("s9"), maxent::unknown_label_error, MessageContains({"unknown state 's9'"}));
    REQUIRE_THROWS_MATCHES(m.action_index("up"), maxent::unknown_label_error,
                           MessageContains({"unknown action 'up'"}));
    REQUIRE_THROWS_MATCHES(m.observation_index("grey"), maxent::unknown_label_error,
                           MessageContains({"unknown observation 'grey'"}));
}

TEST_CASE("from_functions: a label outside its set names where it came from", "[model]") {
    using M = FinitePomdp<std::string, std::string, std::string>;
    using Row = std::vector<std::pair<std::string, double>>;
    auto obs = [](const std::string&) { return Row{{"beep", 1.0}}; };
    // Successor "c" of ("b", "go") is not a state: the message names it, the source state and the action.
    auto step = [](const std::string& s, const std::string& a) {
        return s == "b" && a == "go" ? Row{{"c", 1.0}} : Row{{s, 1.0}};
    };
    REQUIRE_THROWS_MATCHES(M::from_functions({"a", "b"}, {"stay", "go"}, {"beep"}, step, obs, {{"a", 1.0}}, 3),
                           maxent::unknown_label_error,
                           MessageContains({"unknown state 'c' returned by transition('b', 'go') (not one of the 2 state labels)"}));
    auto stay = [](const std::string& s, const std::string&) { return Row{{s, 1.0}}; };
    auto bad_obs = [](const std::string& s) { return s == "b" ? Row{{"buzz", 1.0}} : Row{{"beep", 1.0}}; };
    REQUIRE_THROWS_MATCHES(M::from_functions({"a", "b"}, {"stay"}, {"beep"}, stay, bad_obs, {{"a", 1.0}}, 3),
                           maxent::unknown_label_error,
                           MessageContains({"unknown observation 'buzz' returned by observation('b')"}));
    REQUIRE_THROWS_MATCHES(M::from_functions({"a", "b"}, {"stay"}, {"beep"}, stay, obs, {{"z", 1.0}}, 3),
                           maxent::unknown_label_error,
                           MessageContains({"unknown state 'z' returned by the initial distribution"}));
    // A label type without operator<<: the states are named by index.
    auto opaque_step = [](const Opaque& s, const Opaque&) {
        return std::vector<std::pair<Opaque, double>>{{Opaque{s.id == 10 ? 99 : s.id}, 1.0}};
    };
    auto opaque_obs = [](const Opaque&) { return std::vector<std::pair<Opaque, double>>{{Opaque{1}, 1.0}}; };
    REQUIRE_THROWS_MATCHES((FinitePomdp<Opaque, Opaque, Opaque>::from_functions(
                               {Opaque{30}, Opaque{10}}, {Opaque{7}, Opaque{3}}, {Opaque{1}}, opaque_step, opaque_obs,
                               {{Opaque{30}, 1.0}}, 2)),
                           maxent::unknown_label_error,
                           MessageContains({"unknown state (a label without operator<<) returned by transition(#1, #0)"}));
}

TEST_CASE("indices out of range throw config_error naming the index", "[model]") {
    const StrPomdp m = build(Spec{});
    using E = maxent::config_error;
    REQUIRE_THROWS_MATCHES(m.transition(3, 0), E, MessageContains({"transition", "state index 3", "[0, 3)"}));
    REQUIRE_THROWS_MATCHES(m.transition(0, 2), E, MessageContains({"transition", "action index 2", "[0, 2)"}));
    REQUIRE_THROWS_MATCHES(m.observation(5, 0), E, MessageContains({"observation", "action index 5"}));
    REQUIRE_THROWS_MATCHES(m.observation(0, 3), E, MessageContains({"observation", "state index 3"}));
    REQUIRE_THROWS_MATCHES(m.initial_observation(4), E, MessageContains({"initial_observation", "state index 4"}));
    REQUIRE_THROWS_MATCHES(m.likelihood(2, 0), E, MessageContains({"likelihood", "action index 2"}));
    REQUIRE_THROWS_MATCHES(m.likelihood(0, 2), E, MessageContains({"likelihood", "observation index 2", "[0, 2)"}));
    REQUIRE_THROWS_MATCHES(m.transition_matrix(2), E, MessageContains({"transition_matrix", "action index 2"}));
    REQUIRE_THROWS_MATCHES(m.observation_matrix(9), E, MessageContains({"observation_matrix", "action index 9"}));
    REQUIRE_THROWS_MATCHES(m.state_label(3), E, MessageContains({"state index 3", "[0, 3)"}));
    REQUIRE_THROWS_MATCHES(m.action_label(2), E, MessageContains({"action index 2", "[0, 2)"}));
    REQUIRE_THROWS_MATCHES(m.observation_label(2), E, MessageContains({"observation index 2", "[0, 2)"}));
}

TEST_CASE("a custom ValidationOptions tolerance is honoured", "[model]") {
    Spec s;
    s.transitions[0](1, 1) = 0.5 + 1e-6;  // row s1 of left sums to 1 + 1e-6
    s.mu[0] = 0.5 - 1e-6;                 // mu sums to 1 - 1e-6
    REQUIRE_THROWS_AS(build(s), maxent::model_error);
    REQUIRE_THROWS_AS(build(s, ValidationOptions{1e-7}), maxent::model_error);
    const StrPomdp m = build(s, ValidationOptions{1e-5});
    REQUIRE(m.tolerance() == 1e-5);
    REQUIRE(m.transition(1, 0)(1) == 0.5 + 1e-6);
    // The tolerance also applies to matrices set later.
    SparseMatrix z = maxent::to_sparse(matrix(3, 2, {0.5, 0.5 + 2e-6, 1.0, 0.0, 0.0, 1.0}));
    REQUIRE_NOTHROW(StrPomdp(m).set_initial_observation(z));
    REQUIRE_THROWS_AS(build(Spec{}).set_initial_observation(z), maxent::model_error);
    SECTION("an invalid tolerance is itself rejected") {
        REQUIRE_THROWS_MATCHES(build(Spec{}, ValidationOptions{-1e-3}), maxent::model_error,
                               MessageContains({"tolerance", "-0.001"}));
        REQUIRE_THROWS_MATCHES(build(Spec{}, ValidationOptions{std::numeric_limits<double>::quiet_NaN()}),
                               maxent::model_error, MessageContains({"tolerance", "nan"}));
    }
}

// =========================================================================================
// Construction paths
// =========================================================================================

namespace {

// The model of the from_functions test written out by hand: states Pos{0..2}, actions
// {stay, go}, observations {"even", "odd"}, Obs depends on the action.
//   stay: s -> s;   go: s -> s+1 mod 3 w.p. 0.75, s w.p. 0.25.
//   Obs after stay: "even" if x even, else "odd";  after go: (0.5, 0.5) except x = 2: (0.25, 0.75).
//   μ = (0.5, 0, 0.5).
const std::vector<Eigen::MatrixXd>& user_transitions() {
    static const std::vector<Eigen::MatrixXd> P{matrix(3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1}),
                                                matrix(3, 3, {0.25, 0.75, 0.0,  //
                                                              0.0, 0.25, 0.75,  //
                                                              0.75, 0.0, 0.25})};
    return P;
}
const std::vector<Eigen::MatrixXd>& user_observations() {
    static const std::vector<Eigen::MatrixXd> Z{matrix(3, 2, {1, 0, 0, 1, 1, 0}),
                                                matrix(3, 2, {0.5, 0.5, 0.5, 0.5, 0.25, 0.75})};
    return Z;
}

using UserPomdp = FinitePomdp<Pos, Act, std::string>;

const std::vector<Pos> user_states{Pos{0}, Pos{1}, Pos{2}};
const std::vector<Act> user_actions{Act::stay, Act::go};
const std::vector<std::string> user_obs{"even", "odd"};

Pos next_of(const Pos& p) { return Pos{(p.x + 1) % 3}; }

UserPomdp user_from_functions() {
    auto transition = [](const Pos& s, const Act& a) {
        std::vector<std::pair<Pos, double>> out;
        if (a == Act::stay) {
            out = {{s, 0.5}, {next_of(s), 0.0}, {s, 0.5}};  // repeated successor; explicit zero
        } else {
            out = {{next_of(s), 0.75}, {s, 0.25}};
        }
        return out;
    };
    auto observation = [](const Act& a, const Pos& s) {
        std::vector<std::pair<std::string, double>> out;
        if (a == Act::stay) {
            if (s.x % 2 == 0)
                out = {{"even", 1.0}, {"odd", 0.0}};  // explicit zero
            else
                out = {{"odd", 1.0}};
        } else if (s.x == 2) {
            out = {{"odd", 0.5}, {"even", 0.25}, {"odd", 0.25}};  // repeated observation
        } else {
            out = {{"even", 0.5}, {"odd", 0.5}};
        }
        return out;
    };
    // μ with a repeated state and an explicit zero.
    const std::vector<std::pair<Pos, double>> mu{{Pos{0}, 0.25}, {Pos{2}, 0.5}, {Pos{0}, 0.25}, {Pos{1}, 0.0}};
    return UserPomdp::from_functions(user_states, user_actions, user_obs, transition, observation, mu, 5);
}

UserPomdp user_dense() {
    return UserPomdp(user_states, user_actions, user_obs, user_transitions(), user_observations(),
                     vector({0.5, 0.0, 0.5}), 5);
}

// Sparse matrices with explicit zeros stored, one of them left uncompressed.
UserPomdp user_sparse() {
    std::vector<SparseMatrix> P, Z;
    for (const auto& d : user_transitions()) P.push_back(maxent::to_sparse(d));
    for (const auto& d : user_observations()) Z.push_back(maxent::to_sparse(d));
    P[0].insert(0, 2) = 0.0;  // stored zero, leaves P[0] uncompressed
    REQUIRE_FALSE(P[0].isCompressed());
    // Z[0] with stored zeros at (0, 1) and (2, 1).
    const std::vector<Eigen::Triplet<double, maxent::sparse_index>> t{
        {0, 0, 1.0}, {0, 1, 0.0}, {1, 1, 1.0}, {2, 0, 1.0}, {2, 1, 0.0}};
    Z[0].setFromTriplets(t.begin(), t.end());
    REQUIRE(Z[0].nonZeros() == 5);  // the explicit zeros are stored
    return UserPomdp(user_states, user_actions, user_obs, std::move(P), std::move(Z), vector({0.5, 0.0, 0.5}), 5);
}

}  // namespace

TEST_CASE("dense, sparse and from_functions constructions agree entry by entry", "[model]") {
    const UserPomdp models[] = {user_dense(), user_sparse(), user_from_functions()};
    const char* names[] = {"dense", "sparse", "from_functions"};
    const auto& P = user_transitions();
    const auto& Z = user_observations();
    for (std::size_t k = 0; k < 3; ++k) {
        INFO("construction path: " << names[k]);
        const UserPomdp& m = models[k];
        REQUIRE(m.num_states() == 3);
        REQUIRE(m.num_actions() == 2);
        REQUIRE(m.num_observations() == 2);
        REQUIRE(m.horizon() == 5);
        REQUIRE(m.observation_depends_on_action());
        REQUIRE(m.state_index(Pos{2}) == 2);
        REQUIRE(m.action_index(Act::go) == 1);
        REQUIRE(m.observation_index("odd") == 1);
        REQUIRE(m.initial_distribution() == vector({0.5, 0.0, 0.5}));
        for (std::size_t a = 0; a < 2; ++a) {
            for (std::size_t s = 0; s < 3; ++s) {
                const auto si = static_cast<Eigen::Index>(s);
                const SparseDistribution t = m.transition(s, a);
                const SparseDistribution o = m.observation(a, s);
                REQUIRE(dense(t, 3) == Eigen::VectorXd(P[a].row(si).transpose()));
                REQUIRE(dense(o, 2) == Eigen::VectorXd(Z[a].row(si).transpose()));
                REQUIRE(only_positive_sorted(t));
                REQUIRE(only_positive_sorted(o));
                for (std::size_t n = 0; n < 3; ++n)
                    REQUIRE(m.transition_probability(s, a, n) == P[a](si, static_cast<Eigen::Index>(n)));
                for (std::size_t z = 0; z < 2; ++z)
                    REQUIRE(m.observation_probability(a, s, z) == Z[a](si, static_cast<Eigen::Index>(z)));
            }
            for (std::size_t z = 0; z < 2; ++z) {
                const SparseDistribution l = m.likelihood(a, z);
                REQUIRE(dense(l, 3) == Eigen::VectorXd(Z[a].col(static_cast<Eigen::Index>(z))));
                REQUIRE(only_positive_sorted(l));
            }
            // The stored matrices are the hand-written ones with exactly their positive entries.
            REQUIRE(Eigen::MatrixXd(m.transition_matrix(a)) == P[a]);
            REQUIRE(Eigen::MatrixXd(m.observation_matrix(a)) == Z[a]);
            REQUIRE(m.transition_matrix(a).nonZeros() == (P[a].array() > 0.0).count());
            REQUIRE(m.observation_matrix(a).nonZeros() == (Z[a].array() > 0.0).count());
        }
    }
}

TEST_CASE("explicit zeros are dropped from the sparse views", "[model]") {
    const UserPomdp m = user_sparse();
    // stay from s0: the input stored a zero at (0, 2); the view lists only s0.
    const SparseDistribution t = m.transition(0, 0);
    REQUIRE(t.size() == 1);
    REQUIRE(t.index[0] == 0);
    REQUIRE(t.probability[0] == 1.0);
    // Obs after stay in s2: the input stored a zero at column 1: one entry.
    const SparseDistribution o = m.observation(0, 2);
    REQUIRE(o.size() == 1);
    REQUIRE(o.index[0] == 0);
    REQUIRE(o.probability[0] == 1.0);
    // Obs after stay in s0: a stored zero at column 1.
    REQUIRE(m.observation(0, 0).size() == 1);
    // likelihood of "odd" after stay: only s1.
    const SparseDistribution l = m.likelihood(0, 1);
    REQUIRE(l.size() == 1);
    REQUIRE(l.index[0] == 1);
    // from_functions: the explicit zero successor of stay and the zero observation are gone.
    const UserPomdp f = user_from_functions();
    for (std::size_t s = 0; s < 3; ++s) REQUIRE(f.transition(s, 0).size() == 1);
    REQUIRE(f.observation(0, 0).size() == 1);
    // A dense matrix's zeros never enter the sparse form.
    REQUIRE(maxent::to_sparse(matrix(2, 2, {0.0, 1.0, 0.0, 0.0})).nonZeros() == 1);
}

TEST_CASE("repeated successors and repeated observations in from_functions add up", "[model]") {
    const UserPomdp m = user_from_functions();
    for (std::size_t s = 0; s < 3; ++s) {
        const SparseDistribution t = m.transition(s, 0);  // stay: 0.5 + 0.5
        REQUIRE(t.size() == 1);
        REQUIRE(static_cast<std::size_t>(t.index[0]) == s);
        REQUIRE(t.probability[0] == 1.0);
    }
    const SparseDistribution o = m.observation(1, 2);  // go, s2: "odd" 0.5 + 0.25
    REQUIRE(o.size() == 2);
    REQUIRE(o(0) == 0.25);
    REQUIRE(o(1) == 0.75);
    REQUIRE(m.initial_distribution()[0] == 0.5);  // 0.25 + 0.25
}

TEST_CASE("from_functions with an action-independent observation function", "[model]") {
    auto transition = [](const Pos& s, const Act&) { return std::vector<std::pair<Pos, double>>{{next_of(s), 1.0}}; };
    auto observation = [](const Pos& s) {
        return std::vector<std::pair<std::string, double>>{{s.x % 2 == 0 ? "even" : "odd", 1.0}};
    };
    const UserPomdp m = UserPomdp::from_functions(user_states, user_actions, user_obs, transition, observation,
                                                  {{Pos{1}, 1.0}}, 2);
    REQUIRE_FALSE(m.observation_depends_on_action());
    for (std::size_t a = 0; a < 2; ++a) {
        REQUIRE(Eigen::MatrixXd(m.observation_matrix(a)) == user_observations()[0]);
        for (std::size_t s = 0; s < 3; ++s) REQUIRE(m.transition(s, a)((s + 1) % 3) == 1.0);
    }
    REQUIRE(m.initial_distribution() == vector({0.0, 1.0, 0.0}));
}

TEST_CASE("from_functions rejects unknown labels and invalid rows", "[model]") {
    auto ok_obs = [](const Pos&) { return std::vector<std::pair<std::string, double>>{{"even", 1.0}}; };
    SECTION("a successor that is not a state") {
        auto transition = [](const Pos&, const Act&) { return std::vector<std::pair<Pos, double>>{{Pos{7}, 1.0}}; };
        REQUIRE_THROWS_AS(UserPomdp::from_functions(user_states, user_actions, user_obs, transition, ok_obs,
                                                    {{Pos{0}, 1.0}}, 2),
                          maxent::unknown_label_error);
    }
    SECTION("an observation that is not an observation") {
        auto transition = [](const Pos& s, const Act&) { return std::vector<std::pair<Pos, double>>{{s, 1.0}}; };
        auto bad_obs = [](const Pos&) { return std::vector<std::pair<std::string, double>>{{"blue", 1.0}}; };
        REQUIRE_THROWS_MATCHES(UserPomdp::from_functions(user_states, user_actions, user_obs, transition, bad_obs,
                                                         {{Pos{0}, 1.0}}, 2),
                               maxent::unknown_label_error, MessageContains({"unknown observation 'blue'"}));
    }
    SECTION("a successor row summing to 0.75") {
        auto transition = [](const Pos& s, const Act&) { return std::vector<std::pair<Pos, double>>{{s, 0.75}}; };
        REQUIRE_THROWS_MATCHES(UserPomdp::from_functions(user_states, user_actions, user_obs, transition, ok_obs,
                                                         {{Pos{0}, 1.0}}, 2),
                               maxent::model_error, MessageContains({"transition matrix", "row 0", "sums to 0.75"}));
    }
    SECTION("a duplicate state") {
        auto transition = [](const Pos& s, const Act&) { return std::vector<std::pair<Pos, double>>{{s, 1.0}}; };
        REQUIRE_THROWS_MATCHES(UserPomdp::from_functions({Pos{0}, Pos{0}}, user_actions, user_obs, transition, ok_obs,
                                                         {{Pos{0}, 1.0}}, 2),
                               maxent::model_error, MessageContains({"duplicate state label #1"}));
    }
}

TEST_CASE("likelihood(a, o) is exactly the column o of the observation matrix of a", "[model]") {
    // Shared observations (string model) and action-dependent ones (user model).
    const StrPomdp shared = build(Spec{});
    const UserPomdp dep = user_dense();
    auto check = [](const auto& m) {
        for (std::size_t a = 0; a < m.num_actions(); ++a) {
            const Eigen::MatrixXd Z(m.observation_matrix(a));
            for (std::size_t o = 0; o < m.num_observations(); ++o) {
                const SparseDistribution l = m.likelihood(a, o);
                REQUIRE(dense(l, m.num_states()) == Eigen::VectorXd(Z.col(static_cast<Eigen::Index>(o))));
                REQUIRE(only_positive_sorted(l));
                for (std::size_t s = 0; s < m.num_states(); ++s) REQUIRE(l(s) == m.observation(a, s)(o));
            }
        }
    };
    check(shared);
    check(dep);
    // Hand-checked: "light" in the string model has likelihood 0.5 in s1 and 1 in s2.
    const SparseDistribution l = shared.likelihood(1, 1);
    REQUIRE(l.size() == 2);
    REQUIRE(l.index[0] == 1);
    REQUIRE(l.probability[0] == 0.5);
    REQUIRE(l.index[1] == 2);
    REQUIRE(l.probability[1] == 1.0);
}

TEST_CASE("initial_observation defaults and set_initial_observation", "[model]") {
    SECTION("action-independent: the shared observation matrix") {
        const StrPomdp m = build(Spec{});
        REQUIRE_FALSE(m.observation_depends_on_action());
        const Eigen::MatrixXd Z = Spec{}.obs[0];
        for (std::size_t s = 0; s < 3; ++s)
            REQUIRE(dense(m.initial_observation(s), 2) ==
                    Eigen::VectorXd(Z.row(static_cast<Eigen::Index>(s)).transpose()));
        REQUIRE(Eigen::MatrixXd(m.initial_observation_matrix()) == Z);
    }
    SECTION("action-dependent: uniform over observations") {
        const UserPomdp m = user_dense();
        REQUIRE(m.observation_depends_on_action());
        for (std::size_t s = 0; s < 3; ++s) {
            const SparseDistribution o = m.initial_observation(s);
            REQUIRE(o.size() == 2);
            REQUIRE(o(0) == 0.5);
            REQUIRE(o(1) == 0.5);
        }
    }
    SECTION("set_initial_observation replaces it after validation") {
        UserPomdp m = user_dense();
        const Eigen::MatrixXd Z0 = matrix(3, 2, {0.0, 1.0, 0.25, 0.75, 1.0, 0.0});
        m.set_initial_observation(maxent::to_sparse(Z0));
        REQUIRE(Eigen::MatrixXd(m.initial_observation_matrix()) == Z0);
        REQUIRE(m.initial_observation(0).size() == 1);
        REQUIRE(m.initial_observation(0)(1) == 1.0);
        REQUIRE(m.initial_observation(1)(0) == 0.25);
        // Stored zeros are dropped here too.
        SparseMatrix with_zero = maxent::to_sparse(Z0);
        with_zero.insert(0, 0) = 0.0;
        m.set_initial_observation(with_zero);
        REQUIRE(m.initial_observation(0).size() == 1);
        // Invalid matrices are rejected and leave the previous one in place.
        REQUIRE_THROWS_MATCHES(m.set_initial_observation(maxent::to_sparse(matrix(3, 2, {0.5, 0, 0, 1, 1, 0}))),
                               maxent::model_error,
                               MessageContains({"initial observation matrix", "row 0", "sums to 0.5"}));
        REQUIRE_THROWS_MATCHES(m.set_initial_observation(maxent::to_sparse(matrix(3, 2, {1, 0, 1.5, -0.5, 1, 0}))),
                               maxent::model_error, MessageContains({"row 1", "column 1", "'odd'", "-0.5"}));
        REQUIRE_THROWS_MATCHES(m.set_initial_observation(maxent::to_sparse(Eigen::MatrixXd::Identity(2, 2))),
                               maxent::model_error, MessageContains({"is 2 x 2", "expected 3 x 2"}));
        REQUIRE(Eigen::MatrixXd(m.initial_observation_matrix()) == Z0);
    }
}

TEST_CASE("FinitePomdp satisfies the model concepts for every label type used here", "[model]") {
    STATIC_REQUIRE(maxent::TabularPomdp<StrPomdp>);
    STATIC_REQUIRE(maxent::TabularPomdp<UserPomdp>);
    STATIC_REQUIRE(maxent::require_tabular_pomdp<UserPomdp>());
    // Copies own their matrices: views of a copy stay valid after the original is gone.
    std::optional<StrPomdp> original(build(Spec{}));
    const StrPomdp copy = *original;
    original.reset();
    REQUIRE(dense(copy.transition(2, 0), 3) == vector({0.0, 0.25, 0.75}));
    REQUIRE(dense(copy.likelihood(1, 1), 3) == vector({0.0, 0.5, 1.0}));
    REQUIRE(dense(copy.initial_observation(1), 2) == vector({0.5, 0.5}));
}

}  // namespace test_finite_pomdp
