#pragma once
// Graduated memory stress: how much memory a device really holds, verified by writing and reading
// patterns, its largest single allocation, and its bandwidth, each step in an isolated child.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/isolate.h"
#include "core/json.h"
#include "core/options.h"
#include "core/outcome.h"
#include "core/stress_result.h"

namespace gauntlet::stress {

struct StressOptions {
  core::Level level = core::Level::quick;
  double max_fraction = 0;       // of the device's memory; 0 = the level's default
  uint64_t cap_bytes = 0;        // 0 = none; e.g. a --simulate clamp
  core::IsolationLimits limits;  // per step (the least: a step planned longer gets more)
  // Seconds the whole stress may take (0: no limit): each occupancy step verifies the share of
  // its chunks the measured rate allows in its share (stress/step_budget.h).
  double time_budget_s = 0;
  std::function<void(const std::string&)> progress;  // one line per step, e.g. for stderr
};

// What the report keeps (core::StressResult), with how it was found.
struct StressResult : core::StressResult {
  std::string device;
  std::string margin_rule;
  // Which limit bound the budget: "host available memory", "cgroup memory.max (<its folder>)",
  // "RLIMIT_AS", "device global memory", "level cap", "max_fraction", "cap_bytes", "failed step",
  // ...
  std::string bound_by;
  std::string max_single_alloc_bound_by;  // e.g. "max_mem_alloc_size", "maxStorageBufferRange"
  double read_bandwidth_gbps = 0, write_bandwidth_gbps = 0, h2d_gbps = 0, d2h_gbps = 0;
};

// Runs the whole stress on one device: allocation search, pattern suite, occupancy steps. Every
// part that touches the driver runs in its own child; crashes and timeouts become rows.
StressResult run_stress(const core::DeviceInfo& claimed, const core::Options& options,
                        const StressOptions& stress);

void to_json(core::Json& j, const StressResult& r);
void from_json(const core::Json& j, StressResult& r);

}  // namespace gauntlet::stress
