// tests/unit/test_programs.cpp — the tests of the programs' shared runtime (examples/common:
// the paper runner, shards and merge, heatmaps) in ONE translation unit. Each of the three
// files instantiates the runner's trainers for every component combination; compiled
// separately they paid for those instantiations three times (about 100 s of CPU per build
// of the suite, against about 50 s together).
#include "programs/paper_runner.cpp"
#include "programs/shards.cpp"
#include "programs/heatmaps.cpp"
