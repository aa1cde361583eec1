#pragma once
// Internal to the OpenCL backend: the one place the Khronos headers are configured.
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <cstdio>
#include <vector>

// opencl.hpp 2023.02.06 (Debian 12) calls detail::getContextPlatformVersion to pick between the
// 1.2 and 2.0 queue entry points, but defines it only when the minimum version is below 1.2.
// Declared here so that the header compiles with a 1.2 minimum; returns (major << 16) | minor.
namespace cl::detail {
[[maybe_unused]] static cl_uint getContextPlatformVersion(cl_context context) {
  cl_device_id device = nullptr;
  cl_platform_id platform = nullptr;
  if (clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof device, &device, nullptr) !=
          CL_SUCCESS ||
      clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) !=
          CL_SUCCESS) {
    return 0;
  }
  size_t size = 0;
  if (clGetPlatformInfo(platform, CL_PLATFORM_VERSION, 0, nullptr, &size) != CL_SUCCESS) return 0;
  std::vector<char> text(size + 1, '\0');
  if (clGetPlatformInfo(platform, CL_PLATFORM_VERSION, size, text.data(), nullptr) != CL_SUCCESS) {
    return 0;
  }
  unsigned major = 0, minor = 0;
  if (std::sscanf(text.data(), "OpenCL %u.%u", &major, &minor) != 2) return 0;
  return (major << 16) | minor;
}
}  // namespace cl::detail

#include <CL/opencl.hpp>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/source_location.h"
#include "core/status.h"

namespace gauntlet::backends::opencl {

// "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for a code no header names.
const char* error_name(cl_int code);

// An api_error naming the call, the code and the device. Codes that mean memory ran out
// (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY) come back as out_of_memory.
core::Error cl_error(const char* api_call, cl_int code, const std::string& device,
                     std::string message = {},
                     core::SourceLocation at = core::SourceLocation::current());

// One entry per OpenCL device in platform order; its index is the N of "opencl:N". A platform
// whose devices cannot be listed gets one entry with `list_error` set and no device.
struct DeviceSlot {
  cl::Platform platform;
  cl::Device device;
  std::string platform_name;
  cl_int list_error = CL_SUCCESS;
};

// Fails only when the loader itself fails; no installed platform gives an empty list.
core::Result<std::vector<DeviceSlot>> list_devices();

// With `check_usable`, tries a context and a queue and records why they fail.
core::DeviceInfo describe(const DeviceSlot& slot, int index, bool check_usable = true);

}  // namespace gauntlet::backends::opencl
