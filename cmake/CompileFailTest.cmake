# cmake/CompileFailTest.cmake — test-time driver of one compile-fail test (cmake -P).
#
# SOURCE is a C++ file whose comment lines `// expect-error: <text>` give the text the
# compiler's diagnostics must contain. The file is compiled (syntax only) twice with the
# build's compiler, C++ standard flag, CMAKE_CXX_FLAGS and include directories (the
# project's include/ and Eigen's, from the imported target), read from SETTINGS:
#   1. with -DMAXENT_COMPILE_FAIL_CONTROL: must compile (the file's broken type gets back
#      its missing member, so nothing else in the file is wrong);
#   2. without it: must FAIL, and the output must contain every expected text; a line
#      `// expect-errors: N` also caps the number of "error:" diagnostics at N (one readable
#      message, not a cascade).
cmake_minimum_required(VERSION 3.20)

foreach(var SETTINGS SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFailTest.cmake: ${var} is not set")
  endif()
endforeach()
include("${SETTINGS}")  # MAXENT_CF_COMPILER, MAXENT_CF_FLAGS, MAXENT_CF_INCLUDES

file(STRINGS "${SOURCE}" expect_lines REGEX "^// expect-error: ")
if(NOT expect_lines)
  message(FATAL_ERROR "${SOURCE} has no `// expect-error: <text>` line")
endif()

set(command "${MAXENT_CF_COMPILER}" ${MAXENT_CF_FLAGS} -fsyntax-only)
list(REMOVE_DUPLICATES MAXENT_CF_INCLUDES)
list(REMOVE_ITEM MAXENT_CF_INCLUDES "")
foreach(dir IN LISTS MAXENT_CF_INCLUDES)
  list(APPEND command "-I${dir}")
endforeach()

# 1. control: the complete type compiles.
execute_process(COMMAND ${command} -DMAXENT_COMPILE_FAIL_CONTROL "${SOURCE}"
                RESULT_VARIABLE control_result OUTPUT_VARIABLE control_out ERROR_VARIABLE control_out)
if(NOT control_result EQUAL 0)
  message(FATAL_ERROR "the control build of ${SOURCE} (-DMAXENT_COMPILE_FAIL_CONTROL) does not "
                      "compile, so the test cannot tell what breaks it:\n${control_out}")
endif()

# 2. the broken type: compilation must fail with the readable message.
execute_process(COMMAND ${command} "${SOURCE}"
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must fail")
endif()
foreach(line IN LISTS expect_lines)
  string(REGEX REPLACE "^// expect-error: " "" expected "${line}")
  string(FIND "${out}" "${expected}" position)
  if(position EQUAL -1)
    message(FATAL_ERROR "${SOURCE} failed to compile as required, but the output lacks\n  ${expected}\n"
                        "compiler output:\n${out}")
  endif()
  message(STATUS "found: ${expected}")
endforeach()
file(STRINGS "${SOURCE}" cap_lines REGEX "^// expect-errors: [0-9]+$")
if(cap_lines)
  string(REGEX REPLACE "^// expect-errors: " "" cap "${cap_lines}")
  string(REGEX MATCHALL "error:" errors "${out}")
  list(LENGTH errors count)
  if(count GREATER cap)
    message(FATAL_ERROR "${SOURCE}: ${count} errors, expected at most ${cap}:\n${out}")
  endif()
  message(STATUS "errors: ${count} (at most ${cap})")
endif()
