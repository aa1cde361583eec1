#pragma once
// The Vulkan backend (vulkan.hpp). Only this folder includes Vulkan headers.
#include <memory>
#include <vector>

#include "backends/device.h"
#include "core/options.h"

namespace gauntlet::backends::vulkan {

// Every physical device with a compute queue, in the loader's order; indices are the `N` of
// "vulkan:N". A device whose logical device or queue cannot be created is listed with
// usable = false and the API's error.
Result<std::vector<core::DeviceInfo>> enumerate(const core::Options& options);

Result<std::unique_ptr<Device>> open(int index, const core::Options& options);

}  // namespace gauntlet::backends::vulkan
