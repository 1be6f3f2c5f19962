# cmake/ExtractReadmeExample.cmake — writes one of the README's code examples to a .cpp file
# (cmake -P, run at build time whenever README.md changes).
#
# INPUT is a Markdown file containing exactly one block
#     <!-- readme-example:begin -->            (or, with NAME set, <!-- readme-example:NAME:begin -->)
#     ```cpp
#     ...code...
#     ```
#     <!-- readme-example:end -->              (or <!-- readme-example:NAME:end -->)
# The code between the fence lines is written to OUTPUT, preceded by a #line directive so
# compiler diagnostics point at the README's own lines.
cmake_minimum_required(VERSION 3.20)

foreach(var INPUT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "ExtractReadmeExample.cmake: ${var} is not set")
  endif()
endforeach()

if(DEFINED NAME AND NOT NAME STREQUAL "")
  set(tag "readme-example:${NAME}")
else()
  set(tag "readme-example")
endif()
set(begin_marker "<!-- ${tag}:begin -->")
set(end_marker "<!-- ${tag}:end -->")
file(READ "${INPUT}" text)

string(FIND "${text}" "${begin_marker}" begin)
string(FIND "${text}" "${end_marker}" end)
if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
  message(FATAL_ERROR "${INPUT}: no `${begin_marker}` ... `${end_marker}` block")
endif()
string(LENGTH "${begin_marker}" marker_length)
math(EXPR block_start "${begin} + ${marker_length}")
math(EXPR block_length "${end} - ${block_start}")
string(SUBSTRING "${text}" ${block_start} ${block_length} block)
string(FIND "${text}" "${begin_marker}" last_begin REVERSE)
if(NOT last_begin EQUAL begin)
  message(FATAL_ERROR "${INPUT}: more than one `${begin_marker}` block")
endif()

# The fenced code inside the block.
string(FIND "${block}" "```cpp\n" fence_open)
if(fence_open EQUAL -1)
  message(FATAL_ERROR "${INPUT}: the ${tag} block has no ```cpp fence")
endif()
math(EXPR code_start "${fence_open} + 7")
string(SUBSTRING "${block}" ${code_start} -1 after_open)
string(FIND "${after_open}" "\n```" fence_close)
if(fence_close EQUAL -1)
  message(FATAL_ERROR "${INPUT}: the ```cpp fence of the ${tag} block is not closed")
endif()
string(SUBSTRING "${after_open}" 0 ${fence_close} code)

# Line of the README where the code starts (1-based), for the #line directive.
math(EXPR code_offset "${block_start} + ${code_start}")
string(SUBSTRING "${text}" 0 ${code_offset} before)
string(REGEX REPLACE "[^\n]" "" newlines "${before}")
string(LENGTH "${newlines}" line)
math(EXPR line "${line} + 1")

file(TO_CMAKE_PATH "${INPUT}" input_path)
set(content "// Extracted from ${input_path} by cmake/ExtractReadmeExample.cmake. Do not edit.\n#line ${line} \"${input_path}\"\n${code}\n")
# Rewrite only when changed, so an unrelated README edit does not rebuild the example.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
