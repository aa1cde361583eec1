# The tool's version and the git revision it was built from, for reports.
execute_process(
  COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
  OUTPUT_VARIABLE GAUNTLET_GIT_REVISION
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT GAUNTLET_GIT_REVISION)
  set(GAUNTLET_GIT_REVISION "unknown")
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/version.h.in" "${CMAKE_BINARY_DIR}/generated/version.h" @ONLY)
include_directories("${CMAKE_BINARY_DIR}/generated")
