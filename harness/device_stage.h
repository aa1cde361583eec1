#pragma once
// The measuring stages of one device: conformance (what really works), stress (how much memory
// is really safe) and the compute peak (f16 and int8 only where conformance verified them),
// journaled unit by unit, and the facts the profile planner reads.
#include <functional>
#include <optional>
#include <string>

#include "core/device_info.h"
#include "core/options.h"
#include "harness/journal.h"
#include "harness/profiles.h"
#include "harness/simulate.h"
#include "reports/report.h"

namespace gauntlet::harness {

struct DeviceStage {
  reports::VerifiedCaps verified;
  std::vector<core::Row> conformance;
  std::optional<reports::StressResult> stress;
  std::optional<core::ComputePeak> compute_peak;
  DeviceFacts facts;
};

using Progress = std::function<void(const std::string&)>;

// Runs (or, on resume, reads back from the journal) conformance, stress and the compute peak for
// `claimed`, which
// already carries the --simulate clamps, and derives the facts the planner uses.
core::Result<DeviceStage> measure_device(const core::DeviceInfo& claimed,
                                         const core::Options& options,
                                         const std::optional<SimulateClamps>& clamps,
                                         Journal& journal, const Progress& progress);

}  // namespace gauntlet::harness
