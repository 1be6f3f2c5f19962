# examples/shards/shards_test.cmake — a study split into shards and merged, cmake -P.
#   1. fig2a (4 seeds, K = 20) in one process, then as 4 shards in 4 separate processes, then
#      `maxent-paper merge`: runs.csv, summary.csv, config.json, curves.gp, curves.png and the
#      heatmaps (heatmap.csv, heatmap.gp, heatmap.png; the shards' visits.csv) must be the same
#      bytes as the single process's;
#   2. every refusal of the merge, with its message: settings that differ, builds that differ
#      (between shards, and from the merging program), overlapping shards, missing runs (listed
#      with the slice that holds them), a shard without visit counts, a folder that is not a shard;
#   3. resume: a study stopped by SIGTERM after some runs finished reruns only the missing
#      ones (a kept run whose build differs is trained again) and writes the same bytes, the
#      heatmaps too (kept runs carry their counts);
#   4. the same split and merge with maxent-explore on tiger (tests/data/classic).
# Variables: PAPER, EXPLORE (the binaries), OUT (a scratch directory), POMDP_DIR.
cmake_minimum_required(VERSION 3.20)
if(NOT PAPER OR NOT EXPLORE OR NOT OUT OR NOT DEFINED POMDP_DIR)
  message(FATAL_ERROR "shards_test.cmake needs -DPAPER=... -DEXPLORE=... -DOUT=... -DPOMDP_DIR=...")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
find_program(GNUPLOT gnuplot)

set(RUN_TIMEOUT 120)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/ProgramTestHelpers.cmake")  # run, same_files

# refused(<text> <command...>): exit status 1 and a message holding <text> (a regex).
function(refused text)
  run(1 o ${ARGN})
  if(NOT o MATCHES "${text}")
    message(FATAL_ERROR "the refusal does not say '${text}':\n${o}")
  endif()
  string(REGEX REPLACE "\n$" "" o "${o}")
  message(STATUS "refused as expected: ${o}")
endfunction()

set(explore_files runs.csv summary.csv config.json curves.gp)
if(GNUPLOT)
  list(APPEND explore_files curves.png)
endif()
set(files ${explore_files} heatmap.csv heatmap.gp)
if(GNUPLOT)
  list(APPEND files heatmap.png)
endif()

# --- 1. one process vs 4 shards + merge ------------------------------------------------------
set(args fig2a --seeds 0-3 --iterations 20 --threads 1 --out study --quiet)
run(0 o "${PAPER}" ${args})
file(RENAME "${OUT}/study/fig2a" "${OUT}/single")
foreach(i 1 2 3 4)
  run(0 o "${PAPER}" ${args} --shard ${i}/4)
  file(GLOB shard_files RELATIVE "${OUT}/study/fig2a.shard-${i}-of-4" "${OUT}/study/fig2a.shard-${i}-of-4/*")
  if(NOT shard_files STREQUAL "config.json;runs.csv;visits.csv")
    message(FATAL_ERROR "shard ${i}/4 holds '${shard_files}', expected config.json, runs.csv and visits.csv")
  endif()
  file(STRINGS "${OUT}/study/fig2a.shard-${i}-of-4/visits.csv" rows)
  list(LENGTH rows n)
  if(NOT n EQUAL 101)  # 4 runs x 25 states + header
    message(FATAL_ERROR "shard ${i}/4: visits.csv has ${n} lines, expected 101")
  endif()
  file(STRINGS "${OUT}/study/fig2a.shard-${i}-of-4/runs.csv" rows)
  list(LENGTH rows n)
  if(NOT n EQUAL 81)  # 4 runs x 20 iterations + header: 16 runs split evenly
    message(FATAL_ERROR "shard ${i}/4: runs.csv has ${n} lines, expected 81")
  endif()
endforeach()
file(GLOB work "${OUT}/study/.*")
if(work)
  message(FATAL_ERROR "work areas left after complete shards: ${work}")
endif()
run(0 o "${PAPER}" merge study/fig2a.shard-1-of-4 study/fig2a.shard-2-of-4 study/fig2a.shard-3-of-4
    study/fig2a.shard-4-of-4 --out study)
if(NOT o MATCHES "fig2a: merged 4 shards: 16 runs")
  message(FATAL_ERROR "merge output:\n${o}")
