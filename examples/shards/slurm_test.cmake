# examples/shards/slurm_test.cmake — scripts/slurm-study.sh exercised end to end (cmake -P),
# with a stand-in `sbatch` (fake_sbatch.sh, first on PATH) that runs the array tasks at once
# on this machine, concurrently, and the merge job only if every task succeeded:
#   1. a 4-task array of fig2a (4 seeds, K = 20) and its merge give the same bytes as the
#      same command in one process;
#   2. a study whose tasks fail leaves the merge job never run (afterok) and nothing merged.
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
find_program(GNUPLOT gnuplot)
set(files runs.csv summary.csv config.json curves.gp)
if(GNUPLOT)
  list(APPEND files curves.png)
endif()

# The reference: the command each task runs, without --shard, in one process.
execute_process(COMMAND "${PAPER}" fig2a --seeds 0-3 --iterations 20 --threads 1 --out cluster --quiet
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "single process run failed (${rc}):\n${o}\n${e}")
endif()
file(RENAME "${OUT}/cluster/fig2a" "${OUT}/single")

# 1. The job array and the merge.
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${OUT}/bin:$ENV{PATH}" "FAKE_SLURM_STATE=${OUT}/slurm"
                        bash "${SCRIPT}" -n 4 -o cluster -p "${PAPER}" -s "--time=00:10:00"
                        -- fig2a --seeds 0-3 --iterations 20 --threads 1
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
message(STATUS "slurm-study.sh printed:\n${o}${e}")
if(NOT rc EQUAL 0 OR NOT o MATCHES "submitted shards: job array 1000 \\(tasks 1-4\\); merge: job 1001 \\(after all tasks succeed\\)")
  message(FATAL_ERROR "slurm-study.sh exited with ${rc}:\n${o}\n${e}")
endif()
file(READ "${OUT}/slurm/submissions" submissions)
if(NOT submissions STREQUAL "job 1000 array=1-4 dependency=\njob 1001 array= dependency=afterok:1000\n")
  message(FATAL_ERROR "unexpected submissions:\n${submissions}")
endif()
foreach(job 1000 1001)
  file(READ "${OUT}/slurm/${job}" status)
  if(NOT status STREQUAL "ok\n")
    file(GLOB logs "${OUT}/cluster/slurm-*.out")
    foreach(log ${logs})
      file(READ "${log}" text)
      message(STATUS "${log}:\n${text}")
    endforeach()
    message(FATAL_ERROR "job ${job}: ${status}")
  endif()
endforeach()
foreach(i 1 2 3 4)
  if(NOT EXISTS "${OUT}/cluster/fig2a.shard-${i}-of-4/runs.csv" OR NOT EXISTS "${OUT}/cluster/slurm-1000_${i}.out")
    message(FATAL_ERROR "array task ${i}: no shard folder or log")
  endif()
endforeach()
file(READ "${OUT}/cluster/slurm-merge-1001.out" merge_log)
if(NOT merge_log MATCHES "fig2a: merged 4 shards: 16 runs")
  message(FATAL_ERROR "merge log:\n${merge_log}")
endif()
foreach(f ${files})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}/single/${f}" "${OUT}/cluster/fig2a/${f}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cluster/fig2a/${f} differs from the single process's")
  endif()
endforeach()
string(REPLACE ";" ", " list "${files}")
message(STATUS "identical to the single process: ${list}")

# 2. Tasks that fail: the merge never runs.
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PATH=${OUT}/bin:$ENV{PATH}" "FAKE_SLURM_STATE=${OUT}/slurm"
                        bash "${SCRIPT}" -n 2 -o failing -p "${PAPER}" -- fig2a --seeds 0-3 --iterations 0
                WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
file(READ "${OUT}/slurm/1002" array_status)
file(READ "${OUT}/slurm/1003" merge_status)
if(NOT rc EQUAL 0 OR NOT array_status STREQUAL "failed\n" OR NOT merge_status STREQUAL "never\n"
   OR EXISTS "${OUT}/failing/fig2a")
  message(FATAL_ERROR "failing tasks: script ${rc}, array ${array_status}, merge ${merge_status}:\n${o}\n${e}")
endif()
file(READ "${OUT}/failing/slurm-1002_1.out" task_log)
if(NOT task_log MATCHES "--iterations: '0' is not a positive integer")
  message(FATAL_ERROR "failing task log:\n${task_log}")
endif()
message(STATUS "failing tasks: the merge job never ran (afterok)")
message(STATUS "slurm test passed")
