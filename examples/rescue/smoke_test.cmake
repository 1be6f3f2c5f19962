# examples/rescue/smoke_test.cmake — end-to-end test of maxent-rescue (cmake -P): the
# rescue-small experiment must exit 0 and write its set (runs.csv with 4 curves x 2 seeds x 20
# iterations, summary.csv, config.json, curves.gp, heatmap.csv with 5 panels of 40 x 40,
# heatmap.gp); an unknown flag, an unknown experiment and an empty --out exit 2.
# Variables: EXE (the maxent-rescue binary), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT OUT)
  message(FATAL_ERROR "smoke_test.cmake needs -DEXE=... -DOUT=...")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/../test_checks.cmake")  # check_heatmap_scale
file(REMOVE_RECURSE "${OUT}")

execute_process(COMMAND "${EXE}" --out "${OUT}" --threads 2 rescue-small
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "final policies' true-state entropy")
  message(FATAL_ERROR "maxent-rescue failed (${rc}):\n${out}\n${err}")
endif()
set(dir "${OUT}/rescue-small")
require_files("${dir}" runs.csv summary.csv config.json curves.gp heatmap.csv heatmap.gp)
check_line_counts("${dir}" "runs.csv|161" "summary.csv|81" "heatmap.csv|8001")
check_heatmap_scale("${dir}/heatmap.gp")  # every panel on one colour scale

foreach(args "--bogus" "no-such-experiment" "--out;")
  execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "maxent-rescue ${args}: exit ${rc}, expected 2:\n${out}\n${err}")
  endif()
endforeach()
