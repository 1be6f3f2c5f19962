# examples/journey_test.cmake — a user's whole path through the outputs, cmake -P: every
# kind of study (maxent-paper fig2a and nosim2b, the latter with learned-belief curves and
# their learned/ models; maxent-explore on tiger without and with --learned; maxent-rescue
# rescue-small and rescue-range-small; shards of nosim2b and of tiger --learned merged) is
#   1. run once (the reference set),
#   2. run again, the same command into the same --out: exit 0 and the same bytes,
#   3. run in a fresh directory, stopped by SIGTERM mid-run (once its first finished run is
#      kept), and the same command again: exit 0, the finished runs reused, and the same bytes
#      as the reference.
# Shards: shard 1/2 is stopped and resumed too, the merge is run twice into the same --out,
# and the merged set must be the one-process set. "The same bytes" is every file of the
# folder, learned/ included, compared with cmp; nothing is excluded: the programs write no
# timing or process-dependent field, and every study runs with the same relative --out in
# its own directory, so config.json's command line is the same too.
# Variables: PAPER, EXPLORE, RESCUE (the binaries), POMDP_DIR, OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT PAPER OR NOT EXPLORE OR NOT RESCUE OR NOT OUT OR NOT DEFINED POMDP_DIR)
  message(FATAL_ERROR "journey_test.cmake needs -DPAPER=... -DEXPLORE=... -DRESCUE=... -DPOMDP_DIR=... -DOUT=...")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(RUN_TIMEOUT 120)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/ProgramTestHelpers.cmake")  # run
include("${CMAKE_CURRENT_LIST_DIR}/test_checks.cmake")  # require_matches
set(ROOT "${OUT}")

# interrupt.sh PATTERN COMMAND...: starts COMMAND, sends it SIGTERM as soon as a path matching
# PATTERN exists, and exits with its exit status (0 if it finished first: the test then fails).
file(WRITE "${ROOT}/interrupt.sh" [=[
pattern=$1
shift
"$@" &
p=$!
n=0
while ! ls -d $pattern >/dev/null 2>&1
do
  kill -0 $p 2>/dev/null || break
  n=$((n + 1))
  [ $n -ge 6000 ] && break
  sleep 0.01
done
kill -TERM $p 2>/dev/null
wait $p
]=])

# same_tree(<a> <b>): the two folders hold the same files (recursively), byte for byte.
function(same_tree a b)
  file(GLOB_RECURSE fa LIST_DIRECTORIES false RELATIVE "${a}" "${a}/*")
  file(GLOB_RECURSE fb LIST_DIRECTORIES false RELATIVE "${b}" "${b}/*")
  list(SORT fa)
  list(SORT fb)
  if(NOT fa STREQUAL fb)
    message(FATAL_ERROR "${a} holds '${fa}'\nbut ${b} holds '${fb}'")
  endif()
  if(NOT fa)
    message(FATAL_ERROR "${a} is empty")
  endif()
  foreach(f ${fa})
    execute_process(COMMAND cmp "${a}/${f}" "${b}/${f}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE o)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${a}/${f} and ${b}/${f} differ: ${o}")
    endif()
  endforeach()
  list(LENGTH fa n)
  message(STATUS "identical: ${n} files (${a} vs ${b})")
endfunction()

