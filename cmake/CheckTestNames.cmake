# cmake/CheckTestNames.cmake — every Catch2 test case must reach CTest (cmake -P).
# catch_discover_tests cuts a test name at ';' (a CMake list separator) and Catch treats a
# name starting with "--" as an option, so such a test silently runs nothing under ctest.
# DIR: the folder whose */*.cpp files are checked.
cmake_minimum_required(VERSION 3.20)
if(NOT DIR)
  message(FATAL_ERROR "CheckTestNames.cmake needs -DDIR=...")
endif()
file(GLOB_RECURSE sources "${DIR}/*.cpp")
set(bad "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "TEST_CASE\\(\"")
  foreach(line IN LISTS lines)
    if(line MATCHES "TEST_CASE\\(\"--")
      string(APPEND bad "\n  ${source}: a name starting with --: ${line}")
    endif()
  endforeach()
  # file(STRINGS) already split the lines at ';': look for them in the raw text instead.
  file(READ "${source}" text)
  string(REGEX MATCHALL "TEST_CASE\\(\"[^\"\n]*;[^\"\n]*\"" hits "${text}")
  foreach(hit IN LISTS hits)
    string(APPEND bad "\n  ${source}: a name with ';': ${hit}")
  endforeach()
endforeach()
list(LENGTH sources n)
if(bad)
  message(FATAL_ERROR "test names CTest cannot run:${bad}")
endif()
message(STATUS "${n} test sources: every TEST_CASE name reaches CTest")
