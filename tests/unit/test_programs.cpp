// tests/unit/test_programs.cpp — the tests of the programs' runtime (runtime, the
// library maxent_runtime): the paper runner, class B in the runner, shards and merge, heatmaps,
// hostile input (reliability), in one translation unit.
#include "programs/paper_runner.cpp"
#include "programs/shards.cpp"
#include "programs/heatmaps.cpp"
#include "programs/class_b.cpp"
#include "programs/reliability.cpp"
