# cmake/RunPackageTest.cmake — test-time driver of the package tests (cmake -P).
#
# MODE=install:  installs the build tree BUILD_DIR (configuration CONFIG) into a fresh
#                PREFIX and checks that the package files are there (CMAKEDIR and
#                INCLUDEDIR: the install destinations relative to the prefix).
# MODE=consumer: configures, builds and runs (through its own ctest) the consumer project
#                SOURCE_DIR in a fresh BINARY_DIR, with the parent's generator, compiler,
#                compiler flags and build type. CONSUMER_ARGS is a '|'-separated list of
#                extra -D arguments (e.g. the install prefix or the maxent source tree).
# MODE=build-type: configures (only) the consumer project SOURCE_DIR in fresh folders under
#                BINARY_DIR, as a user would with no build type, and checks maxent's warning
#                about it (cmake/maxentBuildTypeNote.cmake): printed once, also under
#                -Werror=dev (configure succeeds), when neither a build type nor an -O flag is
#                given; absent with -DCMAKE_BUILD_TYPE=Release, with CMAKE_CXX_FLAGS=-O2 and,
#                where the generator is Ninja, with Ninja Multi-Config. CASES: a '|'-separated
#                subset of none|release|flags|multi (default all).
# The project's warning flags live on a private target and are never passed here.
cmake_minimum_required(VERSION 3.20)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "command failed (${result}): ${command}")
  endif()
endfunction()

if(MODE STREQUAL "install")
  foreach(var BUILD_DIR PREFIX CMAKEDIR INCLUDEDIR)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "RunPackageTest.cmake: ${var} is not set")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${PREFIX}")
  set(config_args)
  if(CONFIG)
    set(config_args --config "${CONFIG}")
  endif()
  run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${config_args})
  foreach(expected
      ${CMAKEDIR}/maxentConfig.cmake
      ${CMAKEDIR}/maxentConfigVersion.cmake
      ${CMAKEDIR}/maxentTargets.cmake
      ${CMAKEDIR}/maxentBuildTypeNote.cmake
      ${INCLUDEDIR}/maxent/model/concepts.hpp
      ${INCLUDEDIR}/maxent/belief/concepts.hpp
      ${INCLUDEDIR}/maxent/core/optional_members.hpp
      ${INCLUDEDIR}/maxent/model/finite_pomdp.hpp)
    if(NOT EXISTS "${PREFIX}/${expected}")
      message(FATAL_ERROR "the install tree lacks ${expected}")
    endif()
  endforeach()
  message(STATUS "installed maxent into ${PREFIX}")

elseif(MODE STREQUAL "consumer")
  foreach(var SOURCE_DIR BINARY_DIR GENERATOR CXX_COMPILER)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "RunPackageTest.cmake: ${var} is not set")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${BINARY_DIR}")
  set(configure_args -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
      "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
  if(MAKE_PROGRAM)
    list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  if(GENERATOR_PLATFORM)
    list(APPEND configure_args -A "${GENERATOR_PLATFORM}")
  endif()
  if(GENERATOR_TOOLSET)
    list(APPEND configure_args -T "${GENERATOR_TOOLSET}")
  endif()
  if(CONFIG)
    list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
  endif()
  if(CONSUMER_ARGS)
    string(REPLACE "|" ";" extra "${CONSUMER_ARGS}")
    list(APPEND configure_args ${extra})
  endif()
  run("${CMAKE_COMMAND}" ${configure_args})

  set(config_args)
  if(CONFIG)
    set(config_args --config "${CONFIG}")
  endif()
  run("${CMAKE_COMMAND}" --build "${BINARY_DIR}" ${config_args})

  set(ctest_config)
  if(CONFIG)
    set(ctest_config -C "${CONFIG}")
  endif()
  get_filename_component(cmake_bin_dir "${CMAKE_COMMAND}" DIRECTORY)
  find_program(CTEST_EXECUTABLE ctest HINTS "${cmake_bin_dir}" NO_DEFAULT_PATH)
  if(NOT CTEST_EXECUTABLE)
    find_program(CTEST_EXECUTABLE ctest REQUIRED)
  endif()
  run("${CTEST_EXECUTABLE}" --test-dir "${BINARY_DIR}" ${ctest_config} --output-on-failure -V)

elseif(MODE STREQUAL "build-type")
  foreach(var SOURCE_DIR BINARY_DIR GENERATOR CXX_COMPILER)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "RunPackageTest.cmake: ${var} is not set")
    endif()
  endforeach()
  set(extra)
  if(CONSUMER_ARGS)
    string(REPLACE "|" ";" extra "${CONSUMER_ARGS}")
  endif()
  if(MAKE_PROGRAM)
    list(APPEND extra "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  if(CASES)
    string(REPLACE "|" ";" cases "${CASES}")
  else()
    set(cases none release flags multi)
  endif()
  set(note "maxent: no CMAKE_BUILD_TYPE and no -O flag")
  foreach(case IN LISTS cases)
    set(generator "${GENERATOR}")
    set(args -Werror=dev "-DCMAKE_CXX_FLAGS=")
    set(want 1)
    if(case STREQUAL "release")
      set(args -Werror=dev -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=")
      set(want 0)
    elseif(case STREQUAL "flags")
      set(args -Werror=dev "-DCMAKE_CXX_FLAGS=-O2")
      set(want 0)
    elseif(case STREQUAL "multi")
      if(NOT GENERATOR STREQUAL "Ninja")
        message(STATUS "${case}: skipped (the parent's generator is ${GENERATOR}, not Ninja)")
        continue()
      endif()
      set(generator "Ninja Multi-Config")
      set(want 0)
    elseif(NOT case STREQUAL "none")
      message(FATAL_ERROR "RunPackageTest.cmake: unknown case '${case}' in CASES")
    endif()
    set(dir "${BINARY_DIR}/${case}")
    file(REMOVE_RECURSE "${dir}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${dir}" -G "${generator}"
                            "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" ${args} ${extra}
                    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(all "${out}${err}")
    string(REPLACE "\n" " " flat "${all}")
    string(REGEX REPLACE "[ ]+" " " flat "${flat}")
    string(REGEX MATCHALL "${note}" hits "${flat}")
    list(LENGTH hits n)
    if(NOT result EQUAL 0 OR NOT n EQUAL want)
      message(FATAL_ERROR "${case}: configure exited ${result} and printed maxent's build-type "
                          "warning ${n} times, expected exit 0 and ${want} times:\n${all}")
    endif()
    if(want)
      string(REGEX MATCH "CMake Warning[^\n]*\n( +[^\n]*\n)+" block "${err}")
      message(STATUS "${case}: no build type, no -O flag (with -Werror=dev): configured, and warned:\n${block}")
    else()
      message(STATUS "${case}: configured, no warning")
    endif()
  endforeach()

else()
  message(FATAL_ERROR "RunPackageTest.cmake: MODE must be install, consumer or build-type, not '${MODE}'")
endif()
