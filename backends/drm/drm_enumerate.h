#pragma once
// DRM enumeration only (no compute): libdrm's drmGetDevices2/drmGetVersion plus sysfs reads
// for what libdrm does not give. The roots are configurable so that fixture trees can be parsed.
#include <filesystem>
#include <vector>

#include "core/device_info.h"
#include "core/options.h"
#include "core/status.h"

namespace gauntlet::backends::drm {

struct Roots {
  std::filesystem::path sysfs = "/sys";
  std::filesystem::path dev = "/dev";
  static Roots from_options(const core::Options& options);
  // True for /sys and /dev: only then can libdrm be asked, since it reads those paths itself.
  bool is_system() const;
};

// Every DRM device (one entry per device, its card* and renderD* nodes together), ordered by
// primary node number, with ids drm:0, drm:1, ... A machine without DRM gives an empty list. A
// device whose files are malformed, or whose render node is missing or not accessible, is
// listed with usable = false and the problem in unusable_reason.
core::Result<std::vector<core::DeviceInfo>> enumerate(const Roots& roots);

}  // namespace gauntlet::backends::drm
