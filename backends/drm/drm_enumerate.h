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
};

Result<std::vector<core::DeviceInfo>> enumerate(const Roots& roots);

}  // namespace gauntlet::backends::drm
