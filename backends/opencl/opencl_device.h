#pragma once
// The OpenCL backend (Khronos C++ bindings). Only this folder includes OpenCL headers.
#include <memory>
#include <vector>

#include "backends/device.h"

namespace gauntlet::backends::opencl {

// Every device of every platform, in platform order, with what its driver claims. Indices are
// the `N` of "opencl:N". A device whose context or queue cannot be created is listed with
// usable = false and the API's error.
Result<std::vector<core::DeviceInfo>> enumerate();

Result<std::unique_ptr<Device>> open(int index);

}  // namespace gauntlet::backends::opencl
