# Install layout and the Debian package (`cpack -G DEB` in the build folder).
# The binary finds its data as ../share/gauntlet from its own folder (cli/data_files.h); the build
# tree mirrors that layout (<build>/share/gauntlet beside <build>/cli/gauntlet) so that a binary
# run from the build finds the same files.
include(GNUInstallDirs)

set(gauntlet_schemas "${PROJECT_SOURCE_DIR}/reports/schema/report.schema.json"
                     "${PROJECT_SOURCE_DIR}/reports/schema/fleet.schema.json"
                     "${PROJECT_SOURCE_DIR}/reports/schema/health.schema.json")
file(GLOB gauntlet_presets CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/harness/presets/*.json")
foreach(file ${gauntlet_schemas})
  get_filename_component(name "${file}" NAME)
  configure_file("${file}" "${CMAKE_BINARY_DIR}/share/gauntlet/schema/${name}" COPYONLY)
endforeach()
foreach(file ${gauntlet_presets})
  get_filename_component(name "${file}" NAME)
  configure_file("${file}" "${CMAKE_BINARY_DIR}/share/gauntlet/presets/${name}" COPYONLY)
endforeach()

install(TARGETS gauntlet RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(FILES ${gauntlet_schemas} DESTINATION "${CMAKE_INSTALL_DATADIR}/gauntlet/schema")
install(FILES ${gauntlet_presets} DESTINATION "${CMAKE_INSTALL_DATADIR}/gauntlet/presets")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/recipes/" DESTINATION "${CMAKE_INSTALL_DATADIR}/gauntlet/recipes"
        USE_SOURCE_PERMISSIONS)

# Debian policy: a copyright file and a compressed changelog in /usr/share/doc/<package>.
set(doc_dir "${CMAKE_BINARY_DIR}/package-doc")
file(MAKE_DIRECTORY "${doc_dir}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in" "${doc_dir}/changelog" @ONLY)
add_custom_command(
  OUTPUT "${doc_dir}/changelog.gz"
  COMMAND gzip -9nf -k "${doc_dir}/changelog"
  DEPENDS "${doc_dir}/changelog"
  COMMENT "Compressing the Debian changelog")
install(FILES "${PROJECT_SOURCE_DIR}/cmake/debian/copyright" "${doc_dir}/changelog.gz"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/gauntlet")

# The man page, from `gauntlet --help` (and each subcommand's) by Debian's help2man.
find_program(HELP2MAN_EXECUTABLE help2man REQUIRED)
add_custom_command(
  OUTPUT "${doc_dir}/gauntlet.1.gz"
  COMMAND ${CMAKE_COMMAND} -DGAUNTLET=$<TARGET_FILE:gauntlet> -DOUTPUT=${doc_dir}/commands.h2m
          -P "${PROJECT_SOURCE_DIR}/cmake/man_commands.cmake"
  COMMAND "${HELP2MAN_EXECUTABLE}" --no-info --no-discard-stderr
          --version-string=${PROJECT_VERSION} --include=${doc_dir}/commands.h2m
          "--name=find what each GPU can really do and which LLM decode configurations are safe"
          --output=${doc_dir}/gauntlet.1 $<TARGET_FILE:gauntlet>
  COMMAND gzip -9nf "${doc_dir}/gauntlet.1"
  DEPENDS gauntlet "${PROJECT_SOURCE_DIR}/cmake/man_commands.cmake"
  COMMENT "Writing the man page with help2man")
add_custom_target(gauntlet_package_docs ALL DEPENDS "${doc_dir}/gauntlet.1.gz" "${doc_dir}/changelog.gz")
install(FILES "${doc_dir}/gauntlet.1.gz" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gauntlet)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "gauntlet maintainers <maintainers@users.noreply.a-seed-b374e045.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU diagnostics: which LLM decode configurations are safe")
# The synopsis is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the extended description (one string).
set(CPACK_PACKAGE_DESCRIPTION
    "gauntlet finds every GPU through OpenCL, Vulkan and Linux DRM, checks
what each driver claims with conformance kernels, measures how much
memory is really safe, runs an LLM decode engine under each configuration
that could fit, and writes a report of the safe configurations and of the
unsafe ones with the reason. `gauntlet report merge` turns the reports of
a fleet into groups of identical machines and names the ones that differ.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Depends: the runtime libraries the binary links (OpenCL ICD loader, libdrm, Highway's libhwy1, the
# C++ runtime), as
# dpkg-shlibdeps finds them, and the Vulkan loader, which the binary opens at run time
# (libvulkan.so.1) and so shlibdeps cannot see.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libvulkan1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "pocl-opencl-icd | mesa-opencl-icd | opencl-icd, mesa-vulkan-drivers | vulkan-icd")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "nvidia-opencl-icd, intel-opencl-icd, nvidia-vulkan-icd, vulkan-validationlayers")
include(CPack)
