# examples/shards/slurm_test.cmake — scripts/slurm-study.sh exercised end to end (cmake -P),
# with a stand-in `sbatch` (fake_sbatch.sh, first on PATH) that runs the array tasks at once
# on this machine, concurrently, and the merge job only if every task succeeded. (The same
# script on a real single-node Slurm: slurm_real_test.sh.)
#   1. a 4-task array of fig2a (4 seeds, K = 20, --no-plot, no --threads, 1 CPU per task)
#      into an output folder whose name has a space, a tab, non-ASCII letters and a '%', and
#      its merge give the same bytes as the same command in one process with 1 CPU; the job
#      script is bash (no --wrap), the job names carry the study, -S passes an option with a
#      space as one word, the merge job has --kill-on-invalid-dep=yes, the merged folder has
#      no curves.png (--no-plot), every task ran 1 thread (--cpus-per-task=1);
#   2. resubmitted with task 2 cancelled: only task 2 runs again, then the merge;
#      resubmitted when every task has finished: only the merge;
#   3. bad arguments are refused before anything is submitted;
#   4. a study whose tasks fail at run time: the merge job is cancelled, nothing merged;
#   5. threads: the default is the CPUs of the affinity mask (taskset) or of the Slurm task;
#      shards with different thread counts merge, with a note.
# Variables: PAPER (the maxent-paper binary), SCRIPT (scripts/slurm-study.sh), FAKE_SBATCH,
# OUT (a scratch directory).
cmake_minimum_required(VERSION 3.20)
if(NOT PAPER OR NOT SCRIPT OR NOT FAKE_SBATCH OR NOT OUT)
  message(FATAL_ERROR "slurm_test.cmake needs -DPAPER=... -DSCRIPT=... -DFAKE_SBATCH=... -DOUT=...")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}/bin")
file(COPY_FILE "${FAKE_SBATCH}" "${OUT}/bin/sbatch")
file(CHMOD "${OUT}/bin/sbatch" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(env ${CMAKE_COMMAND} -E env "PATH=${OUT}/bin:$ENV{PATH}" "FAKE_SLURM_STATE=${OUT}/slurm")
set(files runs.csv summary.csv config.json curves.gp uniform.csv heatmap.csv heatmap.gp)
set(args fig2a --seeds 0-3 --iterations 20 --no-plot)
set(study "study josé\t50%")

function(fail what)
  file(GLOB_RECURSE logs "${OUT}/*slurm-*.out")
  foreach(log ${logs})
    file(READ "${log}" text)
    message(STATUS "${log}:\n${text}")
  endforeach()
  if(EXISTS "${OUT}/slurm/submissions")
    file(READ "${OUT}/slurm/submissions" s)
    message(STATUS "submissions:\n${s}")
  endif()
  message(FATAL_ERROR "${what}")
endfunction()
function(expect_status job want)
  file(READ "${OUT}/slurm/${job}" status)
  if(NOT status STREQUAL "${want}\n")
    fail("job ${job}: ${status}, expected ${want}")
  endif()
endfunction()
function(compare_with_single)
  foreach(f ${files})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}/single/${f}" "${OUT}/${study}/fig2a/${f}"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      fail("${study}/fig2a/${f} differs from the single process's")
    endif()
  endforeach()
  if(EXISTS "${OUT}/${study}/fig2a/curves.png" OR EXISTS "${OUT}/${study}/fig2a/heatmap.png")
    fail("the merge drew a PNG although the study said --no-plot")
  endif()
endfunction()

# The reference: the command each task runs, without --shard, in one process on 1 CPU.
execute_process(COMMAND ${CMAKE_COMMAND} -E env SLURM_JOB_ID=1 SLURM_CPUS_PER_TASK=1
                        "${PAPER}" ${args} --out "${study}" --quiet
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT o MATCHES "\\(4 curves x 4 seeds, K = 20\\).*, 1 threads\\)")
  message(FATAL_ERROR "single process run failed (${rc}) or did not run 1 thread on 1 Slurm CPU:\n${o}\n${e}")
