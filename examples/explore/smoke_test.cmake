# examples/explore/smoke_test.cmake — end-to-end test of maxent-explore (cmake -P).
# Trains on tiger (3 seeds, 20 iterations, the default objectives mse and mbe) and checks the
# files, their headers and row counts and the printed table; learned-belief curves for the
# model file (one per learner, the agent never using the file's model);
# files, their headers and row counts and the printed table; then that bad flags exit with
# status 2 naming the flag's value and write nothing, and that mini-hall2 (a state without
# T: entries) fails with a hint by default and runs with --empty-rows self-loop; then that
# folder names stay inside --out, odd model names reach gnuplot literally, and a huge model
# is refused with its estimated work.
# Variables: EXE (the maxent-explore binary), OUT (a scratch directory), POMDP_DIR (the
# classic model files, tests/data/classic; a missing tiger.95.POMDP is an error).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT OUT OR NOT DEFINED POMDP_DIR)
  message(FATAL_ERROR "smoke_test.cmake needs -DEXE=... -DOUT=... -DPOMDP_DIR=...")
endif()
set(tiger "${POMDP_DIR}/tiger.95.POMDP")
if(NOT EXISTS "${tiger}")
  message(FATAL_ERROR "maxent-explore smoke test: no ${tiger}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/../test_checks.cmake")
file(REMOVE_RECURSE "${OUT}")

execute_process(COMMAND "${EXE}" "${tiger}" --seeds 0-2 --iterations 20 --threads 2 --out "${OUT}" --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "maxent-explore failed (${rc}):\n${out}\n${err}")
endif()
require_matches("${out}" "the printed output" "uniform random " "mse \\(learned\\) " "mbe \\(learned\\) "
                "log S = log 2 +0\\.6931" "tiger\\.95 .*S = 2 states, A = 3 actions, O = 2 observations, T = 10"
                "best, true state seen +0\\.[0-9]+" "even split of T states +0\\.6931")

set(dir "${OUT}/tiger.95")
require_files("${dir}" config.json runs.csv summary.csv curves.gp)

# Learned-belief curves for any model file: one per learner; the oracle labelled as such; no
# "(learned)" marker next to learned-belief curves; the note that K below --refit-every means
# no refit; learning.csv and learned/ written and listed; config.json's learning settings and
# what each learner was given.
execute_process(COMMAND "${EXE}" "${tiger}" --seeds 0 --iterations 5 --objectives mse --learned mbe
                        --learners em,cloned-hmm,em-known-motion --warmup 20 --threads 1 --out "${OUT}/learned" --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "maxent-explore with learned curves failed (${rc}):\n${out}\n${err}")
endif()
require_matches("${out}" "the printed output (learned curves)" "\n  learned-mbe +0\\."
                "\n  learned-mbe\\+cloned-hmm +0\\." "\n  learned-mbe\\+em-known-motion\\(oracle\\) +0\\."
                "\n  learned beliefs: L = S latent states for em, em-known-motion. L = S clones split evenly among the observations for cloned-hmm. first fit[^\n]*\n    no refit happens: K = 5 < --refit-every 2000; the model stays the warm-up fit\n"
                "wrote [^\n]*learning\\.csv,learned/")
string(REGEX MATCHALL "learned beliefs:" lines_named "${out}")
list(LENGTH lines_named count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "the printed output (learned curves) has ${count} lines saying \"learned beliefs:\", not 1:\n${out}")
endif()
if(out MATCHES "learned-mbe[^\n]*\\(learned\\)")
  message(FATAL_ERROR "a learned-belief curve is marked '(learned)':\n${out}")
endif()
check_csv("${OUT}/learned/tiger.95/runs.csv" "objective,seed,iteration,true_entropy,feedback,belief_entropy_sum" 21)
require_files("${OUT}/learned/tiger.95" learning.csv learned/learned-mbe-seed0.pomdp
              "learned/learned-mbe+em-known-motion(oracle)-seed0.pomdp")
file(STRINGS "${OUT}/learned/tiger.95/learning.csv" fits)
if(NOT fits MATCHES "(^|;)learned-mbe\\+em-known-motion\\(oracle\\),0,0,0,20,")
  message(FATAL_ERROR "learning.csv has no first fit of the oracle curve:\n${fits}")
endif()
file(READ "${OUT}/learned/tiger.95/config.json" config)
require_matches("${config}" "config.json (learned curves)" "\"learning\": {\"latent_states\": 2, \"warmup_episodes\": 20"
                "\"initial_belief\": \"learned\"}"
                "\"label\": \"learned-mbe\"[^}]*}, \"learner\": \"em\", \"oracle\": null, \"given\": \\[\"number of states\"\\], \"prior\": \"learned\""
                "\"learner\": \"em-known-motion\", \"oracle\": \"given the true motion\", \"given\": \\[\"number of states\", \"transitions\", \"state identities\"\\]")
