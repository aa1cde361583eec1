// Enumeration: what each physical device claims, and whether a logical device can be made.
#include <algorithm>
#include <cstdio>

#include "backends/vulkan/vk_common.h"
#include "backends/vulkan/vulkan_device.h"

namespace gauntlet::backends::vulkan {

namespace {

std::string device_type_name(vk::PhysicalDeviceType type) {
  switch (type) {
    case vk::PhysicalDeviceType::eDiscreteGpu:
      return "discrete_gpu";
    case vk::PhysicalDeviceType::eIntegratedGpu:
      return "integrated_gpu";
    case vk::PhysicalDeviceType::eVirtualGpu:
      return "virtual_gpu";
    case vk::PhysicalDeviceType::eCpu:
      return "cpu";
    default:
      return "other";
  }
}

std::string hex_bytes(const uint8_t* bytes, size_t n) {
  std::string out;
  char two[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(two, sizeof two, "%02x", bytes[i]);
    out += two;
  }
  return out;
}

void fill_memory(const ComputeDevice& device, bool has_budget, core::DeviceInfo& info) {
  vk::PhysicalDeviceMemoryProperties2 props2;
  vk::PhysicalDeviceMemoryBudgetPropertiesEXT budget;
  if (has_budget) props2.pNext = &budget;
  (*device.physical).getMemoryProperties2(&props2, *device.physical.getDispatcher());
  const auto& mem = props2.memoryProperties;
  // global_mem_size is the largest device-local heap, not the sum: one allocation pool is what
  // a workload can count on, and the sum would add a small host-visible BAR heap to VRAM.
  uint32_t largest = UINT32_MAX;
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h) {
    bool local = static_cast<bool>(mem.memoryHeaps[h].flags & vk::MemoryHeapFlagBits::eDeviceLocal);
    info.heaps.push_back(core::MemoryHeap{mem.memoryHeaps[h].size, local});
    if (local &&
        (largest == UINT32_MAX || mem.memoryHeaps[h].size > mem.memoryHeaps[largest].size)) {
      largest = h;
    }
  }
  if (largest == UINT32_MAX && mem.memoryHeapCount > 0) largest = 0;
  if (largest != UINT32_MAX) {
    info.global_mem_size = mem.memoryHeaps[largest].size;
    const auto both =
        vk::MemoryPropertyFlagBits::eDeviceLocal | vk::MemoryPropertyFlagBits::eHostVisible;
    for (uint32_t t = 0; t < mem.memoryTypeCount; ++t) {
      if (mem.memoryTypes[t].heapIndex == largest &&
          (mem.memoryTypes[t].propertyFlags & both) == both) {
        info.host_unified_memory = true;
      }
    }
  }
  if (has_budget) {
    core::Json budgets = core::Json::array();
    core::Json usage = core::Json::array();
    for (uint32_t h = 0; h < mem.memoryHeapCount; ++h) {
      budgets.push_back(budget.heapBudget[h]);
      usage.push_back(budget.heapUsage[h]);
    }
    info.api_limits["heapBudget"] = budgets;
    info.api_limits["heapUsage"] = usage;
  }
}

// Creates and drops a logical device with one compute queue: the test of "usable".
void try_logical_device(const ComputeDevice& device, uint32_t api,
                        const std::vector<vk::ExtensionProperties>& extensions) {
  FeatureChain features(device.physical, api);
  float priority = 1.0f;
  vk::DeviceQueueCreateInfo queue({}, device.queue_family, 1, &priority);
  auto enabled = device_extensions(extensions);
  vk::DeviceCreateInfo create({}, queue, {}, enabled, nullptr, &features.head());
  vk::raii::Device logical(device.physical, create);
  vk::raii::Queue q(logical, device.queue_family, 0);
  (void)q;
}

}  // namespace

uint32_t device_api(const vk::raii::PhysicalDevice& physical, uint32_t instance_api) {
  return std::min(physical.getProperties().apiVersion, instance_api);
}

