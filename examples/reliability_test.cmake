# examples/reliability_test.cmake — the programs on hostile input, cmake -P:
#   1. settings refused up front (exit 2, naming the flag): a learned model with class B,
#      smoothing 0 or beyond the library's bound, sizes beyond the machine's memory, integers
#      that overflow 64 bits; maxent-learned-diagnosis and maxent-rescue the same way;
#   2. merge of a tampered shard: impossible counts, JSON nested 200000 levels deep, files that
#      are a link to /dev/zero or a FIFO: exit 1 with the reason, never a crash or a hang;
#   3. SIGTERM stops maxent-learned-diagnosis and maxent-rescue (both sensors) cleanly, saying so;
#   4. a second run into the folder of a run that goes on is refused (exit 2, the first's pid),
#      also after the first one's lock file was removed;
#   5. a merge refuses a shard's learned model that is missing or not a POMDP file, and a
#      runs.csv of other settings under a copied config.json, naming the file (and the run);
#   6. flags refused rather than ignored: a learned-belief flag where no curve learns, a flag
#      given twice; maxent-explore's learned-model sizes beyond the machine's memory.
# Variables: PAPER, EXPLORE, DIAGNOSIS, RESCUE (the binaries), POMDP_DIR, OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT PAPER OR NOT EXPLORE OR NOT DIAGNOSIS OR NOT RESCUE OR NOT OUT OR NOT DEFINED POMDP_DIR)
  message(FATAL_ERROR "reliability_test.cmake needs -DPAPER=... -DEXPLORE=... -DDIAGNOSIS=... -DRESCUE=... "
                      "-DPOMDP_DIR=... -DOUT=...")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(RUN_TIMEOUT 120)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/ProgramTestHelpers.cmake")  # run
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

set(tiny_flags --seeds 0 --iterations 2 --batch 2 --no-plot --quiet --threads 1)
set(tiny ${tiny_flags} --out "${OUT}/p")

# --- 1. refused up front ------------------------------------------------------------------
says(2 "--policies: curve 'learned-mbe/B'" -- "${PAPER}" nosim2b --learned mbe --policies B ${tiny})
says(2 "--smoothing: '0' is not in" -- "${PAPER}" nosim2b --smoothing 0 ${tiny})
says(2 "--smoothing: '1e308' is not in" -- "${PAPER}" nosim2b --smoothing 1e308 ${tiny})
says(2 "--latent-states 100000000: nosim2b's learned model would take at least [0-9.e+]+ GiB" --
     "${PAPER}" nosim2b --latent-states 100000000 ${tiny})
says(2 "--iterations: '99999999999999999999999' is too large" -- "${PAPER}" fig2a --iterations 99999999999999999999999
     --seeds 0 --no-plot --quiet --out "${OUT}/p")
says(2 "--latent-states 100000000: nosim2b's learned model would take at least [0-9.e+]+ GiB" --
     "${DIAGNOSIS}" --env nosim2b --latent-states 100000000)