# A learned-only study (--objectives none), L given (so nothing of the world), the uniform prior
# and a refit within K: no note.
execute_process(COMMAND "${EXE}" "${tiger}" --seeds 0 --iterations 5 --objectives none --learned mbe --latent-states 3
                        --uniform-prior --refit-every 2 --warmup 20 --threads 1 --out "${OUT}/learned-only" --quiet --no-plot
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "maxent-explore --objectives none --learned mbe failed (${rc}):\n${out}\n${err}")
endif()
if(out MATCHES "no refit" OR out MATCHES "\n  mse")
  message(FATAL_ERROR "--objectives none --refit-every 2: a true-model curve or the no-refit note:\n${out}")
endif()
require_matches("${out}" "the printed output (learned only)" "\n  learned beliefs: L = 3 latent states \\(--latent-states\\). first fit")
check_csv("${OUT}/learned-only/tiger.95/runs.csv" "objective,seed,iteration,true_entropy,feedback,belief_entropy_sum" 6)
file(READ "${OUT}/learned-only/tiger.95/config.json" config)
require_matches("${config}" "config.json (learned only)" "\"learner\": \"em\", \"oracle\": null, \"given\": \\[\\], \"prior\": \"uniform\""
                "\"latent_states\": 3")
execute_process(COMMAND "${EXE}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
require_matches("${out}" "--help" "--uniform-prior" "--restarts" "--em-iterations" "em-known-motion \\(oracle:[ \n]+given the world's[ \n]+transitions"
                "no refit happens" "none: only the --learned curves")

# 2 objectives x 3 seeds x 20 iterations + header
check_csv("${dir}/runs.csv" "objective,seed,iteration,true_entropy,feedback,belief_entropy_sum" 121)
check_csv("${dir}/summary.csv" "objective,iteration,mean,ci_low,ci_high,n" 41 "^mse,0,[^,]+,[^,]+,[^,]+,3$")

file(READ "${dir}/config.json" config)
require_matches("${config}" "config.json" "\"seeds\": \\[0, 1, 2\\]" "\"iterations\": 20" "\"maxent_version\": \"[0-9]"
                "\"alpha\": 0.3" "\"states\": 2, \"actions\": 3, \"observations\": 2" "\"episodes_per_seed\": 20")

find_program(GNUPLOT gnuplot)
if(GNUPLOT AND NOT EXISTS "${dir}/curves.png")
  message(FATAL_ERROR "gnuplot is installed but ${dir}/curves.png is missing:\n${out}")
endif()

# Bad flags and values: exit status 2, a message naming them, nothing written.
foreach(case "--iterations;abc;abc" "--seeds;3-1;3-1" "--objectives;mse,foo;foo" "--policy;XY;XY"
             "--policies;XY;XY" "--smooth;0;0"
             "--bogus;;--bogus" "--estimator;best;best" "--empty-rows;maybe;maybe" "--horizon;0;0"
             "--alpha;-1;-1" "--step;fast;fast" "--counting;both;both" "--threads;x;x")
  list(GET case 0 flag)
  list(GET case 1 value)
  list(GET case 2 named)
  if(value STREQUAL "")
    set(cmd "${EXE}" "${tiger}" "${flag}")
  else()
    set(cmd "${EXE}" "${tiger}" "${flag}" "${value}")
  endif()
  execute_process(COMMAND ${cmd} --out "${OUT}/bad" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "'${flag} ${value}' exited with ${rc}, expected 2")
  endif()
  string(FIND "${err}" "'${named}'" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "'${flag} ${value}': the message does not name '${named}':\n${err}")
  endif()
endforeach()
# No model file, a missing one, two of them.
foreach(args "--iterations;3" "${POMDP_DIR}/no-such-model.POMDP" "${tiger};${tiger}")
  execute_process(COMMAND "${EXE}" ${args} --out "${OUT}/bad" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "model file")
    message(FATAL_ERROR "'${args}' exited with ${rc}, expected 2 and a message about the model file:\n${err}")
  endif()
endforeach()
if(EXISTS "${OUT}/bad")
  message(FATAL_ERROR "a rejected command line wrote ${OUT}/bad")
endif()

# mini-hall2 leaves its goal state without T: entries.
set(mini "${POMDP_DIR}/mini-hall2.pomdp")
if(EXISTS "${mini}")
  execute_process(COMMAND "${EXE}" "${mini}" --seeds 0 --iterations 2 --out "${OUT}" --quiet --no-plot
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "--empty-rows self-loop")
    message(FATAL_ERROR "mini-hall2 without --empty-rows: exit ${rc}, expected 1 and a hint:\n${err}")
  endif()
  execute_process(COMMAND "${EXE}" "${mini}" --empty-rows self-loop --seeds 0 --iterations 2 --out "${OUT}"
                          --quiet --no-plot
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}/mini-hall2/runs.csv")
    message(FATAL_ERROR "mini-hall2 with --empty-rows self-loop failed (${rc}):\n${out}\n${err}")
  endif()
endif()

# --policies (maxent-paper's spelling) and --policy are one flag: the same runs, byte for byte.
foreach(spelling --policies --policy)
  execute_process(COMMAND "${EXE}" "${tiger}" ${spelling} O,BA --seeds 0 --iterations 3 --out "${OUT}/spell${spelling}"
                          --quiet --no-plot --smooth 3
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${spelling} O,BA failed (${rc}):\n${out}\n${err}")
  endif()
  file(READ "${OUT}/spell${spelling}/tiger.95/runs.csv" runs${spelling})
endforeach()
if(NOT runs--policies STREQUAL runs--policy OR NOT runs--policy MATCHES "\nmse/O,0,0,")
  message(FATAL_ERROR "--policies and --policy gave different runs:\n${runs--policies}\n${runs--policy}")
endif()

# --- Reliability ---------------------------------------------------------------
# Folder names stay inside --out: "...pomdp" (stem "..") and "..pomdp" (stem ".") go to
# OUT/esc/inner/model, never to OUT/esc or OUT/esc/inner itself.
file(READ "${tiger}" tiger_text)
set(models "${OUT}/models")
file(WRITE "${models}/...pomdp" "${tiger_text}")
file(WRITE "${models}/..pomdp" "${tiger_text}")
foreach(m "...pomdp" "..pomdp")
  execute_process(COMMAND "${EXE}" "${models}/${m}" --seeds 0 --iterations 2 --out "${OUT}/esc/inner" --quiet --no-plot
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "model '${m}' failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
file(GLOB_RECURSE written RELATIVE "${OUT}/esc" "${OUT}/esc/*")
if(NOT written STREQUAL "inner/model/config.json;inner/model/curves.gp;inner/model/runs.csv;inner/model/summary.csv")
  message(FATAL_ERROR "dot-named models wrote '${written}', expected only inner/model/*")
endif()

# A model name with quotes and a backquoted command: the gnuplot script takes it literally
# (nothing is executed), and a plot is claimed only when gnuplot drew it.
set(odd "${models}/odd`touch INJECTED`'\"name.pomdp")
file(WRITE "${odd}" "${tiger_text}")
execute_process(COMMAND "${EXE}" "${odd}" --seeds 0 --iterations 2 --out "${OUT}/odd" --quiet
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB_RECURSE injected "${OUT}/*INJECTED")
list(FILTER injected EXCLUDE REGEX "\\.pomdp$")
if(NOT rc EQUAL 0 OR injected)
  message(FATAL_ERROR "odd model name: exit ${rc}, files '${injected}':\n${out}\n${err}")
endif()
file(GLOB odd_dir "${OUT}/odd/*")
if(GNUPLOT AND NOT EXISTS "${odd_dir}/curves.png")
  message(FATAL_ERROR "odd model name: gnuplot is installed but there is no curves.png in '${odd_dir}':\n${out}\n${err}")
endif()

# A huge valid model (2e5 states, T = S by default): refused at once with the estimated work.
file(WRITE "${models}/huge.pomdp"
     "discount: 0.95\nvalues: reward\nstates: 200000\nactions: 2\nobservations: 2\nT: * identity\nO: * uniform\n")
execute_process(COMMAND "${EXE}" "${models}/huge.pomdp" --out "${OUT}/huge" --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 20)
if(NOT rc EQUAL 2 OR NOT err MATCHES "too much work: S = 200000 states, T = 200000 .* 6\\.4e\\+15 belief-entry updates, above --max-work 2e\\+11")
  message(FATAL_ERROR "huge model: exit ${rc}, expected 2 and the estimate:\n${out}\n${err}")
endif()
# ... and runs with a short horizon (the estimate is then small).
execute_process(COMMAND "${EXE}" "${models}/huge.pomdp" --horizon 3 --seeds 0 --iterations 2 --batch 2 --out "${OUT}/huge"
                        --quiet --no-plot
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}/huge/huge/runs.csv")
  message(FATAL_ERROR "huge model with --horizon 3: exit ${rc}:\n${out}\n${err}")
endif()
message(STATUS "maxent-explore smoke test passed")
