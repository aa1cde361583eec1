# Kernels are files: OpenCL C (.cl) is embedded as text, GLSL compute (.comp) is compiled to
# SPIR-V by glslc at build time and embedded as words. Both land only in the build tree, as one
# header per kernel file: <stem>_cl.h defines gauntlet::kernels::<stem>_cl (a string_view) and
# <stem>_comp.h defines gauntlet::kernels::<stem>_comp (a span of SPIR-V words).
#
#   gauntlet_add_kernels(<target> [CL file.cl ...] [COMP file.comp ...])

set(GAUNTLET_KERNEL_OUT "${CMAKE_BINARY_DIR}/generated")
include("${CMAKE_CURRENT_LIST_DIR}/weight_types.cmake")
set(GAUNTLET_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake")

# Writes a header without SPIR-V: PATH gets the declaration DECLARATION (one line of C++) unless it
# holds it already, so that a reconfigure does not rebuild what includes it.
function(gauntlet_write_empty_spirv path declaration)
  file(WRITE "${path}.in"
    "// No SPIR-V: this build has no Vulkan backend (glslc was not looked for).\n"
    "#pragma once\n#include <cstdint>\n#include <span>\n"
    "namespace gauntlet::kernels {\n" "${declaration}\n" "}  // namespace gauntlet::kernels\n")
  configure_file("${path}.in" "${path}" COPYONLY)
endfunction()

function(gauntlet_add_kernels target)
  cmake_parse_arguments(K "" "" "CL;COMP" ${ARGN})
  set(headers)
  foreach(src IN LISTS K_CL)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    set(out "${GAUNTLET_KERNEL_OUT}/kernels/${stem}_cl.h")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -DMODE=text -DINPUT=${abs} -DOUTPUT=${out} -DSYMBOL=${stem}_cl
              -P "${GAUNTLET_EMBED_SCRIPT}"
      DEPENDS "${abs}" "${GAUNTLET_EMBED_SCRIPT}"
      COMMENT "Embedding OpenCL kernel ${stem}.cl")
    list(APPEND headers "${out}")
  endforeach()
  if(K_COMP AND NOT GLSLC_EXECUTABLE)
    # A build without Vulkan has no glslc: every .comp gets an empty SPIR-V span, which only the
    # Vulkan backend would read, and which it refuses by name (VulkanDevice::do_build).
    foreach(src IN LISTS K_COMP)
      get_filename_component(stem "${src}" NAME_WE)
      gauntlet_write_empty_spirv("${GAUNTLET_KERNEL_OUT}/kernels/${stem}_comp.h"
        "inline constexpr std::span<const uint32_t> ${stem}_comp{};")
    endforeach()
    set(K_COMP "")
  endif()
  foreach(src IN LISTS K_COMP)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    # A .comp may #include the .glsl files beside it.
    get_filename_component(dir "${abs}" DIRECTORY)
    file(GLOB includes "${dir}/*.glsl" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../core/kernels/types/*.glsl")
    set(words "${GAUNTLET_KERNEL_OUT}/kernels/${stem}.spv.inc")
    set(out "${GAUNTLET_KERNEL_OUT}/kernels/${stem}_comp.h")
    add_custom_command(
      OUTPUT "${words}"
      COMMAND ${GLSLC_EXECUTABLE} --target-env=vulkan1.2 -O -mfmt=num -o "${words}" "${abs}"
      DEPENDS "${abs}" ${includes}
      COMMENT "Compiling GLSL kernel ${stem}.comp to SPIR-V")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -DMODE=spirv -DINPUT=${words} -DOUTPUT=${out} -DSYMBOL=${stem}_comp
              -P "${GAUNTLET_EMBED_SCRIPT}"
      DEPENDS "${words}" "${GAUNTLET_EMBED_SCRIPT}"
      COMMENT "Embedding SPIR-V of ${stem}.comp")
    list(APPEND headers "${out}")
  endforeach()
  target_sources(${target} PRIVATE ${headers})
  target_include_directories(${target} PUBLIC "${GAUNTLET_KERNEL_OUT}")
endfunction()

# gauntlet_embed_text(<target> <suffix> file ...): embeds text files (presets, schemas) as
# gauntlet::kernels::<stem>_<suffix>, a string_view, from the header <stem>_<suffix>.h.
function(gauntlet_embed_text target suffix)
  set(headers)
  foreach(src IN LISTS ARGN)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${stem}" stem)
    set(out "${GAUNTLET_KERNEL_OUT}/kernels/${stem}_${suffix}.h")
    # The files it includes beside it (embed_file.cmake inlines `#include "NAME"` lines).
    set(beside)
    get_filename_component(dir "${abs}" DIRECTORY)
    file(STRINGS "${abs}" include_lines REGEX "^#include \"[^\"]+\"$")
    foreach(line IN LISTS include_lines)
      string(REGEX REPLACE "^#include \"([^\"]+)\"$" "\\1" name "${line}")
      list(APPEND beside "${dir}/${name}")
    endforeach()
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -DMODE=text -DINPUT=${abs} -DOUTPUT=${out} -DSYMBOL=${stem}_${suffix}
              -P "${GAUNTLET_EMBED_SCRIPT}"
      DEPENDS "${abs}" ${beside} "${GAUNTLET_EMBED_SCRIPT}"
      COMMENT "Embedding ${stem}")
    list(APPEND headers "${out}")
  endforeach()
  target_sources(${target} PRIVATE ${headers})
  target_include_directories(${target} PUBLIC "${GAUNTLET_KERNEL_OUT}")
endfunction()

# gauntlet_embed_type_decoders(<target>): embeds the OpenCL C block decoder of every weight type of
# core/weight_types.def, core/kernels/types/<type>.cl, and common.cl, which they all follow (each
# as gauntlet_embed_text's <stem>_cl). The header kernels/type_decoders_cl.h defines
# gauntlet::kernels::type_decoder_cl(ggml type id), an empty string_view for a type not listed.
function(gauntlet_embed_type_decoders target)
  set(dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../core/kernels/types")
  set(files "${dir}/common.cl")
  set(includes_text "")
  set(cases "")
  foreach(type IN LISTS GAUNTLET_WEIGHT_TYPES)
    list(APPEND files "${dir}/${type}.cl")
    string(APPEND includes_text "#include \"kernels/${type}_cl.h\"\n")
    string(APPEND cases "    case ${GAUNTLET_WEIGHT_TYPE_ID_${type}}: return ${type}_cl;\n")
  endforeach()
  gauntlet_embed_text(${target} cl ${files})
  set(lookup "${GAUNTLET_KERNEL_OUT}/kernels/type_decoders_cl.h")
  file(WRITE "${lookup}.in"
    "#pragma once\n#include <cstdint>\n#include <string_view>\n${includes_text}"
    "namespace gauntlet::kernels {\n"
    "inline std::string_view type_decoder_cl(uint32_t type_id) {\n"
    "  switch (type_id) {\n${cases}    default: return {};\n  }\n}\n}  // namespace gauntlet::kernels\n")
  configure_file("${lookup}.in" "${lookup}" COPYONLY)
endfunction()

# gauntlet_add_typed_kernels(<target> BODY body.glsl TYPES type ...): one SPIR-V per weight type
# from one GLSL body. For each type a .comp is generated that declares the weights (binding 0,
# `uint w[]`; SOURCE_WORD(i) reads word i), includes core/kernels/types/access.glsl and the
# type's block decoder core/kernels/types/<type>.glsl, then the body. The prelude requires
# GL_EXT_control_flow_attributes, so the body may use [[unroll]]. The header <body stem>_typed.h
# defines gauntlet::kernels::<body stem>_spirv(ggml type id), an empty span for a type not listed.
set(GAUNTLET_TYPE_KERNELS_DIR "${CMAKE_CURRENT_LIST_DIR}/../core/kernels")

function(gauntlet_add_typed_kernels target)
  # TEXELS: the weights are read from a uniform texel buffer of 32-bit words at binding 2, after
  # the body's two storage buffers (a CPU Vulkan driver's faster read, engine/device/config.h;
  # backends::KernelSource::texel_views), not from the storage buffer; the SPIR-V and its lookup
  # are named <body stem>_texels.
  cmake_parse_arguments(K "TEXELS" "BODY" "TYPES" ${ARGN})
  get_filename_component(body "${K_BODY}" ABSOLUTE)
  get_filename_component(body_stem "${K_BODY}" NAME_WE)
  set(words_file "${body_stem}_words.glsl")
  # SOURCE_WORD(i) is the weights' 32-bit word i, wherever they are bound.
  string(CONCAT weights_decl "layout(std430, binding = 0) readonly buffer W { uint w[]; };\n"
                "#define SOURCE_WORD(i) w[i]\n")
  if(K_TEXELS)
    string(CONCAT weights_decl "layout(binding = 2) uniform usamplerBuffer weight_texels;\n"
                  "#define WEIGHTS_AS_TEXELS 1\n"
                  "#define SOURCE_WORD(i) texelFetch(weight_texels, int(i)).x\n")
    string(APPEND body_stem "_texels")
  endif()
  if(NOT GLSLC_EXECUTABLE)
    # No Vulkan in this build: every type's SPIR-V is empty (see gauntlet_add_kernels).
    gauntlet_write_empty_spirv("${GAUNTLET_KERNEL_OUT}/kernels/${body_stem}_typed.h"
      "inline std::span<const uint32_t> ${body_stem}_spirv(uint32_t) { return {}; }")
    target_include_directories(${target} PUBLIC "${GAUNTLET_KERNEL_OUT}")
    return()
  endif()
  get_filename_component(body_name "${K_BODY}" NAME)
  get_filename_component(body_dir "${body}" DIRECTORY)
  get_filename_component(types_dir "${GAUNTLET_TYPE_KERNELS_DIR}" ABSOLUTE)
  # The decoders and whatever the body includes beside it.
  file(GLOB type_includes "${types_dir}/types/*.glsl" "${body_dir}/*.glsl")
  # A body may say where the decoders read words from: <body stem>_words.glsl beside it.
  set(words_include "")
  if(EXISTS "${body_dir}/${words_file}")
    set(words_include "#include \"${words_file}\"\n")
    list(APPEND type_includes "${body_dir}/${words_file}")
  endif()
  set(gen "${GAUNTLET_KERNEL_OUT}/kernels/typed")
  set(headers)
  set(includes_text "")
  set(cases "")
  foreach(type IN LISTS K_TYPES)
    set(id "${GAUNTLET_WEIGHT_TYPE_ID_${type}}")
    if(id STREQUAL "")
      message(FATAL_ERROR "gauntlet_add_typed_kernels: ${type} is not in core/weight_types.def")
    endif()
    set(stem "${body_stem}_${type}")
    set(comp "${gen}/${stem}.comp")
    file(WRITE "${comp}.in"
      "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
      "#extension GL_EXT_control_flow_attributes : require\n"
      "${weights_decl}"
      "${words_include}"
      "#include \"types/access.glsl\"\n#include \"types/${type}.glsl\"\n#include \"${body_name}\"\n")
    configure_file("${comp}.in" "${comp}" COPYONLY)
    set(words "${gen}/${stem}.spv.inc")
    set(out "${GAUNTLET_KERNEL_OUT}/kernels/${stem}_comp.h")
    add_custom_command(
      OUTPUT "${words}"
      COMMAND ${GLSLC_EXECUTABLE} --target-env=vulkan1.2 -O -mfmt=num -I "${types_dir}"
              -I "${body_dir}" -o "${words}" "${comp}"
      DEPENDS "${comp}" "${body}" ${type_includes}
      COMMENT "Compiling GLSL kernel ${stem} to SPIR-V")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -DMODE=spirv -DINPUT=${words} -DOUTPUT=${out} -DSYMBOL=${stem}_comp
              -P "${GAUNTLET_EMBED_SCRIPT}"
      DEPENDS "${words}" "${GAUNTLET_EMBED_SCRIPT}"
      COMMENT "Embedding SPIR-V of ${stem}")
    list(APPEND headers "${out}")
    string(APPEND includes_text "#include \"kernels/${stem}_comp.h\"\n")
    string(APPEND cases "    case ${id}: return ${stem}_comp;\n")
  endforeach()
  set(lookup "${GAUNTLET_KERNEL_OUT}/kernels/${body_stem}_typed.h")
  file(WRITE "${lookup}.in"
    "#pragma once\n#include <cstdint>\n#include <span>\n${includes_text}"
    "namespace gauntlet::kernels {\n"
    "inline std::span<const uint32_t> ${body_stem}_spirv(uint32_t type_id) {\n"
    "  switch (type_id) {\n${cases}    default: return {};\n  }\n}\n}  // namespace gauntlet::kernels\n")
  configure_file("${lookup}.in" "${lookup}" COPYONLY)
  target_sources(${target} PRIVATE ${headers})
  target_include_directories(${target} PUBLIC "${GAUNTLET_KERNEL_OUT}")
endfunction()
