#pragma once
// Runs the gauntlet binary (or any command) in a shell and captures its output and exit code.
#include <filesystem>
#include <string>

namespace gauntlet::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `command` is run by /bin/sh; stderr is folded into the output. It runs in a process group of
// its own that is killed if the test process dies first (a ctest timeout, a kill), so that no
// command outlives its test to write into a folder that nobody will remove.
CommandResult run_command(const std::string& command);

// The build folder the running test belongs to (the one holding CMakeCache.txt).
std::filesystem::path build_dir();

// The path of the gauntlet binary under test.
std::string gauntlet_exe();

}  // namespace gauntlet::testing
