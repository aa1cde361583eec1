#pragma once
// Explicit device selection (field case 1): what was asked for, what exists, what really runs.
#include <string>
#include <vector>

#include "core/options.h"
#include "probes/inventory.h"

namespace gauntlet::probes {

struct Selection {
  std::vector<core::DeviceId> devices;  // the devices that will run, in order
  std::vector<std::string> notes;       // e.g. "vulkan:7 does not exist; running on host"
  bool fell_back = false;
};

// `spec` is "all", "host", "opencl:N", "vulkan:N", a PCI bus id, or a comma-separated list.
// An absent or unusable device is an error listing the devices that exist, unless the fallback
// is host, which then runs instead and says so. "all" selects every usable compute device and
// host; DRM views are enumeration only and never run.
core::Result<Selection> select_devices(const std::string& spec, core::Fallback fallback,
                                       const Inventory& inventory);

// "opencl:0 (pthread-...), vulkan:0 (llvmpipe ...), host": what exists, for error messages.
std::string describe_available(const Inventory& inventory);

}  // namespace gauntlet::probes
