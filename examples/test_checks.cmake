# examples/test_checks.cmake — checks that the programs' end-to-end tests (cmake -P
# scripts) share; they include() it.

# require_files(DIR NAME...): every DIR/NAME exists.
function(require_files dir)
  foreach(f ${ARGN})
    if(NOT EXISTS "${dir}/${f}")
      message(FATAL_ERROR "missing ${dir}/${f}")
    endif()
  endforeach()
endfunction()

# check_csv(FILE HEADER LINES [FIRST_ROW_REGEX]): FILE's first line is HEADER, it has LINES
# lines, and its second line matches FIRST_ROW_REGEX when given.
function(check_csv file header lines)
  file(STRINGS "${file}" rows)
  list(LENGTH rows n)
  list(GET rows 0 first)
  get_filename_component(name "${file}" NAME)
  if(NOT first STREQUAL "${header}")
    message(FATAL_ERROR "${name} header is '${first}'")
  endif()
  if(NOT n EQUAL ${lines})
    message(FATAL_ERROR "${name} has ${n} lines, expected ${lines}")
  endif()
  if(ARGC GREATER 3)
    list(GET rows 1 row)
    if(NOT row MATCHES "${ARGV3}")
      message(FATAL_ERROR "unexpected first ${name} row '${row}'")
    endif()
  endif()
endfunction()

# require_matches(TEXT WHAT REGEX...): TEXT (named WHAT in the message) matches every REGEX.
function(require_matches text what)
  foreach(re ${ARGN})
    if(NOT text MATCHES "${re}")
      message(FATAL_ERROR "${what} does not match '${re}':\n${text}")
    endif()
  endforeach()
endfunction()
