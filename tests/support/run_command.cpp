#include "tests/support/run_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>

namespace gauntlet::testing {

namespace {

// The guard of a command's process group: when the test process dies (a ctest timeout, a kill),
// the kernel sends the guard SIGTERM, and the guard kills the whole group, so that no gauntlet
// run of a dead test lives on to write into a folder nobody will remove.
extern "C" void kill_own_group(int) { ::kill(0, SIGKILL); }

[[noreturn]] void run_guard(const std::string& command, pid_t test_process, int out_fd) {
  ::setpgid(0, 0);
  struct sigaction action {};
  action.sa_handler = kill_own_group;
  ::sigaction(SIGTERM, &action, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != test_process) kill_own_group(0);
  const pid_t shell = ::fork();
  if (shell < 0) ::_exit(127);
  if (shell == 0) {
    ::signal(SIGTERM, SIG_DFL);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(out_fd, STDERR_FILENO);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(out_fd);
  int status = 0;
  while (::waitpid(shell, &status, 0) < 0 && errno == EINTR) {
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

}  // namespace

CommandResult run_command(const std::string& command) {
  CommandResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return result;
  const pid_t test_process = ::getpid();
  const pid_t guard = ::fork();
  if (guard < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return result;
  }
  if (guard == 0) {
    ::close(fds[0]);
    run_guard(command, test_process, fds[1]);
  }
  ::close(fds[1]);
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer.data(), buffer.size());
    if (n > 0) {
      result.output.append(buffer.data(), static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(guard, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// Found from the test's own path rather than compiled in, so that a test object is the same in
// every build folder and ccache shares it between the ci build and the builds without an API.
std::filesystem::path build_dir() {
  std::error_code error;
  auto dir = std::filesystem::read_symlink("/proc/self/exe", error).parent_path();
  for (; !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / "CMakeCache.txt")) return dir;
  }
  throw std::runtime_error("the test binary is not inside a CMake build folder");
}

std::string gauntlet_exe() { return (build_dir() / "cli" / "gauntlet").string(); }

}  // namespace gauntlet::testing
