// examples/rescue/range.hpp — maxent-rescue's range-sensor experiments (range.cpp):
// rescue-range and rescue-range-small, the rescue robot reading distances to walls in metres.
#pragma once

namespace maxent::rescue_range {

/// Whether the command line names a range-sensor experiment.
[[nodiscard]] bool is_range_experiment(int argc, char** argv);

/// Runs it (maxent-rescue's flags); the process's exit status.
int range_main(int argc, char** argv);

}  // namespace maxent::rescue_range
