#pragma once
// A placed profile's check: the placement's decoder against the host reference
// (device::compare_with_reference), with each device's planned bytes and measured peak.
#include <span>
#include <vector>

#include "backends/device.h"
#include "engine/device/profile_check.h"
#include "engine/model/gguf.h"
#include "engine/placement/placement.h"
#include "engine/placement/placement_plan.h"

namespace gauntlet::engine {

struct PlacementCheck {
  device::CheckResult result;
  std::vector<placement::DeviceBytes> planned;  // per device of the placement
  std::vector<uint64_t> peak_bytes;             // per device (0 where nothing was opened)
};

// `devices[i]` is `placement.devices[i]`.
core::Result<PlacementCheck> check_placement(const placement::Placement& placement,
                                             std::span<backends::Device* const> devices,
                                             const model::GgufFile& file,
                                             const device::PassSpec& spec);

}  // namespace gauntlet::engine