# journey(<kind> <folder> <command...>): steps 1-3 above for one study whose set is o/<folder>
# (the command has --out o); every program keeps its finished runs in o/.<folder>.runs until
# the set is written, so the rerun after SIGTERM must say it reused some.
function(journey kind folder)
  set(OUT "${ROOT}/${kind}/a")
  file(MAKE_DIRECTORY "${OUT}")
  run(0 o ${ARGN})
  file(COPY "${OUT}/o/${folder}/" DESTINATION "${ROOT}/${kind}/reference")
  run(0 o ${ARGN})
  same_tree("${ROOT}/${kind}/reference" "${OUT}/o/${folder}")

  set(OUT "${ROOT}/${kind}/b")
  file(MAKE_DIRECTORY "${OUT}")
  run(143 o sh "${ROOT}/interrupt.sh" "o/.${folder}.runs/*.run" ${ARGN})
  require_matches("${o}" "${kind} stopped by SIGTERM" "SIGTERM")
  run(0 o ${ARGN})
  require_matches("${o}" "${kind} resumed" "reused [1-9][0-9]* finished runs?")
  if(EXISTS "${OUT}/o/.${folder}.runs")
    message(FATAL_ERROR "${kind}: the work area is left after the study completed")
  endif()
  same_tree("${ROOT}/${kind}/reference" "${OUT}/o/${folder}")
  message(STATUS "${kind}: twice into the same --out, and stopped by SIGTERM then resumed: the same bytes")
endfunction()

set(tiny --threads 1 --no-plot --quiet --out o)
set(learn --warmup 5 --restarts 1 --em-iterations 3 --refit-every 500 --refit-iterations 1 --window 20)
set(tiger "${POMDP_DIR}/tiger.95.POMDP")

# Each study takes about a second of CPU time: long enough for SIGTERM to land mid-run.
set(fig2a fig2a --seeds 0-1 --iterations 8000 --batch 2 --heatmap-episodes 2 ${tiny})
set(nosim2b nosim2b --seeds 0-1 --iterations 2000 --batch 2 --heatmap-episodes 2 ${learn} ${tiny})
set(explore "${tiger}" --seeds 0-3 --iterations 10000 --batch 2 ${tiny})
set(explore_learned "${tiger}" --learned mbe --seeds 0-1 --iterations 20000 --batch 2 ${learn} ${tiny})
journey(paper-fig2a fig2a "${PAPER}" ${fig2a})
journey(paper-nosim2b nosim2b "${PAPER}" ${nosim2b})
journey(explore tiger.95 "${EXPLORE}" ${explore})
journey(explore-learned tiger.95 "${EXPLORE}" ${explore_learned})
journey(rescue rescue-small "${RESCUE}" rescue-small --iterations 200 --seeds 2 --threads 1 --no-plot --out o)
journey(rescue-range rescue-range-small "${RESCUE}" rescue-range-small --iterations 100 --seeds 2 --threads 1
        --no-plot --out o)

# --- shards + merge: shard 1/2 stopped and resumed, the merge twice into the same --out --------
# shards(<kind> <reference kind> <folder> <program> <args...>)
function(shards kind reference folder program)
  set(OUT "${ROOT}/${kind}")
  file(MAKE_DIRECTORY "${OUT}")
  run(143 o sh "${ROOT}/interrupt.sh" "o/.${folder}.shard-1-of-2.runs/*.run" "${program}" ${ARGN} --shard 1/2)
  require_matches("${o}" "${kind}: shard 1/2 stopped by SIGTERM" "SIGTERM")
  run(0 o "${program}" ${ARGN} --shard 1/2)
  require_matches("${o}" "${kind}: shard 1/2 resumed" "reused [1-9][0-9]* finished runs?")
  run(0 o "${program}" ${ARGN} --shard 2/2)
  run(0 o "${program}" ${ARGN} --shard 2/2)  # a shard twice into the same --out
  foreach(time 1 2)
    run(0 o "${program}" merge "o/${folder}.shard-1-of-2" "o/${folder}.shard-2-of-2" --no-plot --out o)
    same_tree("${ROOT}/${reference}/reference" "${OUT}/o/${folder}")
  endforeach()
  message(STATUS "${kind}: shards (one stopped and resumed) merged twice into the same --out: the one-process bytes")
endfunction()
shards(shards-nosim2b paper-nosim2b nosim2b "${PAPER}" ${nosim2b})
shards(shards-explore-learned explore-learned tiger.95 "${EXPLORE}" ${explore_learned})
message(STATUS "journey passed")
