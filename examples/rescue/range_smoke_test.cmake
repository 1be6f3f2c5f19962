# examples/rescue/range_smoke_test.cmake — end-to-end test of maxent-rescue's range-sensor
# experiment (cmake -P): rescue-range-small must exit 0 and write its set (runs.csv with 6
# curves x 2 seeds x 20 iterations, summary.csv, config.json, curves.gp, final.csv with 7
# policies x 2 seeds, heatmap.csv with 7 panels of 40 x 40, heatmap.gp); a bad --seeds exits 2.
# Variables: EXE (the maxent-rescue binary), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT OUT)
  message(FATAL_ERROR "range_smoke_test.cmake needs -DEXE=... -DOUT=...")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/../test_checks.cmake")  # check_heatmap_scale
file(REMOVE_RECURSE "${OUT}")

execute_process(COMMAND "${EXE}" --out "${OUT}" --threads 2 --no-plot rescue-range-small
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "MOE of the raw readings by kNN")
  message(FATAL_ERROR "maxent-rescue rescue-range-small failed (${rc}):\n${out}\n${err}")
endif()
set(dir "${OUT}/rescue-range-small")
check_line_counts("${dir}" "runs.csv|241" "summary.csv|121" "final.csv|15" "heatmap.csv|11201")
require_files("${dir}" config.json curves.gp heatmap.gp)
check_heatmap_scale("${dir}/heatmap.gp")  # every panel on one colour scale

execute_process(COMMAND "${EXE}" --seeds 0 rescue-range-small RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--seeds")
  message(FATAL_ERROR "maxent-rescue --seeds 0 rescue-range-small: exit ${rc}, expected 2 naming --seeds:\n${out}\n${err}")
endif()
