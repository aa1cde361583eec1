// enumerate() against what the driver answers when asked directly through the C API.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "backends/vulkan/vk_common.h"
#include "tests/backends/vulkan_fixture.h"

namespace gauntlet::testing {
namespace {

// The driver's own answers for the first physical device with a compute queue.
struct DriverView {
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMaintenance3Properties maintenance3{};
  VkPhysicalDeviceSubgroupProperties subgroup{};
  VkPhysicalDeviceIDProperties id{};
  VkPhysicalDeviceVulkan11Features v11{};
  VkPhysicalDeviceVulkan12Features v12{};
  VkPhysicalDeviceFeatures2 features{};
  VkPhysicalDeviceMemoryProperties memory{};
  size_t compute_devices = 0;
};

class RawInstance {
 public:
  RawInstance() {
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    result = vkCreateInstance(&info, nullptr, &instance);
  }
  ~RawInstance() {
    if (result == VK_SUCCESS) vkDestroyInstance(instance, nullptr);
  }
  VkInstance instance = VK_NULL_HANDLE;
  VkResult result;
};

bool has_compute_queue(VkPhysicalDevice device) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &n, families.data());
  return std::any_of(families.begin(), families.end(), [](const VkQueueFamilyProperties& f) {
    return (f.queueFlags & VK_QUEUE_COMPUTE_BIT) && f.queueCount > 0;
  });
}

void query(const RawInstance& raw, DriverView& view) {
  uint32_t n = 0;
  ASSERT_EQ(vkEnumeratePhysicalDevices(raw.instance, &n, nullptr), VK_SUCCESS);
  std::vector<VkPhysicalDevice> devices(n);
  ASSERT_EQ(vkEnumeratePhysicalDevices(raw.instance, &n, devices.data()), VK_SUCCESS);
  std::vector<VkPhysicalDevice> compute;
  for (auto d : devices) {
    if (has_compute_queue(d)) compute.push_back(d);
  }
  view.compute_devices = compute.size();
  ASSERT_FALSE(compute.empty()) << "no Vulkan device with a compute queue (is llvmpipe installed?)";
  VkPhysicalDevice device = compute[0];

  VkPhysicalDeviceProperties2 props2{};
  props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  view.maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  view.subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  view.id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  props2.pNext = &view.maintenance3;
  view.maintenance3.pNext = &view.subgroup;
  view.subgroup.pNext = &view.id;
  vkGetPhysicalDeviceProperties2(device, &props2);
  view.props = props2.properties;

  view.features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  view.v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  view.v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  view.features.pNext = &view.v11;
  view.v11.pNext = &view.v12;
  vkGetPhysicalDeviceFeatures2(device, &view.features);
  vkGetPhysicalDeviceMemoryProperties(device, &view.memory);
}

