#pragma once
// The signals as JSON (core/json.h): a snapshot, a sampler summary, counters and their changes,
// kernel-log events. Absent signals are absent keys, never 0 or null.
#include <vector>

#include "core/json.h"
#include "signals/counters.h"
#include "signals/gpu_log.h"
#include "signals/snapshot.h"
#include "signals/summary.h"

namespace gauntlet::signals {

core::Json to_json(const PciLink& link);
core::Json to_json(const Snapshot& snapshot);
core::Json to_json(const DeviceSummary& summary);
core::Json to_json(const Counters& counters);
core::Json to_json(const std::vector<CounterChange>& changes);
core::Json to_json(const GpuLogEvent& event);

}  // namespace gauntlet::signals
