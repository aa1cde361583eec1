#pragma once
// Enumeration of every API, each in its own isolated child, so that a crashing or hanging ICD
// costs one row and the other APIs still enumerate.
#include <vector>

#include "core/device_info.h"
#include "core/isolate.h"
#include "core/options.h"
#include "core/outcome.h"

namespace gauntlet::probes {

struct ApiEnumeration {
  core::Api api = core::Api::host;
  std::vector<core::DeviceInfo> devices;
  core::Row row;  // pass with the device count, or the crash / timeout / error of that API
};

struct Inventory {
  std::vector<ApiEnumeration> apis;

  std::vector<core::DeviceInfo> devices() const;
  std::vector<core::Row> rows() const;
  const core::DeviceInfo* find(const core::DeviceId& id) const;
};

core::IsolationLimits default_probe_limits();

// Test-only faults: options.fault_for("probe.<api>") == "crash" or "hang" makes that child
// crash (SIGSEGV) or hang, to show that the others still enumerate.
Inventory enumerate_all(const core::Options& options,
                        const core::IsolationLimits& limits = default_probe_limits());

}  // namespace gauntlet::probes