endif()
same_files("${OUT}/single" "${OUT}/study/fig2a" ${files})
file(READ "${OUT}/single/config.json" config)
foreach(key "\"build\": {\"maxent_version\": \"[^\"]+\", \"commit\": \"[0-9a-f]*\", \"compiler\": \"[^\"]+\""
            "\"eigen_max_align_bytes\": \"[0-9]+\"")
  if(NOT config MATCHES "${key}")
    message(FATAL_ERROR "config.json has no build fingerprint matching ${key}:\n${config}")
  endif()
endforeach()

# --- 2. refusals -------------------------------------------------------------------------------
# Settings that differ: shard 2/4 of a study with K = 21.
run(0 o "${PAPER}" fig2a --seeds 0-3 --iterations 21 --threads 1 --out other --quiet --shard 2/4)
refused("the shards are not of one study \\(their settings differ\\): 'iterations' is \"20\" in 'study/fig2a.shard-1-of-4' \\(shard 1/4\\) but \"21\" in 'other/fig2a.shard-2-of-4' \\(shard 2/4\\)"
        "${PAPER}" merge study/fig2a.shard-1-of-4 other/fig2a.shard-2-of-4 study/fig2a.shard-3-of-4
        study/fig2a.shard-4-of-4 --out merged)
# Overlap: shard 1/2 holds the runs of shards 1/4 and 3/4.
run(0 o "${PAPER}" ${args} --shard 1/2)
refused("the shards overlap: 8 run\\(s\\) are in more than one: \\(mse, seed 0\\) is in 'study/fig2a.shard-1-of-2' \\(shard 1/2\\) and 'study/fig2a.shard-1-of-4' \\(shard 1/4\\)"
        "${PAPER}" merge study/fig2a.shard-1-of-2 study/fig2a.shard-1-of-4 study/fig2a.shard-2-of-4
        study/fig2a.shard-3-of-4 study/fig2a.shard-4-of-4 --out merged)
# ... while 1/2 with 2/4 and 4/4 is the whole study again, and merges to the same bytes.
run(0 o "${PAPER}" merge study/fig2a.shard-2-of-4 study/fig2a.shard-1-of-2 study/fig2a.shard-4-of-4 --out mixed)
same_files("${OUT}/single" "${OUT}/mixed/fig2a" ${files})
# Missing runs: without shard 3/4, seed 2 of every curve is missing.
refused("runs missing: 4 of 16 runs are in none of the shards: mse seed 2; moe seed 2; mbe seed 2; reg-mbe seed 2 \\(--shard 3/4\\)"
        "${PAPER}" merge study/fig2a.shard-1-of-4 study/fig2a.shard-2-of-4 study/fig2a.shard-4-of-4 --out merged)
# Builds that differ: one shard's config.json says another compiler ...
file(COPY "${OUT}/study/fig2a.shard-4-of-4" DESTINATION "${OUT}/rebuilt")
file(READ "${OUT}/rebuilt/fig2a.shard-4-of-4/config.json" config)
string(REGEX REPLACE "\"compiler\": \"[^\"]*\"" "\"compiler\": \"gcc 99.0 (another build)\"" config "${config}")
file(WRITE "${OUT}/rebuilt/fig2a.shard-4-of-4/config.json" "${config}")
refused("the shards come from builds whose floating-point results could differ: 'compiler' is \"[^\"]+\" in 'study/fig2a.shard-1-of-4' \\(shard 1/4\\) but \"gcc 99.0 \\(another build\\)\" in 'rebuilt/fig2a.shard-4-of-4' \\(shard 4/4\\)"
        "${PAPER}" merge study/fig2a.shard-1-of-4 study/fig2a.shard-2-of-4 study/fig2a.shard-3-of-4
        rebuilt/fig2a.shard-4-of-4 --out merged)
# ... or all shards come from a build with other floating-point flags than the merging program.
foreach(i 1 2 3 4)
  file(COPY "${OUT}/study/fig2a.shard-${i}-of-4" DESTINATION "${OUT}/fastmath")
  file(READ "${OUT}/fastmath/fig2a.shard-${i}-of-4/config.json" config)
  string(REGEX REPLACE "\"floating_point\": \"([^\"]*)\"" "\"floating_point\": \"\\1 fast-math\"" config "${config}")
  file(WRITE "${OUT}/fastmath/fig2a.shard-${i}-of-4/config.json" "${config}")
