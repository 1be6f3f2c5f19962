# examples/paper/smoke_test.cmake — end-to-end test of maxent-paper (cmake -P).
# Runs a tiny fig2a (3 seeds, 20 iterations) and checks the files, their headers and row
# counts (heatmaps included; none with --heatmap-episodes 0); then checks that bad flags exit with status 2 and name the flag and value; then the
# reliability of the outputs: --out checked before any work, a rerun replacing the
# set as a whole, a failing gnuplot, SIGTERM keeping the finished runs.
# Variables: EXE (the maxent-paper binary), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT OUT)
  message(FATAL_ERROR "smoke_test.cmake needs -DEXE=... -DOUT=...")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/../test_checks.cmake")
file(REMOVE_RECURSE "${OUT}")

execute_process(COMMAND "${EXE}" fig2a --seeds 0-2 --iterations 20 --threads 2 --out "${OUT}" --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "maxent-paper failed (${rc}):\n${out}\n${err}")
endif()

set(dir "${OUT}/fig2a")
require_files("${dir}" config.json runs.csv summary.csv uniform.csv curves.gp heatmap.csv heatmap.gp)

# 4 objectives x 3 seeds x 20 iterations + header
check_csv("${dir}/runs.csv" "objective,seed,iteration,true_entropy,feedback,belief_entropy_sum" 241)
check_csv("${dir}/summary.csv" "objective,iteration,mean,ci_low,ci_high,n" 81 "^mse,0,[^,]+,[^,]+,[^,]+,3$")

file(READ "${dir}/config.json" config)
require_matches("${config}" "config.json" "\"seeds\": \\[0, 1, 2\\]" "\"iterations\": 20" "\"maxent_version\": \"[0-9]"
                "\"alpha\": 0.3")

# Heatmaps (100 episodes per run by default): 'uniform' then the 4 curves, 25 cells each.
file(STRINGS "${dir}/heatmap.csv" heat)
list(LENGTH heat n)
list(GET heat 0 header)
list(GET heat 1 first)
if(NOT header STREQUAL "objective,x,y,fraction" OR NOT n EQUAL 126 OR NOT first MATCHES "^uniform,0,0,0\\.[0-9]+")
  message(FATAL_ERROR "heatmap.csv: header '${header}', ${n} lines (expected 126), first row '${first}'")
endif()
check_heatmap_scale("${dir}/heatmap.gp")  # the 5 panels on one colour scale
if(NOT config MATCHES "\"heatmap\": {\"episodes_per_run\": 100")
  message(FATAL_ERROR "config.json has no heatmap section:\n${config}")
endif()

find_program(GNUPLOT gnuplot)
if(GNUPLOT AND NOT EXISTS "${dir}/curves.png")
  message(FATAL_ERROR "gnuplot is installed but ${dir}/curves.png is missing:\n${out}")
endif()
if(GNUPLOT AND NOT EXISTS "${dir}/heatmap.png")
  message(FATAL_ERROR "gnuplot is installed but ${dir}/heatmap.png is missing:\n${out}")
endif()
# --heatmap-episodes 0: no heatmaps.
execute_process(COMMAND "${EXE}" fig2a --seeds 0 --iterations 3 --heatmap-episodes 0 --out "${OUT}/noheat" --quiet --no-plot
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR EXISTS "${OUT}/noheat/fig2a/heatmap.csv" OR out MATCHES "heatmap\\.|heatmaps:")
  message(FATAL_ERROR "--heatmap-episodes 0: exit ${rc}, heatmaps written or mentioned:\n${out}\n${err}")
endif()

