// tests/compile_fail/finite_pomdp_state_without_equality.cpp — a FinitePomdp whose state is
// a struct without operator== must be rejected with one maxent message saying what to add
// (model/labels.hpp require_label), not with the standard library's concept trace.
// Run by cmake/CompileFailTest.cmake: with -DMAXENT_COMPILE_FAIL_CONTROL the struct has a
// defaulted operator== and the file must compile; without it the compilation must fail with:
// expect-error: maxent: a label type (FinitePomdp's State, Action or Observation
// expect-error: Add `bool operator==(const T&) const = default;` to it
// expect-error: maxent::FinitePomdp<
// expect-errors: 1
#include <string>
#include <utility>
#include <vector>

#include "maxent/model/finite_pomdp.hpp"

namespace {

struct Cell {
    int x = 0, y = 0;
#ifdef MAXENT_COMPILE_FAIL_CONTROL
    bool operator==(const Cell&) const = default;
#endif
};
enum class Move { left, right };
using Model = maxent::FinitePomdp<Cell, Move, std::string>;

}  // namespace

int main() {
    using Successors = std::vector<std::pair<Cell, double>>;
    using Observations = std::vector<std::pair<std::string, double>>;
    const Model m = Model::from_functions(
        {Cell{0, 0}, Cell{1, 0}}, {Move::left, Move::right}, {"here"},
        [](const Cell& c, Move) { return Successors{{c, 1.0}}; }, [](const Cell&) { return Observations{{"here", 1.0}}; },
        {{Cell{0, 0}, 1.0}}, 2);
    return static_cast<int>(m.num_states()) - 2;
}