core::DeviceInfo describe(const ComputeDevice& device, int index, uint32_t instance_api) {
  const auto& physical = device.physical;
  const uint32_t api = device_api(physical, instance_api);
  auto extensions = physical.enumerateDeviceExtensionProperties();
  const bool has_pci = has_extension(extensions, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
  const bool has_budget = has_extension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  const bool has_size_control =
      api >= VK_API_VERSION_1_3 ||
      has_extension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);

  vk::PhysicalDeviceProperties2 props2;
  vk::PhysicalDeviceIDProperties id;
  vk::PhysicalDeviceDriverProperties driver;
  vk::PhysicalDeviceMaintenance3Properties maintenance3;
  vk::PhysicalDeviceSubgroupProperties subgroup;
  vk::PhysicalDeviceSubgroupSizeControlProperties size_control;
  vk::PhysicalDeviceMaintenance4Properties maintenance4;
  vk::PhysicalDevicePCIBusInfoPropertiesEXT pci;
  props2.pNext = &id;
  id.pNext = &maintenance3;
  maintenance3.pNext = &subgroup;
  void** tail = &subgroup.pNext;
  if (api >= VK_API_VERSION_1_2) {
    *tail = &driver;
    tail = &driver.pNext;
  }
  if (has_size_control) {
    *tail = &size_control;
    tail = &size_control.pNext;
  }
  if (api >= VK_API_VERSION_1_3) {
    *tail = &maintenance4;
    tail = &maintenance4.pNext;
  }
  if (has_pci) *tail = &pci;
  (*physical).getProperties2(&props2, *physical.getDispatcher());
  const auto& p = props2.properties;
  const auto& limits = p.limits;
  FeatureChain features(physical, api);

  core::DeviceInfo info;
  info.id = core::DeviceId{core::Api::vulkan, index};
  info.name = p.deviceName.data();
  info.vendor_id = p.vendorID;
  info.device_id = p.deviceID;
  info.vendor = vendor_name(p.vendorID);
  info.api_version = version_string(p.apiVersion);
  info.device_type = device_type_name(p.deviceType);
  info.platform_name = "Vulkan";
  if (api >= VK_API_VERSION_1_2) {
    info.driver_name = driver.driverName.data();
    info.driver_version = driver.driverInfo.data();
  }
  if (info.driver_version.empty()) info.driver_version = version_string(p.driverVersion);
  if (has_pci) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", pci.pciDomain, pci.pciBus, pci.pciDevice,
                  pci.pciFunction);
    info.pci_bus_id = bus;
  }
  info.uuid = hex_bytes(id.deviceUUID.data(), VK_UUID_SIZE);

  fill_memory(device, has_budget, info);
  info.max_mem_alloc_size = maintenance3.maxMemoryAllocationSize;
  info.local_mem_size = limits.maxComputeSharedMemorySize;
  info.max_work_group_size = limits.maxComputeWorkGroupInvocations;
  for (int d = 0; d < 3; ++d) info.max_work_item_sizes[d] = limits.maxComputeWorkGroupSize[d];
  if (subgroup.subgroupSize != 0) info.subgroup_sizes.push_back(subgroup.subgroupSize);
  if (has_size_control) {
    for (uint32_t s : {size_control.minSubgroupSize, size_control.maxSubgroupSize}) {
      if (s != 0 && std::find(info.subgroup_sizes.begin(), info.subgroup_sizes.end(), s) ==
                        info.subgroup_sizes.end()) {
        info.subgroup_sizes.push_back(s);
      }
    }
    std::sort(info.subgroup_sizes.begin(), info.subgroup_sizes.end());
  }

  auto& f = info.features;
  f.fp16_storage = features.v11().storageBuffer16BitAccess;
  f.fp64 = features.core().shaderFloat64;
  if (features.has_v12()) {
    f.fp16_arithmetic = features.v12().shaderFloat16;
    f.int8_storage = features.v12().storageBuffer8BitAccess;
    f.int8_arithmetic = features.v12().shaderInt8;
    f.atomic64 = features.v12().shaderBufferInt64Atomics;
  }
  f.integer_dot_product =
      features.has_v13()
          ? static_cast<bool>(features.v13().shaderIntegerDotProduct)
          : has_extension(extensions, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  f.cooperative_matrix = has_extension(extensions, "VK_KHR_cooperative_matrix") ||
                         has_extension(extensions, "VK_NV_cooperative_matrix");
  f.bf16 = has_extension(extensions, "VK_KHR_shader_bfloat16");
  f.subgroups = subgroup.subgroupSize > 0 &&
                (subgroup.supportedStages & vk::ShaderStageFlagBits::eCompute) &&
                (subgroup.supportedOperations & vk::SubgroupFeatureFlagBits::eBasic);

  auto& l = info.api_limits;
  l["maxStorageBufferRange"] = limits.maxStorageBufferRange;
  l["maxTexelBufferElements"] = limits.maxTexelBufferElements;
  l["maxPushConstantsSize"] = limits.maxPushConstantsSize;
  l["maxComputeSharedMemorySize"] = limits.maxComputeSharedMemorySize;
  l["maxComputeWorkGroupCount"] = {limits.maxComputeWorkGroupCount[0],
                                   limits.maxComputeWorkGroupCount[1],
                                   limits.maxComputeWorkGroupCount[2]};
  l["maxComputeWorkGroupSize"] = {limits.maxComputeWorkGroupSize[0],
                                  limits.maxComputeWorkGroupSize[1],
                                  limits.maxComputeWorkGroupSize[2]};
  l["maxComputeWorkGroupInvocations"] = limits.maxComputeWorkGroupInvocations;
  l["maxMemoryAllocationSize"] = maintenance3.maxMemoryAllocationSize;
  if (api >= VK_API_VERSION_1_3) l["maxBufferSize"] = maintenance4.maxBufferSize;
  l["maxPerStageDescriptorStorageBuffers"] = limits.maxPerStageDescriptorStorageBuffers;
  l["minStorageBufferOffsetAlignment"] = limits.minStorageBufferOffsetAlignment;
  l["timestampPeriod"] = limits.timestampPeriod;
  l["timestampComputeAndGraphics"] = static_cast<bool>(limits.timestampComputeAndGraphics);
  l["timestampValidBits"] =
      physical.getQueueFamilyProperties()[device.queue_family].timestampValidBits;
  l["subgroupSize"] = subgroup.subgroupSize;
  if (has_size_control) {
    l["minSubgroupSize"] = size_control.minSubgroupSize;
    l["maxSubgroupSize"] = size_control.maxSubgroupSize;
  }
  for (const auto& e : extensions) info.extensions.emplace_back(e.extensionName.data());
  std::sort(info.extensions.begin(), info.extensions.end());
  return info;
}