TEST_F(VulkanTest, EnumerateMatchesTheDriver) {
  RawInstance raw;
  ASSERT_EQ(raw.result, VK_SUCCESS);
  DriverView view;
  ASSERT_NO_FATAL_FAILURE(query(raw, view));
  ASSERT_GE(view.props.apiVersion, VK_API_VERSION_1_2) << "the test queries 1.2 feature structures";

  auto listed = backends::vulkan::enumerate(options_);
  ASSERT_TRUE(listed.is_ok()) << listed.error().describe();
  ASSERT_EQ(listed->size(), view.compute_devices);
  const core::DeviceInfo& info = listed->front();
  EXPECT_EQ(info.id.to_string(), "vulkan:0");
  EXPECT_TRUE(info.usable) << info.unusable_reason;
  EXPECT_EQ(info.name, view.props.deviceName);
  EXPECT_EQ(info.vendor_id, view.props.vendorID);
  EXPECT_EQ(info.device_id, view.props.deviceID);
  EXPECT_FALSE(info.driver_name.empty());

  const auto& limits = view.props.limits;
  EXPECT_EQ(info.local_mem_size, limits.maxComputeSharedMemorySize);
  EXPECT_EQ(info.max_work_group_size, limits.maxComputeWorkGroupInvocations);
  for (int d = 0; d < 3; ++d)
    EXPECT_EQ(info.max_work_item_sizes[d], limits.maxComputeWorkGroupSize[d]);
  EXPECT_EQ(info.max_mem_alloc_size, view.maintenance3.maxMemoryAllocationSize);
  EXPECT_EQ(info.api_limits["maxStorageBufferRange"].get<uint64_t>(), limits.maxStorageBufferRange);
  EXPECT_EQ(info.api_limits["maxPushConstantsSize"].get<uint64_t>(), limits.maxPushConstantsSize);
  EXPECT_EQ(info.api_limits["maxComputeSharedMemorySize"].get<uint64_t>(),
            limits.maxComputeSharedMemorySize);
  EXPECT_EQ(info.api_limits["maxComputeWorkGroupCount"][0].get<uint64_t>(),
            limits.maxComputeWorkGroupCount[0]);
  EXPECT_FLOAT_EQ(info.api_limits["timestampPeriod"].get<float>(), limits.timestampPeriod);

  // Heaps, and global memory as the largest device-local heap.
  ASSERT_EQ(info.heaps.size(), view.memory.memoryHeapCount);
  uint64_t largest_local = 0;
  for (uint32_t h = 0; h < view.memory.memoryHeapCount; ++h) {
    const auto& heap = view.memory.memoryHeaps[h];
    EXPECT_EQ(info.heaps[h].size, heap.size);
    EXPECT_EQ(info.heaps[h].device_local, (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0);
    if (heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      largest_local = std::max(largest_local, heap.size);
  }
  EXPECT_EQ(info.global_mem_size, largest_local);

  const auto& f = info.features;
  EXPECT_EQ(f.fp16_storage, view.v11.storageBuffer16BitAccess == VK_TRUE);
  EXPECT_EQ(f.fp16_arithmetic, view.v12.shaderFloat16 == VK_TRUE);
  EXPECT_EQ(f.int8_storage, view.v12.storageBuffer8BitAccess == VK_TRUE);
  EXPECT_EQ(f.int8_arithmetic, view.v12.shaderInt8 == VK_TRUE);
  EXPECT_EQ(f.fp64, view.features.features.shaderFloat64 == VK_TRUE);
  EXPECT_EQ(f.atomic64, view.v12.shaderBufferInt64Atomics == VK_TRUE);

  ASSERT_FALSE(info.subgroup_sizes.empty());
  EXPECT_NE(
      std::find(info.subgroup_sizes.begin(), info.subgroup_sizes.end(), view.subgroup.subgroupSize),
      info.subgroup_sizes.end());

  std::string uuid;
  for (uint8_t b : view.id.deviceUUID) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    uuid += two;
  }
  ASSERT_TRUE(info.uuid.has_value());
  EXPECT_EQ(*info.uuid, uuid);
  EXPECT_FALSE(info.extensions.empty());
}

TEST_F(VulkanTest, EnumerateNamesTheDeviceType) {
  auto listed = backends::vulkan::enumerate(options_);
  ASSERT_TRUE(listed.is_ok()) << listed.error().describe();
  ASSERT_FALSE(listed->empty());
  for (const auto& info : *listed) {
    const std::vector<std::string> known{"discrete_gpu", "integrated_gpu", "virtual_gpu", "cpu",
                                         "other"};
    EXPECT_NE(std::find(known.begin(), known.end(), info.device_type), known.end())
        << info.device_type;
    if (info.driver_name == "llvmpipe") {
      EXPECT_EQ(info.device_type, "cpu");
    }
  }
}

// The messenger the fixture relies on really records: a message injected through
// VK_EXT_debug_utils lands in validation_messages().
TEST_F(VulkanTest, ValidationMessengerRecordsMessages) {
  auto bundle = backends::vulkan::create_instance(true);
  ASSERT_TRUE(bundle->validation);
  vk::DebugUtilsMessengerCallbackDataEXT data({}, "gauntlet-self-check", 0, "injected message");
  bundle->instance.submitDebugUtilsMessageEXT(vk::DebugUtilsMessageSeverityFlagBitsEXT::eError,
                                              vk::DebugUtilsMessageTypeFlagBitsEXT::eValidation,
                                              data);
  auto messages = backends::vulkan::validation_messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "ERROR gauntlet-self-check: injected message");
  backends::vulkan::clear_validation_messages();
}

}  // namespace
}  // namespace gauntlet::testing
