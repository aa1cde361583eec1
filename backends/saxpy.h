#pragma once
// The saxpy kernel on every backend: OpenCL C, SPIR-V and the host reference.
#include <cstdint>

#include "backends/device.h"

namespace gauntlet::backends {

struct SaxpyParams {
  float a;
  uint32_t n;
};

KernelSource saxpy_kernel(uint32_t workgroup_size = 64);

// Runs y = a*x + y on `device` and returns y. Used by smoke tests and `gauntlet probe`.
Result<std::vector<float>> run_saxpy(Device& device, float a, const std::vector<float>& x,
                                     const std::vector<float>& y);

}  // namespace gauntlet::backends