says(2 "--seed: '99999999999999999999999' is too large" -- "${DIAGNOSIS}" --seed 99999999999999999999999)
says(2 "--episodes: ' 5' is not a positive integer" -- "${DIAGNOSIS}" --episodes " 5")
says(0 "usage: maxent-rescue" -- "${RESCUE}" --help)
says(2 "--seeds: ' 5' is not a positive integer" -- "${RESCUE}" rescue-small --seeds " 5" --out "${OUT}/r")
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
says(143 "SIGTERM: stopped; nothing was written" --
     sh -c "\"${RESCUE}\" rescue --threads 1 --no-plot --out \"${OUT}/r\" &
            p=$!
            sleep 2
            kill -TERM $p
            wait $p")
if(EXISTS "${OUT}/r/rescue")
  message(FATAL_ERROR "a stopped maxent-rescue wrote ${OUT}/r/rescue")
endif()
# The range-sensor experiments too (their own driver, range.cpp).
says(143 "SIGTERM: stopped; nothing was written" --
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
string(REPLACE ";" " " tiny_words "${tiny_flags}")
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
# ... and so is one whose first writer's lock file was removed meanwhile (the first still holds
# a lock on its staging folder).
says(2 "--out: another maxent process \\(pid [0-9]+\\) is writing '.*fig2a' \\(it holds a lock on its folder, although the lock file '.*' was removed\\)" --
     sh -c "\"${PAPER}\" fig2a --seeds 0-3 --iterations 1000000 --threads 1 --quiet --no-plot --out \"${OUT}/unlocked\" &
            p=$!
            while [ -z \"$(ls -d \"${OUT}/unlocked/.fig2a.partial-\"* 2>/dev/null)\" ]
            do sleep 0.1
            done
            sleep 0.2
            rm \"${OUT}/unlocked/.fig2a.lock\"
            \"${PAPER}\" fig2a ${tiny_words} --out \"${OUT}/unlocked\"
            rc=$?
            kill -TERM $p
            wait $p
            exit $rc")

# --- 5. lost, corrupt or mixed files of a shard ----------------------------------------------------
set(learn nosim2b --seeds 0-1 --iterations 2 --batch 2 --objectives mse --learned mbe --warmup 5 --restarts 1
    --em-iterations 2 --heatmap-episodes 0 --no-plot --quiet --threads 1)
run(0 o "${PAPER}" ${learn} --shard 1/2 --out "${OUT}/learned")
run(0 o "${PAPER}" ${learn} --shard 2/2 --out "${OUT}/learned")
set(one "${OUT}/learned/nosim2b.shard-1-of-2")
set(two "${OUT}/learned/nosim2b.shard-2-of-2")
run(0 o "${PAPER}" merge "${one}" "${two}" --out "${OUT}/learned-merged")
file(GLOB models RELATIVE "${one}" "${one}/learned/*.pomdp")
list(GET models 0 model)
string(REGEX REPLACE "^learned/learned-mbe-seed([0-9]+)\\.pomdp$" "\\1" seed "${model}")
file(RENAME "${one}/${model}" "${OUT}/model.pomdp")
says(1 "'${one}/${model}', the learned model of run \\(learned-mbe, seed ${seed}\\), is missing" --
     "${PAPER}" merge "${one}" "${two}" --out "${OUT}/learned-merged")
file(WRITE "${one}/${model}" "this is not a POMDP file\n")
says(1 "'${one}/${model}', the learned model of run \\(learned-mbe, seed ${seed}\\), is not a POMDP file: .*${model}:[0-9]+:" --
     "${PAPER}" merge "${one}" "${two}" --out "${OUT}/learned-merged")
file(RENAME "${OUT}/model.pomdp" "${one}/${model}")
run(0 o "${PAPER}" merge "${one}" "${two}" --out "${OUT}/learned-merged")
# A runs.csv of other settings (--alpha 0.5) under the config.json of the default ones.
run(0 o "${PAPER}" fig2a --seeds 0-1 --iterations 2 --batch 2 --objectives mse --heatmap-episodes 0 --no-plot --quiet
    --threads 1 --shard 1/1 --out "${OUT}/mixed")
run(0 o "${PAPER}" fig2a --seeds 0-1 --iterations 2 --batch 2 --objectives mse --heatmap-episodes 0 --no-plot --quiet
    --threads 1 --shard 1/1 --alpha 0.5 --out "${OUT}/other")
file(COPY_FILE "${OUT}/other/fig2a.shard-1-of-1/runs.csv" "${OUT}/mixed/fig2a.shard-1-of-1/runs.csv")
says(1 "'${OUT}/mixed/fig2a.shard-1-of-1/runs.csv' is not the file the shard wrote with the settings of its config.json" --
     "${PAPER}" merge "${OUT}/mixed/fig2a.shard-1-of-1" --out "${OUT}/mixed-merged")

# --- 6. flags refused rather than ignored ------------------------------------------------------------
says(2 "--learners: only learned-belief curves read it, and fig2a has none" --
     "${PAPER}" fig2a --learners cloned-hmm ${tiny})
says(2 "--warmup: only learned-belief curves read it, and '.*tiger.95.POMDP' has none \\(give --learned" --
     "${EXPLORE}" "${POMDP_DIR}/tiger.95.POMDP" --warmup 5 ${tiny})
says(2 "--seeds: given twice \\('1', then '0'\\)" -- "${PAPER}" fig2a --seeds 1 ${tiny})
says(2 "--policies: given twice" -- "${EXPLORE}" "${POMDP_DIR}/tiger.95.POMDP" --policy O --policies BA ${tiny})
says(2 "--iterations: given twice \\('2', then '3'\\)" -- "${RESCUE}" rescue-small --iterations 2 --iterations 3)
says(2 "--seeds: given twice" -- "${RESCUE}" rescue-range-small --seeds 2 --seeds 3)
says(2 "merge: --out given twice" -- "${PAPER}" merge "${one}" --out a --out b)
says(2 "--latent-states 100000000: tiger.95's learned model would take at least [0-9.e+]+ GiB" --
     "${EXPLORE}" "${POMDP_DIR}/tiger.95.POMDP" --learned mbe --latent-states 100000000 ${tiny})
says(2 "--warmup 100000000, --window 100000000: tiger.95's recorded training episodes would take at least" --
     "${EXPLORE}" "${POMDP_DIR}/tiger.95.POMDP" --learned mbe --warmup 100000000 --window 100000000 ${tiny})
# A model file of 1,000,000 states (read in about a second): with L = S its learned model, and
# with a small L the world's own model as an IOHMM (held-out scoring), would not fit.
file(WRITE "${OUT}/huge.pomdp" "states: 1000000\nactions: 2\nobservations: 2\nT: 0\nidentity\nT: 1\nidentity\nO: *\nuniform\n")
says(2 "--latent-states 1000000 \\(the model's S\\): huge's learned model would take at least [0-9.e+]+ GiB" --
     "${EXPLORE}" "${OUT}/huge.pomdp" --learned mbe --horizon 3 ${tiny})
says(2 "'.*huge.pomdp' \\(S = 1000000 states, A = 2 actions\\) with --learned: the world's model as an IOHMM, to score the held-out episodes under it, would take at least [0-9.e+]+ GiB" --
     "${EXPLORE}" "${OUT}/huge.pomdp" --learned mbe --latent-states 2 --horizon 3 ${tiny})
