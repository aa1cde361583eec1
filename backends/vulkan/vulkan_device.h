#pragma once
// The Vulkan backend (vulkan.hpp). Only this folder includes Vulkan headers.
#include <memory>
#include <string>
#include <vector>

#include "backends/device.h"
#include "core/options.h"

namespace gauntlet::backends::vulkan {

// Every physical device with a compute queue, in the loader's order; indices are the `N` of
// "vulkan:N". A device whose logical device or queue cannot be created is listed with
// usable = false and the API's error.
Result<std::vector<core::DeviceInfo>> enumerate(const core::Options& options);

// With options.vulkan_validation, the device runs under VK_LAYER_KHRONOS_validation; with
// options.vulkan_force_staging, all data moves through host-visible staging buffers.
// A kernel whose shared (Workgroup) memory, as sized by its specialization constants, exceeds
// maxComputeSharedMemorySize is refused by build() (ErrorKind::unsupported) before the driver
// sees it.
Result<std::unique_ptr<Device>> open(int index, const core::Options& options);

// Every validation-layer warning and error seen in this process, in order ("ERROR VUID-...:
// text"). Tests run with GAUNTLET_VK_VALIDATION=1 and assert this stays empty.
std::vector<std::string> validation_messages();
void clear_validation_messages();

}  // namespace gauntlet::backends::vulkan
