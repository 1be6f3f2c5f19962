# cmake/TestSchedule.cmake — read by CTest (a TEST_INCLUDE_FILES of tests/) once every test is
# defined: the longest tests get a COST, about their wall time in seconds on 2 cores (the
# programs' tests as measured, the others estimated), so that `ctest -j` starts them first and
# a run does not end on one of them with the other cores idle. A build directory that has run its tests schedules by its own
# measurements (Testing/Temporary/CTestCostData.txt) instead. Names absent from a
# configuration (an option off, a test excluded) are ignored.

function(maxent_test_cost cost)
  set_tests_properties(${ARGN} PROPERTIES COST ${cost})
endfunction()

# The Python module's tests: one pytest process (bit-identity runs of maxent-paper included).
maxent_test_cost(120 python.pytest)
maxent_test_cost(30 python.pip_install)  # a venv and pip, offline
# The programs end to end (examples/CMakeLists.txt).
maxent_test_cost(40 shards.merge)
maxent_test_cost(30 journey.rerun_resume_merge)  # every study kind twice, stopped and resumed, merged
maxent_test_cost(12 explore.smoke shards.slurm)
maxent_test_cost(6 paper.nosim paper.runner.smoke)
# The longest unit test cases (Catch2, one CTest test each).
maxent_test_cost(20
  "a known 4-state ring is recovered: 4-step observation distributions within a stated TV"
  "EM results are identical for 1, 2 and 3 threads"
  "leaf bound: an upper bound on the leaves, exact where every branch is taken"
  "a scaled-down fig2a end to end: files, columns, bounds, thread independence")
# The longest under the sanitizers (Debug + ASan/UBSan, wall seconds measured on the loaded
# 2-core machine); short in Release, where starting them first costs nothing.
maxent_test_cost(60
  "EM never decreases the log-likelihood (alpha = 0) nor the penalised one (alpha > 0)"
  "exact gradient matches finite differences of the exact objective")
maxent_test_cost(35
  "exact objective agrees with Monte Carlo rollouts of the Sampler"
  "gradient estimators are unbiased for the exact gradient, and baselines reduce variance"
  "the learned FinitePomdp is the agent's BayesFilter while the world is the true model"
  "rescue world: a trained MSE policy over particle features beats the uniform policy"
  "continuous room, histogram filter: MSE and Reg-MBE beat the uniform policy over the bins"
  "the loop without a model: deterministic, refits on schedule, learns a belief model"
  "training MSE with the BA policy learns to cover a 3x3 room")
maxent_test_cost(12
  "scaled forward-backward: no underflow on long sequences"
  "20 x 20 room: the row path on the belief's support gives the dense path's bits"
  "estimator quality: paired batches and thread-count independence")
