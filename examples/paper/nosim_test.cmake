# examples/paper/nosim_test.cmake — maxent-paper without a simulator, cmake -P.
#   1. nosim2b with tiny settings: the five curves, learning.csv (one row per fit of every
#      learned run, on the schedule the flags ask for) and config.json's "learning" section;
#   2. the same bytes with 1 and 2 threads, and from 2 shards merged (the heatmaps of the
#      learned filters included); shards whose learning
#      settings differ are refused;
#   3. bad learning flags exit with status 2 and name the value;
#   4. the learners that choose their size (em-select, ...): given nothing, their choices in
#      config.json, one fit per run in learning.csv, the same bytes with 1 and 2 threads.
#   Each learned run's final model is in learned/ (all learners), and maxent-explore reads one.
# Variables: EXE (maxent-paper), EXPLORE (maxent-explore), OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT EXE OR NOT EXPLORE OR NOT OUT)
  message(FATAL_ERROR "nosim_test.cmake needs -DEXE=... -DEXPLORE=... -DOUT=...")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/ProgramTestHelpers.cmake")  # run, same_files
include("${CMAKE_CURRENT_LIST_DIR}/../test_checks.cmake")  # check_heatmap_scale

# K = 25 with a refit every 10 iterations: fits before iteration 0, after 10 and after 20.
set(args nosim2b --seeds 0-1 --iterations 25 --batch 4 --warmup 30 --refit-every 10 --refit-iterations 2
         --window 12 --quiet --no-plot)
run(0 o "${EXE}" ${args} --threads 1 --out one)
set(dir "${OUT}/one/nosim2b")
foreach(f runs.csv summary.csv config.json learning.csv)
  if(NOT EXISTS "${dir}/${f}")
    message(FATAL_ERROR "${dir}/${f} is missing")
  endif()
endforeach()
check_heatmap_scale("${dir}/heatmap.gp")  # the learned curves' panels on the others' scale
file(STRINGS "${dir}/runs.csv" rows)
list(LENGTH rows n)
if(NOT n EQUAL 251)  # 5 curves x 2 seeds x 25 iterations + header
  message(FATAL_ERROR "runs.csv has ${n} lines, expected 251")
endif()
foreach(label mse moe reg-mbe learned-mbe learned-reg-mbe)
  if(NOT rows MATCHES "(^|;)${label},0,24,")
    message(FATAL_ERROR "runs.csv has no curve '${label}'")
  endif()
endforeach()
file(STRINGS "${dir}/learning.csv" fits)
list(LENGTH fits n)
if(NOT n EQUAL 13)  # 2 learned curves x 2 seeds x 3 fits + header
  message(FATAL_ERROR "learning.csv has ${n} lines, expected 13:\n${fits}")
endif()
list(GET fits 0 header)
if(NOT header STREQUAL "objective,seed,fit,iteration,episodes,em_iterations,converged,train_ll_per_obs,heldout_ll_per_obs,truth_heldout_ll_per_obs")
  message(FATAL_ERROR "learning.csv header: ${header}")
endif()
# The first fit is on the 30 warm-up episodes; refits after 10 and 20 iterations on the warm-up
# plus the window of 12 episodes, with at most 2 EM steps.
foreach(expected "learned-mbe,0,0,0,30," "learned-mbe,0,1,10,42,[012]," "learned-reg-mbe,1,2,20,42,[012],")
  if(NOT fits MATCHES "(^|;)${expected}")
    message(FATAL_ERROR "learning.csv has no row matching '${expected}':\n${fits}")
  endif()
endforeach()
if(fits MATCHES "nan|inf")
  message(FATAL_ERROR "learning.csv holds a non-finite value:\n${fits}")
endif()
file(READ "${dir}/config.json" config)
if(NOT config MATCHES "\"learning\": {\"latent_states\": 25, \"warmup_episodes\": 30, \"heldout_episodes\": 200, \"refit_every\": 10")
  message(FATAL_ERROR "config.json has no learning section as expected:\n${config}")
endif()
message(STATUS "nosim2b: 5 curves, learning.csv with 12 fits, config.json's learning section")
# Each learned run's final model as a POMDP file, which maxent-explore reads (25 latent states).
set(models learned/learned-mbe-seed0.pomdp learned/learned-mbe-seed1.pomdp learned/learned-reg-mbe-seed0.pomdp
           learned/learned-reg-mbe-seed1.pomdp)
foreach(f ${models})
  if(NOT EXISTS "${dir}/${f}")
    message(FATAL_ERROR "${dir}/${f} is missing")
  endif()
