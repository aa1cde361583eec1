# The weight types, read from their registry core/weight_types.def (one GAUNTLET_WEIGHT_TYPE(...)
# line a type; the C++ reads the same lines as an X-macro). Sets, for the kernel embedding and the
# codec sources:
#   GAUNTLET_WEIGHT_TYPES                 every type's name, in the registry's (ggml id) order
#   GAUNTLET_WEIGHT_TYPES_MATVEC_BLOCKS   the types whose Vulkan matvec is engine_matvec_blocks.glsl
#   GAUNTLET_WEIGHT_TYPE_CODECS           the codec sources, types/<codec>.cpp (relative to core/),
#                                         each once
#   GAUNTLET_WEIGHT_TYPE_ID_<name>        the type's ggml id
set(GAUNTLET_WEIGHT_TYPES_FILE "${CMAKE_CURRENT_LIST_DIR}/../core/weight_types.def")
get_filename_component(GAUNTLET_WEIGHT_TYPES_FILE "${GAUNTLET_WEIGHT_TYPES_FILE}" ABSOLUTE)
# A new line in the registry reconfigures the build.
set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${GAUNTLET_WEIGHT_TYPES_FILE}")

set(GAUNTLET_WEIGHT_TYPES)
set(GAUNTLET_WEIGHT_TYPES_MATVEC_BLOCKS)
set(GAUNTLET_WEIGHT_TYPE_CODECS)
file(STRINGS "${GAUNTLET_WEIGHT_TYPES_FILE}" gauntlet_type_lines REGEX "^GAUNTLET_WEIGHT_TYPE\\(")
foreach(line IN LISTS gauntlet_type_lines)
  if(NOT line MATCHES "^GAUNTLET_WEIGHT_TYPE\\(([^)]*)\\)[ \t]*$")
    message(FATAL_ERROR "core/weight_types.def: not one GAUNTLET_WEIGHT_TYPE(...) line: ${line}")
  endif()
  string(REGEX REPLACE "[ \t]" "" columns "${CMAKE_MATCH_1}")
  string(REPLACE "," ";" columns "${columns}")
  list(LENGTH columns n)
  if(NOT n EQUAL 6)
    message(FATAL_ERROR "core/weight_types.def: ${n} columns, not 6 "
      "(name, id, elements, bytes, codec, matvec): ${line}")
  endif()
  list(GET columns 0 name)
  list(GET columns 1 id)
  list(GET columns 4 codec)
  list(GET columns 5 matvec)
  if(NOT id MATCHES "^[0-9]+$")
    message(FATAL_ERROR "core/weight_types.def: ${name}'s id '${id}' is not a number")
  endif()
  if(name IN_LIST GAUNTLET_WEIGHT_TYPES)
    message(FATAL_ERROR "core/weight_types.def: ${name} is listed twice")
  endif()
  list(APPEND GAUNTLET_WEIGHT_TYPES "${name}")
  set(GAUNTLET_WEIGHT_TYPE_ID_${name} "${id}")
  list(APPEND GAUNTLET_WEIGHT_TYPE_CODECS "types/${codec}.cpp")
  if(matvec STREQUAL "blocks")
    list(APPEND GAUNTLET_WEIGHT_TYPES_MATVEC_BLOCKS "${name}")
  elseif(NOT matvec STREQUAL "tuned")
    message(FATAL_ERROR "core/weight_types.def: ${name}'s matvec '${matvec}' is neither tuned "
      "nor blocks")
  endif()
endforeach()
list(REMOVE_DUPLICATES GAUNTLET_WEIGHT_TYPE_CODECS)
