# cmake/TestSchedule.cmake — read by CTest (a TEST_INCLUDE_FILES of tests/) once every test is
# defined: the longest tests get a COST, their wall time in seconds in scripts/test.sh's runs
# on 2 cores, so that `ctest -j` starts them first and a run does not end on one of them with
# the other cores idle. A build directory that has run its tests schedules by its own
# measurements (Testing/Temporary/CTestCostData.txt) instead. Names absent from a
# configuration (an option off, a test excluded) are ignored.

function(maxent_test_cost cost)
  set_tests_properties(${ARGN} PROPERTIES COST ${cost})
endfunction()
