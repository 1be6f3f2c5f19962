# examples/common/reliability_test.cmake — the programs on hostile input, cmake -P:
#   1. settings refused up front (exit 2, naming the flag): a learned model with class B,
#      smoothing 0 or beyond the library's bound, sizes beyond the machine's memory, integers
#      that overflow 64 bits; maxent-learned-diagnosis and maxent-rescue the same way;
#   2. merge of a tampered shard: impossible counts, JSON nested 200000 levels deep, files that
#      are a link to /dev/zero or a FIFO: exit 1 with the reason, never a crash or a hang;
#   3. SIGTERM stops maxent-learned-diagnosis and maxent-rescue (both sensors) cleanly, saying so;
#   4. a second run into the folder of a run that goes on is refused (exit 2, the first's pid).
# Variables: PAPER, DIAGNOSIS, RESCUE (the binaries), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT PAPER OR NOT DIAGNOSIS OR NOT RESCUE OR NOT OUT)
  message(FATAL_ERROR "reliability_test.cmake needs -DPAPER=... -DDIAGNOSIS=... -DRESCUE=... -DOUT=...")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(RUN_TIMEOUT 120)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/ProgramTestHelpers.cmake")  # run
include("${CMAKE_CURRENT_LIST_DIR}/test_checks.cmake")  # require_matches

# says(<status> <regex...> -- <command...>): the command exits with <status> and its output
# matches every regex.
function(says status)
  set(regexes "")
  set(command "")
  set(in_command FALSE)
  foreach(a ${ARGN})
    if(in_command)
      list(APPEND command "${a}")
    elseif(a STREQUAL "--")
      set(in_command TRUE)
    else()
      list(APPEND regexes "${a}")
    endif()
  endforeach()
  run(${status} o ${command})
  string(REPLACE ";" " " cmd "${command}")
  require_matches("${o}" "'${cmd}'" ${regexes})
  string(REGEX REPLACE "\n$" "" o "${o}")
  message(STATUS "as expected: ${o}")
endfunction()

set(tiny --seeds 0 --iterations 2 --batch 2 --no-plot --quiet --threads 1 --out "${OUT}/p")

# --- 1. refused up front ------------------------------------------------------------------
says(2 "--policies: curve 'learned-mbe/B'" -- "${PAPER}" nosim2b --learned mbe --policies B ${tiny})
says(2 "--smoothing: '0' is not in" -- "${PAPER}" nosim2b --smoothing 0 ${tiny})
says(2 "--smoothing: '1e308' is not in" -- "${PAPER}" nosim2b --smoothing 1e308 ${tiny})
says(2 "--latent-states 100000000: nosim2b's learned model would take at least [0-9.e+]+ GiB" --
     "${PAPER}" nosim2b --latent-states 100000000 ${tiny})
says(2 "--iterations: '99999999999999999999999' is too large" -- "${PAPER}" fig2a ${tiny} --iterations 99999999999999999999999)
says(2 "--latent-states 100000000: nosim2b's learned model would take at least [0-9.e+]+ GiB" --
     "${DIAGNOSIS}" --env nosim2b --latent-states 100000000)
says(2 "--seed: '99999999999999999999999' is too large" -- "${DIAGNOSIS}" --seed 99999999999999999999999)
says(2 "--episodes: ' 5' is not a positive integer" -- "${DIAGNOSIS}" --episodes " 5")
says(0 "usage: maxent-rescue" -- "${RESCUE}" --help)
says(2 "--seeds must be an integer" -- "${RESCUE}" rescue-small --seeds " 5" --out "${OUT}/r")
says(2 "more than one experiment \\('rescue-small' and 'rescue'\\)" -- "${RESCUE}" rescue-small rescue --out "${OUT}/r")

# --- 2. merge of a tampered shard -----------------------------------------------------------
run(0 o "${PAPER}" fig2a --seeds 0-1 --iterations 2 --batch 2 --objectives mse --heatmap-episodes 2 --no-plot --quiet
    --threads 1 --shard 1/2 --out "${OUT}/shards")
