# Writes a header that embeds INPUT as SYMBOL. MODE=text: a char array of the file's bytes, each
# line `#include "NAME"` replaced by the text of the file NAME beside INPUT (an OpenCL program is
# built from strings, with no file system to include from: the block decoders share
# core/kernels/types/iq_tables.cl this way); MODE=spirv: the comma-separated words that
# `glslc -mfmt=num` printed.
if(MODE STREQUAL "text")
  file(READ "${INPUT}" text)
  get_filename_component(dir "${INPUT}" DIRECTORY)
  string(REGEX MATCHALL "(^|\n)#include \"[^\"]+\"" include_lines "${text}")
  foreach(line IN LISTS include_lines)
    string(REGEX REPLACE "^\n?#include \"([^\"]+)\"$" "\\1" name "${line}")
    string(STRIP "${line}" directive)
    file(READ "${dir}/${name}" included)
    string(REPLACE "${directive}" "${included}" text "${text}")
  endforeach()
  string(HEX "${text}" hex)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  string(CONCAT body "inline constexpr char ${SYMBOL}_bytes[] = {${bytes} 0};\n"
           "inline constexpr std::string_view ${SYMBOL}{${SYMBOL}_bytes, sizeof(${SYMBOL}_bytes) - 1};\n")
  set(includes "#include <string_view>\n")
else()
  file(READ "${INPUT}" words)
  string(CONCAT body "inline constexpr uint32_t ${SYMBOL}_words[] = {\n${words}};\n"
           "inline constexpr std::span<const uint32_t> ${SYMBOL}{${SYMBOL}_words};\n")
  set(includes "#include <cstdint>\n#include <span>\n")
endif()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT}; do not edit.\n#pragma once\n${includes}\n"
     "namespace gauntlet::kernels {\n" "${body}" "}  // namespace gauntlet::kernels\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
