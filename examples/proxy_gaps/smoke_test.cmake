# examples/proxy_gaps/smoke_test.cmake — end-to-end test of maxent-proxy-gaps (cmake -P).
# A small run (20 trajectories, 200 believed sequences each) must exit 0, i.e. every sampled
# true-state entropy lies in its bounds, and write its CSV files; then the output checks it
# shares with the other programs: --out "" and --out FILE are rejected (exit 2)
# before any work, and a rerun with --no-plot leaves no plot of the earlier run.
# Variables: EXE (the maxent-proxy-gaps binary), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT OUT)
  message(FATAL_ERROR "smoke_test.cmake needs -DEXE=... -DOUT=...")
endif()
file(REMOVE_RECURSE "${OUT}")

execute_process(COMMAND "${EXE}" --samples 20 --draws 200 --out "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "true-state entropy inside its bounds: 20 of 20")
  message(FATAL_ERROR "maxent-proxy-gaps failed (${rc}):\n${out}\n${err}")
endif()
set(dir "${OUT}/fig1")
foreach(f bounds.csv samples.csv curves.gp)
  if(NOT EXISTS "${dir}/${f}")
    message(FATAL_ERROR "missing ${dir}/${f}")
  endif()
endforeach()
file(READ "${dir}/curves.gp" script)
if(NOT script MATCHES "\"samples.csv\" every ::1 using 3:2:5:6 with yerrorbars")
  message(FATAL_ERROR "curves.gp does not draw the samples:\n${script}")
endif()
file(STRINGS "${dir}/samples.csv" samples)
list(LENGTH samples n)
if(NOT n EQUAL 21)
  message(FATAL_ERROR "samples.csv has ${n} lines, expected 21")
endif()

# The same --out rules as maxent-paper and maxent-explore: exit 2, a message, nothing written.
file(WRITE "${OUT}/a-file" "x")
foreach(case "|is empty" "${OUT}/a-file|Not a directory")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 value)
  list(GET case 1 expected)
  execute_process(COMMAND "${EXE}" --samples 2 --draws 2 --no-plot --out "${value}"
                  WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--out: .*${expected}" OR NOT out STREQUAL "")
    message(FATAL_ERROR "--out '${value}': exit ${rc}, expected 2 and '${expected}':\n${out}\n${err}")
  endif()
endforeach()
if(EXISTS "${OUT}/fig1/fig1" OR EXISTS "${OUT}/a-file/fig1")
  message(FATAL_ERROR "a rejected --out wrote files")
endif()

# A rerun with --no-plot replaces the set: no curves.png of the earlier run.
file(WRITE "${dir}/curves.png" "an earlier run's plot")
execute_process(COMMAND "${EXE}" --samples 3 --draws 10 --no-plot --out "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR EXISTS "${dir}/curves.png")
  message(FATAL_ERROR "rerun with --no-plot: exit ${rc}, or curves.png left:\n${out}\n${err}")
endif()
message(STATUS "maxent-proxy-gaps smoke test passed")