# Bad flags and values: exit status 2 and a message naming them.
foreach(case "--iterations;abc;abc" "--seeds;3-1;3-1" "--objectives;mse,foo;foo" "--bogus;;--bogus"
             "--estimator;best;best" "fig9z;;fig9z" "--heatmap-episodes;-5;'-5'" "--heatmap-episodes;many;'many'")
  list(GET case 0 flag)
  list(GET case 1 value)
  list(GET case 2 named)
  if(value STREQUAL "")
    set(cmd "${EXE}" "${flag}")
  else()
    set(cmd "${EXE}" "${flag}" "${value}")
  endif()
  execute_process(COMMAND ${cmd} --out "${OUT}/bad" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "'${flag} ${value}' exited with ${rc}, expected 2")
  endif()
  string(FIND "${err}" "${named}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "'${flag} ${value}': the message does not name '${named}':\n${err}")
  endif()
endforeach()
if(EXISTS "${OUT}/bad")
  message(FATAL_ERROR "a rejected command line wrote ${OUT}/bad")
endif()

# --- Reliability ---------------------------------------------------------------
# --out is checked before any work: an existing regular file fails at once (exit 2) with the
# system's reason, not after the training.
file(WRITE "${OUT}/a-file" "x")
execute_process(COMMAND "${EXE}" fig2a --seeds 0-3 --iterations 3000 --out "${OUT}/a-file" --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 10)
if(NOT rc EQUAL 2 OR NOT err MATCHES "a-file.*Not a directory" OR NOT out STREQUAL "")
  message(FATAL_ERROR "--out FILE: exit ${rc}, expected 2 at once and 'Not a directory':\n${out}\n${err}")
endif()

# A rerun replaces the set as a whole: no curves.png of the earlier run next to CSV files
# drawn without a plot; temporaries of killed runs (a dead process's staging folder, an
# older version's summary.csv.tmp) are gone.
file(MAKE_DIRECTORY "${OUT}/.fig2a.partial-999999999")
file(WRITE "${OUT}/.fig2a.partial-999999999/runs.csv" "stale")
file(WRITE "${dir}/summary.csv.tmp" "stale")
file(WRITE "${dir}/curves.png" "an earlier run's plot")
execute_process(COMMAND "${EXE}" fig2a --seeds 0-1 --iterations 5 --out "${OUT}" --quiet --no-plot
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB left RELATIVE "${OUT}" "${OUT}/.*" "${dir}/*")
if(NOT rc EQUAL 0 OR NOT left STREQUAL "fig2a/config.json;fig2a/curves.gp;fig2a/heatmap.csv;fig2a/heatmap.gp;fig2a/runs.csv;fig2a/summary.csv;fig2a/uniform.csv")
  message(FATAL_ERROR "rerun with --no-plot: exit ${rc}, left '${left}':\n${out}\n${err}")
endif()

# A gnuplot that fails: exit status 1, a message, no plot claimed or left.
set(fake "${OUT}/fake-gnuplot")
file(WRITE "${fake}/gnuplot" "#!/bin/sh\necho 'fake gnuplot: failing' >&2\nexit 3\n")
file(CHMOD "${fake}/gnuplot" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${fake}:$ENV{PATH}"
                        "${EXE}" fig2a --seeds 0 --iterations 5 --out "${OUT}" --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "gnuplot exited with status 3" OR out MATCHES "curves.png"
   OR EXISTS "${dir}/curves.png" OR NOT err MATCHES "heatmaps: gnuplot exited with status 3" OR EXISTS "${dir}/heatmap.png")
  message(FATAL_ERROR "failing gnuplot: exit ${rc}, expected 1 and no plot:\n${out}\n${err}")
endif()

# SIGTERM behaves like the first Ctrl-C: the finished runs are written, exit status 143.
execute_process(COMMAND sh -c "\"$0\" fig2a --seeds 0-1 --iterations 5000 --threads 1 --out \"$1\" --quiet --no-plot & p=$!; sleep 1; kill -TERM $p; wait $p"
                        "${EXE}" "${OUT}/term"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 143 OR NOT err MATCHES "SIGTERM during fig2a: kept ([0-9]+) complete runs of 8")
  message(FATAL_ERROR "SIGTERM: exit ${rc}, expected 143 and the runs kept:\n${out}\n${err}")
endif()
if(NOT CMAKE_MATCH_1 EQUAL 0)
  file(STRINGS "${OUT}/term/fig2a/runs.csv" runs)
  list(LENGTH runs n)
  math(EXPR expected "${CMAKE_MATCH_1} * 5000 + 1")
  if(NOT n EQUAL expected)
    message(FATAL_ERROR "SIGTERM: runs.csv has ${n} lines, expected ${expected} for ${CMAKE_MATCH_1} runs")
  endif()
endif()
message(STATUS "maxent-paper smoke test passed")
