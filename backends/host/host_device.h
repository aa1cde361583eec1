#pragma once
// The in-process CPU device: buffers in host memory, kernels as their C++ reference functions.
// It is the reference every other backend is compared with, and the fallback that is always there.
#include <memory>

#include "backends/device.h"

namespace gauntlet::backends::host {

core::DeviceInfo describe();
std::unique_ptr<Device> open();

}  // namespace gauntlet::backends::host
