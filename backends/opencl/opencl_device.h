#pragma once
// The OpenCL backend (Khronos C++ bindings). Only this folder includes OpenCL headers.
#include <memory>
#include <vector>

#include "backends/device.h"
#include "core/options.h"

namespace gauntlet::backends::opencl {

// Every device of every platform, in platform order, with what its driver claims. Indices are
// the `N` of "opencl:N". A device whose context or queue cannot be created is listed with
// usable = false and the API's error.
Result<std::vector<core::DeviceInfo>> enumerate();

// With options.show_build_logs, a kernel whose build succeeds with a non-empty log prints that log
// on stderr; otherwise the log is only kept (Kernel::build_log) and shown in a failed build's
// error.
Result<std::unique_ptr<Device>> open(int index, const core::Options& options = {});

}  // namespace gauntlet::backends::opencl