endforeach()
file(GLOB written RELATIVE "${dir}" "${dir}/learned/*")
list(LENGTH written n)
if(NOT n EQUAL 4)
  message(FATAL_ERROR "learned/ holds ${n} files, expected the 4 learned runs': ${written}")
endif()
run(0 o "${EXPLORE}" "${dir}/learned/learned-reg-mbe-seed1.pomdp" --objectives moe --seeds 0 --iterations 1 --batch 1
    --uniform-trajectories 1 --threads 1 --out explore-learned --quiet --no-plot)
if(NOT o MATCHES "S = 25 states, A = 4 actions")
  message(FATAL_ERROR "maxent-explore on a written learned model does not report its 25 states and 4 actions:\n${o}")
endif()
message(STATUS "learned/: the final model of each of the 4 learned runs, read back by maxent-explore")

# One learned curve per learner, labelled with what the agent was assumed to know.
run(0 o "${EXE}" nosim2d --seeds 0 --iterations 3 --batch 2 --warmup 10 --heatmap-episodes 0 --objectives moe
    --learned reg-mbe --learners em,cloned-hmm,em-known-motion,em-sparse,em-known-sensor --threads 1 --out learners --quiet --no-plot)
if(NOT o MATCHES "oracles, given parts of the true model: em-known-motion \\(true motion\\), em-known-sensor \\(true sensor\\)")
  message(FATAL_ERROR "the learned-belief line does not name the oracles:\n${o}")
endif()
file(STRINGS "${OUT}/learners/nosim2d/runs.csv" rows)
foreach(label learned-reg-mbe learned-reg-mbe\\+cloned-hmm "learned-reg-mbe\\+em-known-motion\\(oracle\\)"
              learned-reg-mbe\\+em-sparse "learned-reg-mbe\\+em-known-sensor\\(oracle\\)")
  if(NOT rows MATCHES "(^|;)${label},0,2,")
    message(FATAL_ERROR "runs.csv has no curve '${label}':\n${rows}")
  endif()
  string(REPLACE "\\" "" file "${label}")
  if(NOT EXISTS "${OUT}/learners/nosim2d/learned/${file}-seed0.pomdp")
    message(FATAL_ERROR "no learned/${file}-seed0.pomdp")
  endif()
endforeach()
file(READ "${OUT}/learners/nosim2d/config.json" config)
if(NOT config MATCHES "\"learners\": \\[{\"name\": \"em\", \"knows\": \"EM on an IOHMM" OR NOT config MATCHES "known odometry")
  message(FATAL_ERROR "config.json does not say what each learner knew:\n${config}")
endif()
# Each learned curve: its learner, whether it is an oracle, what it was given (L = S by default).
foreach(expected "\"learned-reg-mbe\\+em-known-sensor\\(oracle\\)\"[^}]*\"learner\": \"em-known-sensor\", \"oracle\": \"given the true sensor\", \"given\": \\[\"number of states\", \"emissions\"\\], \"prior\": \"learned\""
                 "\"learned-reg-mbe\\+cloned-hmm\"[^}]*\"learner\": \"cloned-hmm\", \"oracle\": null, \"given\": \\[\"number of states\"\\]")
  if(NOT config MATCHES "${expected}")
    message(FATAL_ERROR "config.json's curves do not say what each learner was given ('${expected}'):\n${config}")
  endif()
endforeach()
# The learners that choose L (or the clones) and the prior themselves on the warm-up
# episodes: given nothing, what each run chose in config.json, a fit per run in learning.csv,
# the same bytes with 1 and 2 threads.
set(sel nosim2d --seeds 0-1 --iterations 3 --batch 2 --warmup 20 --heatmap-episodes 0 --objectives none
    --learned reg-mbe --learners em-select,em-spectral-select,cloned-hmm-select --select-max-states 8 --quiet --no-plot)
run(0 o "${EXE}" ${sel} --threads 1 --out select1)
run(0 o2 "${EXE}" ${sel} --threads 2 --out select2)
same_files("${OUT}/select1/nosim2d" "${OUT}/select2/nosim2d" runs.csv learning.csv)
if(NOT o MATCHES "em-select, em-spectral-select, cloned-hmm-select choose L \\(or the clones\\) and the prior by held-out likelihood")
  message(FATAL_ERROR "the learned-belief line does not say that the -select learners choose L:\n${o}")
