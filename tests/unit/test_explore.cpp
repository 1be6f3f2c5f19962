// tests/unit/test_explore.cpp — maxent-explore's reference values (examples/explore/
// explore.hpp): the even-split bound and the optimum of a policy that sees the true state,
// against hand computations on tiger and on a three-room chain; and the default horizon.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "../../examples/explore/explore.hpp"

#ifndef MAXENT_CLASSIC_POMDP_DIR
#error "tests/CMakeLists.txt must define MAXENT_CLASSIC_POMDP_DIR"
#endif

namespace mx = maxent::explore;

namespace {
/// Rooms "0", "1", "2" in a row; "stay" stays, "next" moves one room on (the last stays).
/// Starts in room "0"; horizon T.
mx::Model chain(std::size_t horizon) {
    using Row = std::vector<std::pair<std::string, double>>;
    return mx::Model::from_functions(
        {"0", "1", "2"}, {"stay", "next"}, {"o"},
        [](const std::string& s, const std::string& a) {
            if (a == "stay" || s == "2") return Row{{s, 1.0}};
            return Row{{s == "0" ? "1" : "2", 1.0}};
        },
        [](const std::string&) { return Row{{"o", 1.0}}; }, {{"0", 1.0}}, horizon);
}
}  // namespace

TEST_CASE("the even split of T counted states over S", "[explore]") {
    CHECK(mx::even_split_bound(2, 10) == Approx(std::log(2.0)).epsilon(1e-15));
    CHECK(mx::even_split_bound(11, 11) == Approx(std::log(11.0)).epsilon(1e-15));
    CHECK(mx::even_split_bound(60, 10) == Approx(std::log(10.0)).epsilon(1e-15));  // T < S: log T
    // S = 3, T = 4: counts 2, 1, 1.
    CHECK(mx::even_split_bound(3, 4) == Approx(-(0.5 * std::log(0.5) + 2 * 0.25 * std::log(0.25))).epsilon(1e-14));
}

TEST_CASE("the best a policy that sees the state can do, by hand", "[explore]") {
    using maxent::StateCounting;
    // Chain, T = 3, paper counting (s_1 .. s_3, two actions): next, next visits all three.
    CHECK(*mx::state_observed_optimum(chain(3), StateCounting::paper) == Approx(std::log(3.0)).epsilon(1e-14));
    // T = 4: one room twice, the best count vector (2, 1, 1).
    CHECK(*mx::state_observed_optimum(chain(4), StateCounting::paper) ==
          Approx(mx::even_split_bound(3, 4)).epsilon(1e-14));
    // Authors' counting, T = 2: s_2, s_3 after two actions; next, next gives rooms 1 and 2.
    CHECK(*mx::state_observed_optimum(chain(2), StateCounting::authors) == Approx(std::log(2.0)).epsilon(1e-14));
    // T = 2 under the paper's counting: s_1 = 0 and one action, so (0, 1): log 2 as well.
    CHECK(*mx::state_observed_optimum(chain(2), StateCounting::paper) == Approx(std::log(2.0)).epsilon(1e-14));
    // A node budget too small for the enumeration: no value rather than a wrong one.
    CHECK_FALSE(mx::state_observed_optimum(chain(8), StateCounting::paper, 3).has_value());

    // Tiger, T = 2 (paper counting: s_1 uniform, one action): listening keeps the state
    // (entropy 0); opening a door resets it uniformly, so s_2 differs from s_1 with
    // probability 1/2: the best is 0.5 log 2.
    const mx::LoadedModel tiger =
        mx::load_model(std::string(MAXENT_CLASSIC_POMDP_DIR) + "/tiger.95.POMDP", 2, maxent::EmptyRows::error);
    CHECK(*mx::state_observed_optimum(tiger.file.model, StateCounting::paper) ==
          Approx(0.5 * std::log(2.0)).epsilon(1e-12));
}

TEST_CASE("maxent-explore's default horizon is max(S, 10)", "[explore]") {
    CHECK(mx::default_horizon(2) == 10);
    CHECK(mx::default_horizon(60) == 60);
    const mx::LoadedModel tiger =
        mx::load_model(std::string(MAXENT_CLASSIC_POMDP_DIR) + "/tiger.95.POMDP", 0, maxent::EmptyRows::error);
    CHECK(tiger.file.model.horizon() == 10);
    const mx::LoadedModel hallway =
        mx::load_model(std::string(MAXENT_CLASSIC_POMDP_DIR) + "/hallway.POMDP", 0, maxent::EmptyRows::error);
    CHECK(hallway.file.model.horizon() == 60);
}