endforeach()
refused("the shards come from builds whose floating-point results could differ: 'floating_point' is \"[^\"]* fast-math\" in 'fastmath/fig2a.shard-1-of-4' \\(shard 1/4\\) but \"[^\"]*\" in this maxent-paper; merge with the maxent-paper that ran the shards"
        "${PAPER}" merge fastmath/fig2a.shard-1-of-4 fastmath/fig2a.shard-2-of-4 fastmath/fig2a.shard-3-of-4
        fastmath/fig2a.shard-4-of-4 --out merged)
# A shard whose runs.csv lost its last row (a run cut short).
file(COPY "${OUT}/study/fig2a.shard-4-of-4" DESTINATION "${OUT}/cut")
file(STRINGS "${OUT}/cut/fig2a.shard-4-of-4/runs.csv" rows)
list(REMOVE_AT rows -1)
list(JOIN rows "\n" text)
file(WRITE "${OUT}/cut/fig2a.shard-4-of-4/runs.csv" "${text}\n")
refused("'cut/fig2a.shard-4-of-4' \\(shard 4/4\\): run \\(reg-mbe, seed 3\\) has 19 iterations, not 20"
        "${PAPER}" merge study/fig2a.shard-1-of-4 study/fig2a.shard-2-of-4 study/fig2a.shard-3-of-4
        cut/fig2a.shard-4-of-4 --out merged)
# A shard without its visit counts (as written before heatmaps): refused, naming the file.
file(COPY "${OUT}/study/fig2a.shard-2-of-4" DESTINATION "${OUT}/novisits")
file(REMOVE "${OUT}/novisits/fig2a.shard-2-of-4/visits.csv")
refused("'novisits/fig2a.shard-2-of-4' \\(shard 2/4\\): no 'novisits/fig2a.shard-2-of-4/visits.csv': the study counts the final policies' visits \\(--heatmap-episodes 100\\)"
        "${PAPER}" merge study/fig2a.shard-1-of-4 novisits/fig2a.shard-2-of-4 study/fig2a.shard-3-of-4
        study/fig2a.shard-4-of-4 --out merged)
# A folder that is not a shard: a whole study's output.
refused("'single' is not a shard folder \\(its config.json has no \"shard\" section"
        "${PAPER}" merge single --out merged)
if(EXISTS "${OUT}/merged")
  message(FATAL_ERROR "a refused merge wrote ${OUT}/merged")
endif()
# A bad --shard value: exit 2, naming it.
run(2 o "${PAPER}" fig2a --shard 5/4 --out bad)
if(NOT o MATCHES "--shard: '5/4' is not a shard I/N")
  message(FATAL_ERROR "--shard 5/4:\n${o}")
endif()

