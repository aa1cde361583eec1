// `gauntlet probe --json` against what each driver answers through its own query API, for the
// same devices: the figures later stages trust must be the driver's, not constants.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/json.h"
#include "tests/support/run_command.h"

namespace gauntlet::testing {
namespace {

// PoCL sizes its device from the memory free at the moment; a fixed limit makes the figures the
// same for the gauntlet process and this one.
constexpr const char* kStablePocl = "POCL_MEMORY_LIMIT=2";

core::Json probe(const std::string& device) {
  auto r = run_command(std::string(kStablePocl) + " " + gauntlet_exe() + " probe --json --device " +
                       device);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto json = core::Json::parse(r.output);
  return json["devices"].at(0)["info"];
}

template <typename T>
T cl_info(cl_device_id device, cl_device_info what) {
  T value{};
  EXPECT_EQ(clGetDeviceInfo(device, what, sizeof value, &value, nullptr), CL_SUCCESS);
  return value;
}

std::string cl_extensions(cl_device_id device) {
  size_t size = 0;
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string text(size, '\0');
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, text.data(), nullptr);
  return text;
}

TEST(ProbeAgainstDriver, OpenclZeroMatchesClGetDeviceInfo) {
  ::setenv("POCL_MEMORY_LIMIT", "2", 1);
  cl_platform_id platform = nullptr;
  ASSERT_EQ(clGetPlatformIDs(1, &platform, nullptr), CL_SUCCESS);
  cl_device_id device = nullptr;
  ASSERT_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), CL_SUCCESS);
  auto info = probe("opencl:0");
  EXPECT_EQ(info["local_mem_size"], cl_info<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE));
  EXPECT_EQ(info["max_mem_alloc_size"], cl_info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  EXPECT_EQ(info["global_mem_size"], cl_info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE));
  EXPECT_EQ(info["max_work_group_size"], cl_info<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  const std::string extensions = cl_extensions(device);
  EXPECT_EQ(info["features"]["fp16_arithmetic"].get<bool>(),
            extensions.find("cl_khr_fp16") != std::string::npos);
  EXPECT_EQ(info["features"]["fp64"].get<bool>(),
            cl_info<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0);
  // 8-bit integers are core OpenCL C.
  EXPECT_TRUE(info["features"]["int8_arithmetic"].get<bool>());
}

TEST(ProbeAgainstDriver, VulkanZeroMatchesVkGetPhysicalDeviceProperties) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateInstance(&create, nullptr, &instance), VK_SUCCESS);
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
  ASSERT_GE(count, 1u);
  VkPhysicalDeviceMaintenance3Properties m3{};
  m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &m3;
  vkGetPhysicalDeviceProperties2(devices[0], &props);
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &f12;
  vkGetPhysicalDeviceFeatures2(devices[0], &features);
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(devices[0], &memory);
  uint64_t largest_local_heap = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      largest_local_heap = std::max<uint64_t>(largest_local_heap, memory.memoryHeaps[i].size);
    }
  }
  const auto& limits = props.properties.limits;
  auto info = probe("vulkan:0");
  EXPECT_EQ(info["name"], std::string(props.properties.deviceName));
  EXPECT_EQ(info["local_mem_size"], limits.maxComputeSharedMemorySize);
  EXPECT_EQ(info["max_work_group_size"], limits.maxComputeWorkGroupInvocations);
  EXPECT_EQ(info["max_mem_alloc_size"], m3.maxMemoryAllocationSize);
  EXPECT_EQ(info["global_mem_size"], largest_local_heap);
  EXPECT_EQ(info["features"]["fp16_arithmetic"].get<bool>(), f12.shaderFloat16 == VK_TRUE);
  EXPECT_EQ(info["features"]["int8_arithmetic"].get<bool>(), f12.shaderInt8 == VK_TRUE);
  EXPECT_EQ(info["features"]["fp64"].get<bool>(), features.features.shaderFloat64 == VK_TRUE);
  vkDestroyInstance(instance, nullptr);
}

}  // namespace
}  // namespace gauntlet::testing
