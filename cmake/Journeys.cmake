# cmake/Journeys.cmake — the `journeys` test group: tests that follow a user's whole path
# from the user's own commands (scripts/*.sh, the programs, cmake on a consumer project,
# Python), not unit calls. The convention, for any CMakeLists.txt of the project: such a
# test is named journey.<something> and has the label `journeys`, so that
#     ctest --test-dir build-release -L journeys
# runs them all. maxent_add_journey() does both; a test added otherwise must do both itself:
# test_names.journeys (cmake/CheckJourneyLabels.cmake) fails when a journey.* test lacks the
# label or a labelled test lacks the name.
#
#   maxent_add_journey(journey.<something> COMMAND ... [WORKING_DIRECTORY ...])
#   (the arguments after the name are add_test's; properties are set as for any test;
#   defined, like every test, only with MAXENT_BUILD_TESTS)

function(maxent_add_journey name)
  if(NOT name MATCHES "^journey\\.[A-Za-z0-9]")
    message(FATAL_ERROR "maxent_add_journey: '${name}' is not named journey.<something>")
  endif()
  add_test(NAME ${name} ${ARGN})
  set_property(TEST ${name} APPEND PROPERTY LABELS journeys)
endfunction()
