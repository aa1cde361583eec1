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

# Configure again when HEAD moves (a commit, a checkout), so that an incremental build names the
# revision it was built from rather than the one it was configured at.
set(_gauntlet_git_dir "${PROJECT_SOURCE_DIR}/.git")
if(EXISTS "${_gauntlet_git_dir}/HEAD" AND IS_DIRECTORY "${_gauntlet_git_dir}")
  set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                                                                 "${_gauntlet_git_dir}/HEAD")
  file(READ "${_gauntlet_git_dir}/HEAD" _gauntlet_head)
  if(_gauntlet_head MATCHES "^ref: ([^\n]+)" AND EXISTS "${_gauntlet_git_dir}/${CMAKE_MATCH_1}")
    set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                                                                   "${_gauntlet_git_dir}/${CMAKE_MATCH_1}")
  endif()
endif()