endif()
file(READ "${OUT}/select1/nosim2d/config.json" config)
foreach(learner em-select em-spectral-select cloned-hmm-select)
  if(NOT config MATCHES "\"learned-reg-mbe\\+${learner}\"[^]]*\"learner\": \"${learner}\", \"oracle\": null, \"given\": \\[\\], \"prior\": \"learned\", \"selected\": \\[{\"seed\": 0, \"latent_states\": [1-8], \"pseudo_count\": [0-9.e-]+, \"allocation\": \"[a-z]+\", \"candidates\": [0-9]+}, {\"seed\": 1,")
    message(FATAL_ERROR "config.json does not say that ${learner} was given nothing and what each run chose:\n${config}")
  endif()
  file(STRINGS "${OUT}/select1/nosim2d/learning.csv" rows REGEX "^learned-reg-mbe\\+${learner},")
  list(LENGTH rows n)
  if(NOT n EQUAL 2)
    message(FATAL_ERROR "learning.csv has ${n} fits of ${learner}, not one per run (2)")
  endif()
endforeach()
if(NOT config MATCHES "\"name\": \"cloned-hmm-select\"[^}]*\"selection\": {\"of\": \"clone total and allocation\", \"sizes\": \"O, 2 O, 4 O, ... up to 8")
  message(FATAL_ERROR "config.json's learners do not state the selection's settings:\n${config}")
endif()
message(STATUS "nosim2d: the -select learners, given nothing, record their choices; 1 and 2 threads agree")

run(0 o "${EXE}" --help)
if(NOT o MATCHES "em-select, em-spectral-select" OR NOT o MATCHES "--select-max-states B")
  message(FATAL_ERROR "--help does not list the -select learners and --select-max-states:\n${o}")
endif()
if(NOT o MATCHES "em-known-motion \\(oracle:\n *given the world's transitions" OR NOT o MATCHES "--objectives LIST +any of mse,moe,mbe,reg-mbe, or none")
  message(FATAL_ERROR "--help does not mark the oracles or list --objectives none:\n${o}")
endif()
run(2 o "${EXE}" nosim2d --learners em,magic --out bad)
if(NOT o MATCHES "--learners" OR NOT o MATCHES "'magic'")
  message(FATAL_ERROR "--learners em,magic: the message does not name the flag and value:\n${o}")
endif()
message(STATUS "nosim2d: one learned curve per learner, config.json's learners; a bad learner refused")

# --- 2. threads and shards give the same bytes ------------------------------------------------
run(0 o "${EXE}" ${args} --threads 2 --out two)
same_files("${OUT}/one/nosim2b" "${OUT}/two/nosim2b" runs.csv summary.csv learning.csv heatmap.csv heatmap.gp ${models})
foreach(i 1 2)
  run(0 o "${EXE}" ${args} --threads 1 --out shards --shard ${i}/2)
endforeach()
run(0 o "${EXE}" merge shards/nosim2b.shard-1-of-2 shards/nosim2b.shard-2-of-2 --out merged --no-plot)
same_files("${OUT}/one/nosim2b" "${OUT}/merged/nosim2b" runs.csv summary.csv learning.csv heatmap.csv heatmap.gp ${models})
message(STATUS "identical runs.csv, summary.csv, learning.csv, heatmap.csv, heatmap.gp, learned/*.pomdp: 1 thread, 2 threads, 2 shards merged")
# Shards of studies whose learning settings differ are not one study.
run(0 o "${EXE}" ${args} --threads 1 --out other --shard 1/2)
string(REPLACE "--window;12" "--window;13" other_args "${args}")  # (a flag given twice is refused)
if(other_args STREQUAL args)
  message(FATAL_ERROR "nosim_test.cmake: the arguments have no --window 12 to change")
endif()
run(0 o "${EXE}" ${other_args} --threads 1 --out other --shard 2/2)
run(1 o "${EXE}" merge other/nosim2b.shard-1-of-2 other/nosim2b.shard-2-of-2 --out other-merged --no-plot)
if(NOT o MATCHES "learning")
  message(FATAL_ERROR "the merge of shards with different --window does not name the learning settings:\n${o}")
endif()
message(STATUS "shards with different learning settings refused: ${o}")

# --- 3. bad flags ----------------------------------------------------------------------------
foreach(bad "--smoothing;-1;-1" "--learned;foo;foo" "--latent-states;0;0" "--window;x;x")
  list(GET bad 0 flag)
  list(GET bad 1 value)
  list(GET bad 2 shown)
  run(2 o "${EXE}" nosim2b ${flag} ${value} --out bad)
  if(NOT o MATCHES "${flag}" OR NOT o MATCHES "'${shown}'")
    message(FATAL_ERROR "${flag} ${value}: the message does not name the flag and value:\n${o}")
  endif()
endforeach()
message(STATUS "bad learning flags refused with status 2, naming the value")