Result<std::vector<core::DeviceInfo>> enumerate(const core::Options& options) {
  return guarded("vulkan", [&]() -> Result<std::vector<core::DeviceInfo>> {
    auto bundle = create_instance(options.vulkan_validation);
    auto devices = compute_devices(bundle->instance);
    std::vector<core::DeviceInfo> out;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string name = device_name(static_cast<int>(i));
      auto described = guarded(name, [&]() -> Result<core::DeviceInfo> {
        return describe(devices[i], static_cast<int>(i), bundle->api_version);
      });
      if (!described) {
        core::DeviceInfo broken;
        broken.id = core::DeviceId{core::Api::vulkan, static_cast<int>(i)};
        broken.usable = false;
        broken.unusable_reason = described.error().describe();
        out.push_back(std::move(broken));
        continue;
      }
      core::DeviceInfo info = std::move(described.value());
      Status usable = guarded(name, [&]() -> Status {
        const uint32_t api = device_api(devices[i].physical, bundle->api_version);
        try_logical_device(devices[i], api,
                           devices[i].physical.enumerateDeviceExtensionProperties());
        return Status::ok();
      });
      if (!usable.is_ok()) {
        info.usable = false;
        info.unusable_reason = usable.describe();
      }
      out.push_back(std::move(info));
    }
    return out;
  });
}

}  // namespace gauntlet::backends::vulkan
