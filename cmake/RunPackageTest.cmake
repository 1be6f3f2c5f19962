# cmake/RunPackageTest.cmake — test-time driver of the package tests (cmake -P).
#
# MODE=install:  installs the build tree BUILD_DIR (configuration CONFIG) into a fresh
#                PREFIX and checks that the package files are there (CMAKEDIR and
#                INCLUDEDIR: the install destinations relative to the prefix).
# MODE=consumer: configures, builds and runs (through its own ctest) the consumer project
#                SOURCE_DIR in a fresh BINARY_DIR, with the parent's generator, compiler,
#                compiler flags and build type. CONSUMER_ARGS is a '|'-separated list of
#                extra -D arguments (e.g. the install prefix or the maxent source tree).
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

else()
  message(FATAL_ERROR "RunPackageTest.cmake: MODE must be install or consumer, not '${MODE}'")
endif()