# --- 3. resume ------------------------------------------------------------------------------------
# Reference: the study uninterrupted (same arguments, so config.json matches too).
set(rargs fig2a --seeds 0-1 --iterations 2000 --threads 1 --out resume --quiet --no-plot)
run(0 o "${PAPER}" ${rargs})
file(RENAME "${OUT}/resume/fig2a" "${OUT}/resume-reference")
# Stopped by SIGTERM once at least two runs have finished (their files are in the work area).
string(REPLACE ";" " " rargs_text "${rargs}")
# (No ';' in the script: CMake would split the argument there.)
run(143 o sh -c "\"$0\" ${rargs_text} &
p=$!
n=0
while [ \"$(ls resume/.fig2a.runs/*.run 2>/dev/null | wc -l)\" -lt 2 ] && [ $n -lt 3000 ]
do
  sleep 0.01
  n=$((n + 1))
done
kill -TERM $p
wait $p" "${PAPER}")
if(NOT o MATCHES "the finished runs stay in resume/.fig2a.runs")
  message(FATAL_ERROR "SIGTERM: no word of the finished runs kept:\n${o}")
endif()
file(GLOB kept "${OUT}/resume/.fig2a.runs/*.run")
list(LENGTH kept n_kept)
if(n_kept LESS 2 OR n_kept EQUAL 8)
  message(FATAL_ERROR "SIGTERM: ${n_kept} runs kept, expected 2 to 7 of the 8")
endif()
# A kept run of another build is not reused: mark one as such.
list(GET kept 0 other_build)
file(READ "${other_build}" text)
string(REGEX REPLACE "\nbuild [^\n]*" "\nbuild {\"compiler\": \"another\"}" text "${text}")
file(WRITE "${other_build}" "${text}")
math(EXPR n_reused "${n_kept} - 1")
run(0 o "${PAPER}" ${rargs})
if(NOT o MATCHES "reused ${n_reused} finished runs? from resume/.fig2a.runs")
  message(FATAL_ERROR "rerun: expected ${n_reused} runs reused:\n${o}")
endif()
if(NOT o MATCHES "trained ([0-9]+) iterations")
  message(FATAL_ERROR "rerun output:\n${o}")
endif()
math(EXPR expected_iterations "(8 - ${n_reused}) * 2000")
if(NOT CMAKE_MATCH_1 EQUAL expected_iterations)
  message(FATAL_ERROR "rerun trained ${CMAKE_MATCH_1} iterations, expected ${expected_iterations} (${n_reused} reused)")
endif()
message(STATUS "resume: ${n_kept} runs kept by the stopped study, ${n_reused} reused (one marked as another build's)")
same_files("${OUT}/resume-reference" "${OUT}/resume/fig2a" runs.csv summary.csv config.json curves.gp heatmap.csv heatmap.gp)
if(EXISTS "${OUT}/resume/.fig2a.runs")
  message(FATAL_ERROR "the work area is left after the study completed")
endif()

# --- 3b. the README's GNU parallel one-liner, when GNU parallel is installed ---------------------
find_program(PARALLEL parallel)
if(PARALLEL)
  get_filename_component(bin "${PAPER}" DIRECTORY)
  run(0 o ${CMAKE_COMMAND} -E env "PATH=${bin}:$ENV{PATH}" sh -c
      "parallel --will-cite -j4 maxent-paper fig2a --seeds 0-3 --iterations 20 --threads 1 --out gnu --quiet --shard {}/4 ::: 1 2 3 4 && maxent-paper merge gnu/fig2a.shard-*-of-4 --out gnu")
  # Its command line has --out gnu: compare all but config.json's command line.
  same_files("${OUT}/single" "${OUT}/gnu/fig2a" runs.csv summary.csv curves.gp heatmap.csv heatmap.gp)
  file(READ "${OUT}/single/config.json" a)
  file(READ "${OUT}/gnu/fig2a/config.json" b)
  string(REPLACE "--out study" "--out gnu" a "${a}")
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "GNU parallel: config.json differs from the single process's beyond --out")
  endif()
else()
  message(STATUS "GNU parallel part skipped: no parallel on PATH")
endif()

# --- 4. maxent-explore ------------------------------------------------------------------------
set(tiger "${POMDP_DIR}/tiger.95.POMDP")
if(NOT EXISTS "${tiger}")
  message(FATAL_ERROR "shards test: no ${tiger}")
endif()
set(eargs "${tiger}" --seeds 0-3 --iterations 20 --threads 1 --out explore --quiet)
run(0 o "${EXPLORE}" ${eargs})
file(RENAME "${OUT}/explore/tiger.95" "${OUT}/explore-single")
foreach(i 1 2 3 4)
  run(0 o "${EXPLORE}" ${eargs} --shard ${i}/4)
endforeach()
run(0 o "${EXPLORE}" merge explore/tiger.95.shard-1-of-4 explore/tiger.95.shard-2-of-4 explore/tiger.95.shard-3-of-4
    explore/tiger.95.shard-4-of-4 --out explore)
same_files("${OUT}/explore-single" "${OUT}/explore/tiger.95" ${explore_files})
refused("runs missing: 2 of 8 runs are in none of the shards: mse seed 3; mbe seed 3 \\(--shard 4/4\\)"
        "${EXPLORE}" merge explore/tiger.95.shard-1-of-4 explore/tiger.95.shard-2-of-4 explore/tiger.95.shard-3-of-4
        --out explore-merged)
# A shard of the other program.
refused("'explore/tiger.95.shard-1-of-4' is a shard of maxent-explore, not of maxent-paper"
        "${PAPER}" merge explore/tiger.95.shard-1-of-4 --out explore-merged)
message(STATUS "shards test passed")
