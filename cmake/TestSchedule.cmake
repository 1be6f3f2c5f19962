# cmake/TestSchedule.cmake — read by CTest (a TEST_INCLUDE_FILES of tests/) once every test is
# defined: the longest tests get a COST, about their wall time in seconds on 2 cores (the
# programs' tests as measured, the others estimated), so that `ctest -j` starts them first and
# a run does not end on one of them with the other cores idle. A build directory that has run its tests schedules by its own
# measurements (Testing/Temporary/CTestCostData.txt) instead. Names absent from a
# configuration (an option off, a test excluded) are ignored.

function(maxent_test_cost cost)
  set_tests_properties(${ARGN} PROPERTIES COST ${cost})
endfunction()

# Measured (wall seconds of the fresh-clone CI, 2 cores shared by scripts/test.sh's two runs):
# the Release run's longest tests and compile-only checks, then the sanitizer run's.
maxent_test_cost(33 journey.rerun_resume_merge)  # every study kind twice, stopped and resumed, merged
maxent_test_cost(30 python.pytest)  # one pytest process (bit-identity runs of maxent-paper included)
maxent_test_cost(20 paper.nosim shards.slurm-cluster)
maxent_test_cost(14 programs.reliability)
maxent_test_cost(12 explore.smoke shards.slurm)
maxent_test_cost(10 python.pip_install)  # a venv and pip, offline
maxent_test_cost(8 shards.merge)
maxent_test_cost(6 paper.runner.smoke)
maxent_test_cost(70 journey.compile_fail_messages)  # Release run (GCC): every compile-fail file, twice
maxent_test_cost(40 bench.compiles)                 # sanitizer run (Clang): the benchmarks, syntax only
# The longest test cases of the sanitizer run (Catch2, one CTest test each; its
# statistics-at-scale cases run in the Release run, where each takes under 2 s).
maxent_test_cost(17
  "select_cloned_hmm: the allocation by frequency wins where the even one cannot place the states")
maxent_test_cost(10
  "the loop without a model: deterministic, refits on schedule, learns a belief model")
maxent_test_cost(6
  "the spectral start beats a random start before EM and EM from it recovers the planted emissions"
  "scaled forward-backward: no underflow on long sequences"
  "sampled action frequencies match probabilities() - BeliefMixtureCase"
  "20 x 20 room: the row path on the belief's support gives the dense path's bits")
