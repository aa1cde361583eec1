#pragma once
// Running the engine per profile: which candidates a level runs, each weight format of a device
// in its own isolated child, and the verdicts their results give.
#include <atomic>
#include <vector>

#include "core/device_info.h"
#include "core/options.h"
#include "harness/device_stage.h"
#include "harness/journal.h"
#include "harness/profiles.h"
#include "harness/quick_model.h"
#include "harness/time_budget.h"

namespace gauntlet::harness {

// Runs what `level` runs of `candidates` on `device` and turns every candidate's verdict into
// its final one: safe (ran and matched the host reference), unsafe (with the reason), derived
// (fits by the planner, between contexts that ran) or untested (the level did not reach it).
// Each weight format's child is watched by `watch`: a hang or reset the kernel logged, or an
// error counter that moved, makes its profiles unsafe; a throttled one says so in its reason.
// The checks run within what is left of `clock`'s budget, each format a fair share; what it
// leaves out is untested with the cause `time_budget`.
core::Status run_profiles(const core::DeviceInfo& device, const ModelSet& models,
                          std::vector<Candidate>& candidates, const core::Options& options,
                          Journal& journal, const Progress& progress,
                          const std::atomic<bool>* interrupted, DeviceWatch& watch,
                          const DeviceClock& clock);

}  // namespace gauntlet::harness
