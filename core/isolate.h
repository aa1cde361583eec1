#pragma once
// Isolated execution: a unit that touches a driver runs in a forked child with a time limit, so
// that a crash, a hang or an out-of-memory kill becomes a row and the run goes on.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/outcome.h"

namespace gauntlet::core {

struct IsolationLimits {
  std::chrono::milliseconds timeout{60'000};
  // After SIGTERM on timeout, how long the child has to exit before SIGKILL.
  std::chrono::milliseconds grace{2'000};
};

struct IsolatedRun {
  // Set when the child finished and returned its payload; otherwise `failure` says how it ended.
  bool completed = false;
  Json payload;
  Row failure;           // status crash / error / timeout, with the signal or the limit named
  long peak_rss_kb = 0;  // the child's peak resident set size
  double duration_s = 0.0;
};

// Runs `unit` in a child process. The child's return value travels back over a pipe as JSON.
// `unit_id` and `device` label the failure row. The parent must not hold driver state that a
// fork would duplicate badly: drivers are touched only inside units.
IsolatedRun run_isolated(const std::string& unit_id, const std::string& device,
                         const IsolationLimits& limits, const std::function<Json()>& unit);

// The common case: a unit that yields rows. A child that fails yields one failure row instead;
// each returned row's metrics gain the child's peak RSS.
std::vector<Row> run_isolated_rows(const std::string& unit_id, const std::string& device,
                                   const IsolationLimits& limits,
                                   const std::function<std::vector<Row>()>& unit);

}  // namespace gauntlet::core
