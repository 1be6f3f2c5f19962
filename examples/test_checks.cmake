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

# check_line_counts(DIR "NAME|LINES"...): every DIR/NAME has LINES lines.
function(check_line_counts dir)
  foreach(pair ${ARGN})
    string(REPLACE "|" ";" pair "${pair}")
    list(GET pair 0 f)
    list(GET pair 1 expected)
    file(STRINGS "${dir}/${f}" lines)
    list(LENGTH lines n)
    if(NOT n EQUAL expected)
      message(FATAL_ERROR "${dir}/${f} has ${n} lines, expected ${expected}")
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

# check_heatmap_scale(GP): the heatmap script GP draws all its panels on one colour scale:
# it states the top once (`cbmax = V`, `set cbrange [0:cbmax]`, no other cbrange), draws one
# colour bar, and V is the largest fraction in the data of all panels (the script's $heatN
# blocks: x y fraction per cell), so no panel has a scale of its own and none is cut off.
function(check_heatmap_scale gp)
  file(STRINGS "${gp}" stated REGEX "^cbmax = ")
  file(STRINGS "${gp}" ranges REGEX "cbrange")
  file(STRINGS "${gp}" bars REGEX "^set colorbox user ")
  list(LENGTH stated n_stated)
  list(LENGTH bars n_bars)
  if(NOT n_stated EQUAL 1 OR NOT ranges STREQUAL "set cbrange [0:cbmax]" OR NOT n_bars EQUAL 1)
    message(FATAL_ERROR "${gp}: not one colour scale stated once (cbmax lines '${stated}', cbrange lines "
                        "'${ranges}', ${n_bars} colour bars; expected one of each)")
  endif()
  string(REGEX REPLACE "^cbmax = " "" cbmax "${stated}")
  file(STRINGS "${gp}" cells REGEX "^[-+0-9.e]+ [-+0-9.e]+ [-+0-9.e]+$")
  set(top 0)
  foreach(cell IN LISTS cells)
    string(REGEX REPLACE "^.* " "" f "${cell}")
    if(f GREATER top)
      set(top "${f}")
    endif()
  endforeach()
  list(LENGTH cells n_cells)
  if(n_cells EQUAL 0 OR NOT cbmax EQUAL top)
    message(FATAL_ERROR "${gp}: cbmax = ${cbmax}, but the largest fraction of its ${n_cells} cells is ${top}")
  endif()
endfunction()
