# cmake/ProgramTestHelpers.cmake — helpers of the programs' cmake -P tests (include()d).
# Expects OUT, the scratch directory the commands run in.

# run(<expected exit status> <output variable> <command...>): runs in ${OUT} (at most
# ${RUN_TIMEOUT} seconds, 300 unless set), checks the status, returns stdout and stderr.
function(run expected var)
  if(NOT RUN_TIMEOUT)
    set(RUN_TIMEOUT 300)
  endif()
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e
                  TIMEOUT ${RUN_TIMEOUT})
  if(NOT rc STREQUAL "${expected}")
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "'${cmd}' exited with ${rc}, expected ${expected}:\n${o}\n${e}")
  endif()
  set(${var} "${o}${e}" PARENT_SCOPE)
endfunction()

# same_files(<dir a> <dir b> <file...>): byte for byte.
function(same_files a b)
  foreach(f ${ARGN})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${a}/${f}" "${b}/${f}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${a}/${f} and ${b}/${f} differ")
    endif()
  endforeach()
  string(REPLACE ";" ", " list "${ARGN}")
  message(STATUS "identical: ${list} (${a} vs ${b})")
endfunction()