endif()
file(RENAME "${OUT}/${study}/fig2a" "${OUT}/single")

# 1. The job array and the merge.
execute_process(COMMAND ${env} bash "${SCRIPT}" -n 4 -o "${study}" -p "${PAPER}" -s "--time=00:10:00 --cpus-per-task=1"
                        -S "--comment=two words" -- ${args}
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
message(STATUS "slurm-study.sh printed:\n${o}${e}")
if(NOT rc EQUAL 0 OR NOT o MATCHES "submitted shards: job array 1000 \\(tasks 1-4\\); merge: job 1001 \\(after all tasks succeed\\)")
  fail("slurm-study.sh exited with ${rc}:\n${o}\n${e}")
endif()
file(READ "${OUT}/slurm/submissions" submissions)
set(want "job 1000 name=maxent-fig2a-shards array=1-4 dependency= kill=no cpus=1 options= [--time=00:10:00] [--comment=two words]\n"
         "job 1001 name=maxent-fig2a-merge array= dependency=afterok:1000 kill=yes cpus=1 options= [--time=00:10:00] [--comment=two words]\n")
string(JOIN "" want ${want})
if(NOT submissions STREQUAL want)
  fail("unexpected submissions:\n${submissions}\nexpected:\n${want}")
endif()
expect_status(1000 ok)
expect_status(1001 ok)
foreach(i 1 2 3 4)
  if(NOT EXISTS "${OUT}/${study}/fig2a.shard-${i}-of-4/runs.csv" OR NOT EXISTS "${OUT}/${study}/slurm-1000_${i}.out")
    fail("array task ${i}: no shard folder or log in '${study}'")
  endif()
  file(READ "${OUT}/${study}/slurm-1000_${i}.out" log)
  if(NOT log MATCHES ", 1 threads\\)")
    fail("array task ${i} did not run 1 thread on its 1 CPU:\n${log}")
  endif()
endforeach()
file(READ "${OUT}/${study}/slurm-merge-1001.out" merge_log)
if(NOT merge_log MATCHES "fig2a: merged 4 shards: 16 runs")
  fail("merge log:\n${merge_log}")
endif()
compare_with_single()
message(STATUS "identical to the single process: ${files}; no curves.png (--no-plot)")

# 2. Resubmitted: after task 2 was cancelled only task 2 runs again; after all finished, only the merge.
file(REMOVE_RECURSE "${OUT}/${study}/fig2a")
file(GLOB marks "${OUT}/${study}/.slurm-study-*/task-2.done")
file(REMOVE ${marks})
file(REMOVE_RECURSE "${OUT}/${study}/fig2a.shard-2-of-4")
execute_process(COMMAND ${env} FAKE_SLURM_CANCEL=2 bash "${SCRIPT}" -n 4 -o "${study}" -p "${PAPER}"
                        -s "--time=00:10:00 --cpus-per-task=1" -S "--comment=two words" -- ${args}
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT o MATCHES "shards finished earlier: 1,3,4 \\(not resubmitted\\)"
   OR NOT o MATCHES "job array 1002 \\(tasks 2\\); merge: job 1003")
  fail("resubmission after a lost shard (${rc}):\n${o}\n${e}")
endif()
expect_status(1002 failed)  # task 2 cancelled again (FAKE_SLURM_CANCEL)
expect_status(1003 cancelled)
execute_process(COMMAND ${env} bash "${SCRIPT}" -n 4 -o "${study}" -p "${PAPER}"
                        -s "--time=00:10:00 --cpus-per-task=1" -S "--comment=two words" -- ${args}
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT o MATCHES "job array 1004 \\(tasks 2\\); merge: job 1005")
  fail("resubmission after a cancelled task (${rc}):\n${o}\n${e}")
endif()
expect_status(1004 ok)
expect_status(1005 ok)
if(EXISTS "${OUT}/${study}/slurm-1002_1.out" OR EXISTS "${OUT}/${study}/slurm-1004_1.out")
  fail("task 1 ran again although it had finished")
endif()
compare_with_single()
execute_process(COMMAND ${env} bash "${SCRIPT}" -n 4 -o "${study}" -p "${PAPER}"
                        -s "--time=00:10:00 --cpus-per-task=1" -S "--comment=two words" -- ${args}
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
file(STRINGS "${OUT}/slurm/submissions" lines)
list(GET lines -1 last)
if(NOT rc EQUAL 0 OR NOT o MATCHES "submitted shards: all 4 finished earlier; merge: job 1006"
   OR NOT last MATCHES "^job 1006 name=maxent-fig2a-merge array= dependency= ")
  fail("resubmission of a finished study (${rc}):\n${o}\n${e}")
endif()
expect_status(1006 ok)
compare_with_single()
message(STATUS "resubmitted: only the missing task ran again; a finished study only merged again")

# 3. Bad arguments: refused here, nothing submitted.
execute_process(COMMAND ${env} bash "${SCRIPT}" -n 2 -o typo -p "${PAPER}" -- fig2a --iterations 0
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
file(STRINGS "${OUT}/slurm/submissions" after)
list(LENGTH after n)
if(NOT rc EQUAL 2 OR NOT e MATCHES "--iterations: '0' is not a positive integer" OR NOT e MATCHES "nothing submitted"
   OR NOT n EQUAL 7)
  fail("bad arguments: exit ${rc}, ${n} submissions:\n${o}\n${e}")
endif()
message(STATUS "bad arguments refused before submitting")

# 4. Tasks that fail at run time (a file where the shard folder must go): the merge job is cancelled.
file(MAKE_DIRECTORY "${OUT}/failing")
file(WRITE "${OUT}/failing/fig2a.shard-1-of-2" "not a folder\n")
execute_process(COMMAND ${env} bash "${SCRIPT}" -n 2 -o failing -p "${PAPER}" -- fig2a --seeds 0-3 --iterations 20
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR EXISTS "${OUT}/failing/fig2a")
  fail("failing tasks: script ${rc}:\n${o}\n${e}")
endif()
expect_status(1007 failed)
expect_status(1008 cancelled)
file(READ "${OUT}/failing/slurm-1007_1.out" task_log)
if(NOT task_log MATCHES "--out")
  fail("failing task log:\n${task_log}")
endif()
message(STATUS "failing tasks: the merge job was cancelled (--kill-on-invalid-dep=yes)")

# 5. Threads: the affinity mask; shards with different thread counts merge with a note.
find_program(TASKSET taskset)
if(TASKSET)
  execute_process(COMMAND "${TASKSET}" -c 0 "${PAPER}" fig2a --seeds 0 --iterations 2 --no-plot --quiet --out pinned
                  WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0 OR NOT o MATCHES ", 1 threads\\)")
    fail("taskset -c 0: not 1 thread (${rc}):\n${o}\n${e}")
  endif()
endif()
foreach(i 1 2)
  execute_process(COMMAND "${PAPER}" fig2a --seeds 0-3 --iterations 5 --no-plot --quiet --out mixed --threads ${i}
                          --shard ${i}/2
                  WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    fail("shard ${i}/2 (${rc}):\n${o}\n${e}")
  endif()
endforeach()
execute_process(COMMAND "${PAPER}" merge mixed/fig2a.shard-1-of-2 mixed/fig2a.shard-2-of-2 --out mixed
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT o MATCHES "fig2a: note: the shards ran on different numbers of threads \\(1/2: 1, 2/2: 2\\)")
  fail("merge of shards with 1 and 2 threads (${rc}):\n${o}\n${e}")
endif()
message(STATUS "threads: 1 under taskset -c 0 and on a 1-CPU Slurm task; differing thread counts noted by the merge")
message(STATUS "slurm test passed")
