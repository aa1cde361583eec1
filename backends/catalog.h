#pragma once
// The APIs this build has, and one way to enumerate and open a device of any of them.
#include <memory>
#include <vector>

#include "backends/device.h"
#include "core/device_info.h"
#include "core/options.h"

namespace gauntlet::backends {

// The APIs compiled into this build that enumerate devices (host is always there).
std::vector<core::Api> compiled_apis();
bool is_compiled(core::Api api);

// What every device of `api` claims. Talks to the driver: call it inside an isolated child.
Result<std::vector<core::DeviceInfo>> enumerate(core::Api api, const core::Options& options);

// Opens a device for compute. DRM devices are enumeration only and cannot be opened.
Result<std::unique_ptr<Device>> open(const core::DeviceId& id, const core::Options& options);

}  // namespace gauntlet::backends
