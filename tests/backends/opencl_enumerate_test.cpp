// enumerate() against what the driver answers when asked directly through the C API.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/opencl/cl_common.h"
#include "backends/opencl/opencl_device.h"

namespace gauntlet {
namespace {

struct RawDevice {
  cl_platform_id platform;
  cl_device_id device;
};

std::vector<RawDevice> raw_devices() {
  std::vector<RawDevice> out;
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS) return out;
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (auto p : platforms) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(n);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr);
    for (auto d : devices) out.push_back({p, d});
  }
  return out;
}

template <typename T>
T raw(cl_device_id d, cl_device_info param) {
  T value{};
  EXPECT_EQ(clGetDeviceInfo(d, param, sizeof(T), &value, nullptr), CL_SUCCESS) << param;
  return value;
}

std::string raw_string(cl_device_id d, cl_device_info param) {
  size_t size = 0;
  EXPECT_EQ(clGetDeviceInfo(d, param, 0, nullptr, &size), CL_SUCCESS);
  std::string s(size, '\0');
  EXPECT_EQ(clGetDeviceInfo(d, param, size, s.data(), nullptr), CL_SUCCESS);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

TEST(OpenClEnumerate, MatchesTheDriverAskedDirectly) {
  auto raw_list = raw_devices();
  ASSERT_FALSE(raw_list.empty()) << "no OpenCL device: is PoCL (pocl-opencl-icd) installed?";
  auto listed = backends::opencl::enumerate();
  ASSERT_TRUE(listed.is_ok()) << listed.error().describe();
  ASSERT_EQ(listed->size(), raw_list.size());
  for (size_t i = 0; i < raw_list.size(); ++i) {
    const auto& info = (*listed)[i];
    cl_device_id d = raw_list[i].device;
    SCOPED_TRACE(info.id.to_string() + " " + info.name);
    EXPECT_EQ(info.id.to_string(), "opencl:" + std::to_string(i));
    EXPECT_EQ(info.name, raw_string(d, CL_DEVICE_NAME));
    EXPECT_EQ(info.api_version, raw_string(d, CL_DEVICE_VERSION));
    EXPECT_EQ(info.vendor_id, raw<cl_uint>(d, CL_DEVICE_VENDOR_ID));
    EXPECT_EQ(info.local_mem_size, raw<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE));
    EXPECT_EQ(info.max_mem_alloc_size, raw<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
    EXPECT_EQ(info.global_mem_size, raw<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
    EXPECT_EQ(info.max_work_group_size, raw<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    EXPECT_EQ(info.max_compute_units, raw<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
    size_t item_sizes[3] = {};
    ASSERT_EQ(
        clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_sizes, item_sizes, nullptr),
        CL_SUCCESS);
    EXPECT_EQ(info.max_work_item_sizes[0], item_sizes[0]);

    const std::string extensions =
        std::string(" ").append(raw_string(d, CL_DEVICE_EXTENSIONS)).append(" ");
    const bool fp16 = extensions.find(" cl_khr_fp16 ") != std::string::npos;
    const bool fp64 = extensions.find(" cl_khr_fp64 ") != std::string::npos ||
                      raw<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
    EXPECT_EQ(info.features.fp16_arithmetic, fp16);
    EXPECT_EQ(info.features.fp64, fp64);
    EXPECT_TRUE(info.features.fp16_storage);
    EXPECT_EQ(info.features.atomic64,
              extensions.find(" cl_khr_int64_base_atomics ") != std::string::npos);
    ASSERT_FALSE(info.extensions.empty());
    for (const auto& e : info.extensions) {
      EXPECT_NE(extensions.find(" " + e + " "), std::string::npos) << e;
    }
    EXPECT_EQ(info.api_limits.at("max_parameter_size").get<uint64_t>(),
              raw<size_t>(d, CL_DEVICE_MAX_PARAMETER_SIZE));
    EXPECT_EQ(info.api_limits.at("max_constant_buffer_size").get<uint64_t>(),
              raw<cl_ulong>(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE));
    EXPECT_TRUE(info.usable) << info.unusable_reason;
  }
}

TEST(OpenClEnumerate, PocLIsACpuDeviceWithUnifiedMemory) {
  auto listed = backends::opencl::enumerate();
  ASSERT_TRUE(listed.is_ok()) << listed.error().describe();
  ASSERT_FALSE(listed->empty());
  bool saw_pocl = false;
  for (const auto& info : *listed) {
    if (info.platform_name != "Portable Computing Language") continue;
    saw_pocl = true;
    EXPECT_EQ(info.device_type, "cpu");
    EXPECT_TRUE(info.host_unified_memory);
    EXPECT_FALSE(info.pci_bus_id.has_value());  // a CPU device has no PCI address
    EXPECT_GT(info.local_mem_size, 0u);
  }
  EXPECT_TRUE(saw_pocl) << "PoCL is the OpenCL driver these tests run on";
}

TEST(OpenClEnumerate, OpenOutOfRangeIsNotFound) {
  auto device = backends::opencl::open(999);
  ASSERT_FALSE(device.is_ok());
  EXPECT_EQ(device.error().kind, core::ErrorKind::not_found);
  EXPECT_EQ(device.error().device, "opencl:999");
  EXPECT_FALSE(backends::opencl::open(-1).is_ok());
}

TEST(OpenClErrors, CodesHaveTheirHeaderNamesAndMemoryCodesAreOutOfMemory) {
  using backends::opencl::cl_error;
  using backends::opencl::error_name;
  EXPECT_STREQ(error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_STREQ(error_name(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_STREQ(error_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  EXPECT_STREQ(error_name(CL_INVALID_BUFFER_SIZE), "CL_INVALID_BUFFER_SIZE");
  EXPECT_STREQ(error_name(-12345), "CL_UNKNOWN_ERROR");
  auto e = cl_error("clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES, "opencl:1", "kernel 'k'");
  EXPECT_EQ(e.kind, core::ErrorKind::api_error);
  EXPECT_EQ(e.describe(),
            "opencl:1: clEnqueueNDRangeKernel returned -5 (CL_OUT_OF_RESOURCES): kernel 'k'");
  EXPECT_EQ(cl_error("clEnqueueWriteBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE, "opencl:0").kind,
            core::ErrorKind::out_of_memory);
}

}  // namespace
}  // namespace gauntlet
