#include "core/isolate.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

namespace gauntlet::core {

namespace {

using Clock = std::chrono::steady_clock;

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal";
  return name + " (" + std::to_string(sig) + ")";
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

[[noreturn]] void child_main(int fd, const std::function<Json()>& unit) {
  int code = 0;
  try {
    Json result = unit();
    write_all(fd, Json{{"ok", true}, {"payload", result}}.dump());
  } catch (const std::exception& e) {
    write_all(fd, Json{{"ok", false}, {"error", std::string("exception: ") + e.what()}}.dump());
    code = 1;
  } catch (...) {
    write_all(fd, Json{{"ok", false}, {"error", "unknown exception"}}.dump());
    code = 1;
  }
  ::close(fd);
  ::_exit(code);
}

// Reads from `fd` until end of file or the deadline. Returns false on timeout.
bool read_until(int fd, Clock::time_point deadline, std::string& out) {
  char buffer[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) return true;
    if (r <= 0) continue;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buffer, static_cast<size_t>(n));
  }
}

// Waits for the child until `deadline`; returns true when it was reaped.
bool wait_until(pid_t pid, Clock::time_point deadline, int& status, rusage& usage) {
  for (;;) {
    pid_t r = ::wait4(pid, &status, WNOHANG, &usage);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;
    if (Clock::now() >= deadline) return false;
    ::usleep(5000);
  }
}

}  // namespace

IsolatedRun run_isolated(const std::string& unit_id, const std::string& device,
                         const IsolationLimits& limits, const std::function<Json()>& unit) {
  IsolatedRun run;
  run.failure = make_row(unit_id, device, RowStatus::error);
  const auto start = Clock::now();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    run.failure.reason = std::string("pipe failed: ") + std::strerror(errno);
    return run;
  }
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    run.failure.reason = std::string("fork failed: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return run;
  }
  if (pid == 0) {
    // A unit dies with the run: a run killed outright (SIGKILL, the OOM killer) must not leave
    // its children holding the device.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    ::close(fds[0]);
    child_main(fds[1], unit);
  }
  ::close(fds[1]);

  std::string message;
  const auto deadline = start + limits.timeout;
  bool finished = read_until(fds[0], deadline, message);
  ::close(fds[0]);

  int status = 0;
  rusage usage{};
  bool reaped = finished && wait_until(pid, deadline, status, usage);
  bool timed_out = !reaped;
  if (timed_out) {
    ::kill(pid, SIGTERM);
    if (!wait_until(pid, Clock::now() + limits.grace, status, usage)) {
      ::kill(pid, SIGKILL);
      wait_until(pid, Clock::now() + std::chrono::seconds(30), status, usage);
    }
  }
  run.peak_rss_kb = usage.ru_maxrss;
  run.duration_s = std::chrono::duration<double>(Clock::now() - start).count();
  run.failure.duration_s = run.duration_s;
  run.failure.metrics["peak_rss_kb"] = run.peak_rss_kb;

  if (timed_out) {
    run.failure.status = RowStatus::timeout;
    run.failure.reason = "no result within the limit of " + std::to_string(limits.timeout.count()) +
                         " ms; the child was stopped with SIGTERM, then SIGKILL if needed";
    run.failure.metrics["timeout_ms"] = limits.timeout.count();
    return run;
  }
  if (WIFSIGNALED(status)) {
    run.failure.status = RowStatus::crash;
    int sig = WTERMSIG(status);
    run.failure.reason = "child killed by " + signal_name(sig);
    if (sig == SIGKILL) run.failure.reason += " (out-of-memory killer or an outside kill)";
    run.failure.metrics["signal"] = sig;
    return run;
  }
  auto parsed = parse_json(message, "the child's result");
  if (!parsed) {
    run.failure.reason = "child exited with code " + std::to_string(WEXITSTATUS(status)) +
                         " without a readable result";
    run.failure.metrics["exit_code"] = WEXITSTATUS(status);
    return run;
  }
  if (!parsed->value("ok", false)) {
    run.failure.reason = parsed->value("error", "child failed");
    run.failure.metrics["exit_code"] = WEXITSTATUS(status);
    return run;
  }
  run.completed = true;
  run.payload = std::move((*parsed)["payload"]);
  return run;
}

std::vector<Row> run_isolated_rows(const std::string& unit_id, const std::string& device,
                                   const IsolationLimits& limits,
                                   const std::function<std::vector<Row>()>& unit) {
  IsolatedRun run = run_isolated(unit_id, device, limits, [&] { return Json(unit()); });
  if (!run.completed) return {run.failure};
  std::vector<Row> rows;
  try {
    rows = run.payload.get<std::vector<Row>>();
  } catch (const std::exception& e) {
    Row bad = run.failure;
    bad.reason = std::string("child returned malformed rows: ") + e.what();
    return {bad};
  }
  for (auto& row : rows) row.metrics["peak_rss_kb"] = run.peak_rss_kb;
  return rows;
}

}  // namespace gauntlet::core
