#pragma once
// `gauntlet health`: the node gate, the full run's short sibling. Within a deadline enforced
// inside (each check asks it before it starts; what it cuts is "not run: deadline"), it compares
// the machine with the baseline the last complete `gauntlet run` wrote (identity: devices,
// drivers, memory, gauntlet's version; a change is a `re-validate` warning), reads the machine's
// signals since the last health run (a moved error counter or a reset line is critical), and per
// device runs seconds-long checks: probe, the dtype rows the baseline's safe profiles rely on, a
// sentinel memory write/verify over a bounded share, a short decode against the host reference.
#include <chrono>
#include <filesystem>
#include <optional>

#include "core/options.h"
#include "core/status.h"
#include "reports/health.h"

namespace gauntlet::harness {

struct HealthConfig {
  core::Options options;  // devices, faults, the sysfs root, the kernel log, the state folder
  std::chrono::milliseconds deadline{40'000};
  // The report to compare with; empty: baseline_path(options), where `gauntlet run` writes it.
  std::filesystem::path baseline;
};

// What makes the gate unable to run at all is a node check of status could_not_run (exit 2): an
// unreadable baseline (named), an unreadable state file, a device selection that names a device
// that is not there. The state file is rewritten at the end of every run that could run.
reports::HealthReport run_health(const HealthConfig& config);

}  // namespace gauntlet::harness
