# cmake/maxentBuildTypeNote.cmake — one warning when the project that uses maxent builds
# without optimisation and without saying so. maxent is templates: they compile in the
# consumer's targets with the consumer's flags, and a single-config build with no
# CMAKE_BUILD_TYPE compiles them with no -O at all (runs 4 to 28 times slower), silently.
# Included by the top-level CMakeLists.txt (also under a consumer's add_subdirectory) and by
# the installed maxentConfig.cmake (find_package), so it reads the including project's
# settings. Silent when a build type is set, with a multi-config generator, or when
# CMAKE_CXX_FLAGS or the directory's compile options already hold an optimisation flag
# (-O..., /O...), which is also how to choose -O0 on purpose. message(WARNING), not STATUS: a
# status line among the configure output went unseen; not AUTHOR_WARNING, which
# -Werror=dev would turn into an error.
get_property(_maxent_noted GLOBAL PROPERTY MAXENT_BUILD_TYPE_NOTED)
get_property(_maxent_multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
get_directory_property(_maxent_dir_options COMPILE_OPTIONS)
set(_maxent_flags " ${CMAKE_CXX_FLAGS} ${_maxent_dir_options} ")
string(REPLACE ";" " " _maxent_flags "${_maxent_flags}")
if(NOT _maxent_noted AND NOT _maxent_multi_config AND "${CMAKE_BUILD_TYPE}" STREQUAL ""
   AND NOT _maxent_flags MATCHES "[ \t](-O|/O[12xd])")
  set_property(GLOBAL PROPERTY MAXENT_BUILD_TYPE_NOTED TRUE)
  message(WARNING
    "maxent: no CMAKE_BUILD_TYPE and no -O flag in CMAKE_CXX_FLAGS: maxent's templates are "
    "compiled in your targets without optimisation, and training runs 4 to 28 times slower. "
    "Configure with -DCMAKE_BUILD_TYPE=Release (or RelWithDebInfo), or put an -O flag in "
    "CMAKE_CXX_FLAGS (-O0 too, to build unoptimised on purpose) to silence this.")
endif()
unset(_maxent_noted)
unset(_maxent_multi_config)
unset(_maxent_dir_options)
unset(_maxent_flags)
