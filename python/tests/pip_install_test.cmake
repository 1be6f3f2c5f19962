# python/tests/pip_install_test.cmake — `pip install --no-build-isolation` of the package into a
# fresh virtual environment (with the system's site-packages: numpy, setuptools, wheel), offline,
# reusing the build tree's compiled module (MAXENT_PIP_BUILD_DIR); then a fresh interpreter of
# the environment imports it from there and trains.
#   cmake -DBUILD=<build dir> -DPYTHON=<interpreter> -DSOURCE=<repository> -DOUT=<scratch dir> -P pip_install_test.cmake
file(REMOVE_RECURSE "${OUT}")
# What pip needs of the repository (a copy, so that the build leaves nothing in the source tree).
file(MAKE_DIRECTORY "${OUT}/src/python")
file(COPY "${SOURCE}/setup.py" "${SOURCE}/pyproject.toml" "${SOURCE}/README.md" "${SOURCE}/LICENSE" DESTINATION "${OUT}/src")
file(COPY "${SOURCE}/python/maxent" DESTINATION "${OUT}/src/python")
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY "${OUT}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run("venv" "${PYTHON}" -m venv --system-site-packages "${OUT}/venv")
run("pip install" "${CMAKE_COMMAND}" -E env "MAXENT_PIP_BUILD_DIR=${BUILD}" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
    "${OUT}/venv/bin/python" -m pip install --no-build-isolation --no-deps "${OUT}/src")
run("import" "${OUT}/venv/bin/python" -c
    "import maxent\nprint(maxent.__file__)\nr = maxent.train(maxent.grid_world(3, 3), None, maxent.BeliefAveragedPolicy(9, 4), iterations=3)\nprint(r.iterations)")  # no ';': ARGN would split there
if(NOT out MATCHES "${OUT}/venv/lib/python[0-9.]+/site-packages/maxent/__init__.py\n3\n")
  message(FATAL_ERROR "the package was not imported from the virtual environment:\n${out}")
endif()
file(GLOB stubs "${OUT}/venv/lib/python*/site-packages/maxent/__init__.pyi")
if(NOT stubs)
  message(FATAL_ERROR "the type stubs were not installed")
endif()
message(STATUS "pip-installed and imported: ${out}")
