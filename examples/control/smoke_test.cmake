# examples/control/smoke_test.cmake — end-to-end test of maxent-control (cmake -P): the two
# small experiments must exit 0 and write their set: runs.csv (4 curves x 2 seeds x 10
# iterations), summary.csv, config.json, curves.gp, final.csv (5 policies x 2 seeds, every
# number finite), heatmap.csv (5 panels: 36 x 24 phase cells for the pendulum, 40 x 40 for the
# robot), heatmap.gp; the printout compares each curve with the uniform policy. Bad flags exit 2.
# Variables: EXE (the maxent-control binary), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT OUT)
  message(FATAL_ERROR "smoke_test.cmake needs -DEXE=... -DOUT=...")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/../test_checks.cmake")  # check_line_counts, require_files
file(REMOVE_RECURSE "${OUT}")

foreach(case "pendulum-small|4321" "rescue-velocity-small|8001")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 heat_lines)
  execute_process(COMMAND "${EXE}" --out "${OUT}" --threads 2 --no-plot ${name}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "reg-mbe +bins [0-9.]+ \\[[-0-9.]+, [-0-9.]+\\].*vs uniform: bins [-+][0-9.]+")
    message(FATAL_ERROR "maxent-control ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  set(dir "${OUT}/${name}")
  check_line_counts("${dir}" "runs.csv|81" "summary.csv|41" "final.csv|11" "heatmap.csv|${heat_lines}")
  require_files("${dir}" config.json curves.gp heatmap.gp)
  # Every policy's row: a label, a seed, then four finite numbers (no nan, no inf).
  file(STRINGS "${dir}/final.csv" rows)
  list(REMOVE_AT rows 0)
  foreach(row IN LISTS rows)
    if(NOT row MATCHES "^(uniform|mse|mse-knn|moe-knn|mbe|reg-mbe),[01],-?[0-9.e+-]+,-?[0-9.e+-]+,-?[0-9.e+-]+,[0-9.e+-]+$")
      message(FATAL_ERROR "${name}: final.csv row '${row}' is not a policy, a seed and four finite numbers")
    endif()
  endforeach()
endforeach()

execute_process(COMMAND "${EXE}" --seeds 0 pendulum-small RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--seeds")
  message(FATAL_ERROR "maxent-control --seeds 0: exit ${rc}, expected 2 naming --seeds:\n${out}\n${err}")
endif()
execute_process(COMMAND "${EXE}" pendulum-large RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown experiment 'pendulum-large'")
  message(FATAL_ERROR "maxent-control pendulum-large: exit ${rc}, expected 2 naming the experiment:\n${out}\n${err}")
endif()
