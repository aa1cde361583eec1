# Kernels are files: OpenCL C (.cl) is embedded as text, GLSL compute (.comp) is compiled to
# SPIR-V by glslc at build time and embedded as words. Both land only in the build tree, as one
# header per kernel file: <stem>_cl.h defines gauntlet::kernels::<stem>_cl (a string_view) and
# <stem>_comp.h defines gauntlet::kernels::<stem>_comp (a span of SPIR-V words).
#
#   gauntlet_add_kernels(<target> [CL file.cl ...] [COMP file.comp ...])

set(GAUNTLET_KERNEL_OUT "${CMAKE_BINARY_DIR}/generated")
set(GAUNTLET_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake")

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
  if(K_COMP)
    if(NOT GLSLC_EXECUTABLE)
      message(FATAL_ERROR "glslc is needed to compile ${K_COMP} (install glslc)")
    endif()
  endif()
  foreach(src IN LISTS K_COMP)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    # A .comp may #include the .glsl files beside it.
    get_filename_component(dir "${abs}" DIRECTORY)
    file(GLOB includes "${dir}/*.glsl")
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
    add_custom_command(
      OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -DMODE=text -DINPUT=${abs} -DOUTPUT=${out} -DSYMBOL=${stem}_${suffix}
              -P "${GAUNTLET_EMBED_SCRIPT}"
      DEPENDS "${abs}" "${GAUNTLET_EMBED_SCRIPT}"
      COMMENT "Embedding ${stem}")
    list(APPEND headers "${out}")
  endforeach()
  target_sources(${target} PRIVATE ${headers})
  target_include_directories(${target} PUBLIC "${GAUNTLET_KERNEL_OUT}")
endfunction()
