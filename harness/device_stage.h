#pragma once
// The measuring stages of one device: conformance (what really works), stress (how much memory
// is really safe) and the compute peak (f16 and int8 only where conformance verified them),
// journaled unit by unit, and the facts the profile planner reads.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/device_info.h"
#include "core/options.h"
#include "harness/journal.h"
#include "harness/profiles.h"
#include "harness/simulate.h"
#include "harness/time_budget.h"
#include "harness/unit_signals.h"
#include "reports/report.h"

namespace gauntlet::harness {

struct DeviceStage {
  reports::VerifiedCaps verified;
  std::vector<core::Row> conformance;
  std::optional<reports::StressResult> stress;
  std::optional<core::ComputePeak> compute_peak;
  DeviceFacts facts;
};

// A progress line: a stage of a device starting or ending ("opencl:0 conform ..." then
// "opencl:0 conform 31/31 rows pass 3.1 s"), or a detail within one (a weight format's checks).
// The CLI prints each stage line on stderr and shows details on a terminal's live line only.
enum class ProgressKind { stage, detail };
using Progress = std::function<void(ProgressKind, const std::string&)>;

// One stage of one device in the progress lines: its start line at construction, its end line
// with what it found and its seconds from done().
class StageProgress {
 public:
  StageProgress(const Progress& progress, std::string device, std::string stage);
  void done(const std::string& found) const;

 private:
  const Progress& progress_;
  std::string prefix_;
  std::chrono::steady_clock::time_point start_;
};

// Runs (or, on resume, reads back from the journal) conformance, stress and the compute peak for
// `claimed`, which already carries the --simulate clamps, each unit it runs watched by `watch`,
// and derives the facts the planner uses. The stress takes at most kStressShare of `clock`'s
// budget.
core::Result<DeviceStage> measure_device(const core::DeviceInfo& claimed,
                                         const core::Options& options,
                                         const std::optional<SimulateClamps>& clamps,
                                         Journal& journal, const Progress& progress,
                                         DeviceWatch& watch, const DeviceClock& clock);

}  // namespace gauntlet::harness
