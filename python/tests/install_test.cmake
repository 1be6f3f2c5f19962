# python/tests/install_test.cmake — `cmake --install` puts the package into a given site-packages,
# from where a fresh interpreter imports it.
#   cmake -DBUILD=<build dir> -DPYTHON=<interpreter> -DOUT=<scratch dir> -P install_test.cmake
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --component python --prefix "${OUT}/prefix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB_RECURSE modules "${OUT}/prefix/*_core*.so")
list(LENGTH modules n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one installed module maxent/_core*.so under ${OUT}/prefix, found: ${modules}")
endif()
get_filename_component(package "${modules}" DIRECTORY)
get_filename_component(site "${package}" DIRECTORY)
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${site}"
                        "${PYTHON}" -c "import maxent, sys; print(maxent.__file__); m = maxent.grid_world(3, 3); print(m)"
                WORKING_DIRECTORY "${OUT}"  # not the build tree's python/, which holds the built module
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "${site}")
  message(FATAL_ERROR "import from ${site} failed (${rc}):\n${out}\n${err}")
endif()
message(STATUS "installed and imported: ${out}")