set(shard "${OUT}/shards/fig2a.shard-1-of-2")
file(READ "${shard}/config.json" config)
file(READ "${shard}/runs.csv" runs)
set(merge "${PAPER}" merge "${shard}" --no-plot --out "${OUT}/merged")
string(REPLACE "\"count\": 2" "\"count\": 0" bad "${config}")
file(WRITE "${shard}/config.json" "${bad}")
says(1 "maxent-paper: merge: .*shard.count" -- ${merge})
string(REPLACE "\"count\": 2" "\"count\": 18446744073709551615" bad "${config}")
file(WRITE "${shard}/config.json" "${bad}")
says(1 "shard.count: 18446744073709551615 is larger than 100000" -- ${merge})
string(REPEAT "[" 200000 deep)
file(WRITE "${shard}/config.json" "${deep}")
says(1 "nested deeper than 64 levels" -- ${merge})
file(WRITE "${shard}/config.json" "${config}")
string(REGEX REPLACE "\n(mse,[0-9]+,0,[^,]+),[^,]+," "\n\\1,inf," bad "${runs}")
file(WRITE "${shard}/runs.csv" "${bad}")
says(1 "runs.csv' line 2: run \\(mse, seed [0-9]+\\) iteration 0: the feedback is 'inf'" -- ${merge})
file(REMOVE "${shard}/runs.csv")
file(CREATE_LINK /dev/zero "${shard}/runs.csv" SYMBOLIC)
says(1 "runs.csv': it is a character device, not a regular file" -- ${merge})
file(REMOVE "${shard}/runs.csv")
execute_process(COMMAND mkfifo "${shard}/runs.csv" RESULT_VARIABLE rc)
if(rc EQUAL 0)
  says(1 "runs.csv': it is a FIFO \\(named pipe\\), not a regular file" -- ${merge})
endif()

# --- 3. SIGTERM ---------------------------------------------------------------------------------
# (CMake splits arguments at ';': the shell commands below separate theirs with newlines.)
says(143 "SIGTERM: stopped; the rows above are complete" --
     sh -c "\"${DIAGNOSIS}\" --env nosim2b --episodes 100000 --threads 1 &
            p=$!
            sleep 2
            kill -TERM $p
            wait $p")
says(143 "SIGTERM: stopped; maxent-rescue keeps no finished runs, so nothing was written" --
     sh -c "\"${RESCUE}\" rescue --threads 1 --no-plot --out \"${OUT}/r\" &
            p=$!
            sleep 2
            kill -TERM $p
            wait $p")
if(EXISTS "${OUT}/r/rescue")
  message(FATAL_ERROR "a stopped maxent-rescue wrote ${OUT}/r/rescue")
endif()
# The range-sensor experiments too (their own driver, range.cpp).
says(143 "SIGTERM: stopped; maxent-rescue keeps no finished runs, so nothing was written" --
     sh -c "\"${RESCUE}\" rescue-range --threads 1 --no-plot --out \"${OUT}/r\" &
            p=$!
            sleep 2
            kill -TERM $p
            wait $p")
file(GLOB range_written "${OUT}/r/rescue-range/*")
if(range_written)
  message(FATAL_ERROR "a stopped maxent-rescue rescue-range wrote ${range_written}")
endif()

# --- 4. a second writer -------------------------------------------------------------------------
string(REPLACE ";" " " tiny_words "${tiny}")
says(2 "--out: another maxent process \\(pid [0-9]+\\) is writing '.*fig2a'" --
     sh -c "\"${PAPER}\" fig2a --seeds 0-3 --iterations 1000000 --threads 1 --quiet --no-plot --out \"${OUT}/two\" &
            p=$!
            while [ ! -e \"${OUT}/two/.fig2a.lock\" ]
            do sleep 0.1
            done
            \"${PAPER}\" fig2a ${tiny_words} --out \"${OUT}/two\"
            rc=$?
            kill -TERM $p
            wait $p
            exit $rc")
