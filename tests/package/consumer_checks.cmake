# tests/package/consumer_checks.cmake — checks shared by both package consumers, run at
# configure time after maxent::maxent exists: the target carries no compile options and
# no link to the project's private warning target (a consumer never sees the project's
# warning flags), and it asks for C++20 as a compile feature.
get_target_property(_maxent_options maxent::maxent INTERFACE_COMPILE_OPTIONS)
if(_maxent_options)
  message(FATAL_ERROR "maxent::maxent leaks compile options to consumers: ${_maxent_options}")
endif()
get_target_property(_maxent_libs maxent::maxent INTERFACE_LINK_LIBRARIES)
if(_maxent_libs MATCHES "warnings")
  message(FATAL_ERROR "maxent::maxent links the project's warning target: ${_maxent_libs}")
endif()
if(NOT _maxent_libs MATCHES "Eigen3::Eigen")
  message(FATAL_ERROR "maxent::maxent does not link Eigen3::Eigen: ${_maxent_libs}")
endif()
get_target_property(_maxent_features maxent::maxent INTERFACE_COMPILE_FEATURES)
if(NOT "cxx_std_20" IN_LIST _maxent_features)
  message(FATAL_ERROR "maxent::maxent does not require cxx_std_20: ${_maxent_features}")
endif()
