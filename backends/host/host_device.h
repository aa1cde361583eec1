#pragma once
// The in-process CPU device: buffers in host memory, kernels as their C++ reference functions.
// It is the reference every other backend is compared with, and the fallback that is always there.
#include <memory>
#include <string>

#include "backends/device.h"

namespace gauntlet::backends::host {

core::DeviceInfo describe();
// The fast CPU device, `cpu`: the host API's second device (index 1), in this process like the
// host, with the same buffers and host kernels; the decode engine gives its passes the integer
// SIMD products (engine/cpu) and its peak is the SIMD one (stress/simd_peak.h).
inline constexpr int kCpuIndex = 1;
inline bool is_cpu(const core::DeviceId& id) {
  return id.api == core::Api::host && id.index == kCpuIndex;
}
// The host device itself (index 0): the C++ reference, not one of the devices judged by default.
inline bool is_reference(const core::DeviceId& id) {
  return id.api == core::Api::host && id.index != kCpuIndex;
}
core::DeviceInfo describe_cpu();
// Caps the cpu device's instruction set, for this whole process, at the target Highway names
// `name` (any case): an error naming the targets this processor runs if it is not one of them.
core::Status cap_simd_target(const std::string& name);
// The host device, or the cpu device for describe_cpu()'s info.
std::unique_ptr<Device> open(const core::DeviceInfo& info = describe());

}  // namespace gauntlet::backends::host
