#include <algorithm>
#include <cstdio>
#include <sstream>

#include "backends/opencl/cl_common.h"
#include "backends/opencl/opencl_device.h"

namespace gauntlet::backends::opencl {

namespace {

// cl_nv_device_attribute_query; not in the Khronos headers.
constexpr cl_device_info kPciBusIdNv = 0x4008;
constexpr cl_device_info kPciSlotIdNv = 0x4009;
constexpr cl_device_info kPciDomainIdNv = 0x400A;

template <typename T>
bool query(cl_device_id device, cl_device_info param, T& out) {
  return clGetDeviceInfo(device, param, sizeof(T), &out, nullptr) == CL_SUCCESS;
}

std::string query_string(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  if (clGetDeviceInfo(device, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (clGetDeviceInfo(device, param, size, text.data(), nullptr) != CL_SUCCESS) return {};
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info param) {
  size_t size = 0;
  if (clGetPlatformInfo(platform, param, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (clGetPlatformInfo(platform, param, size, text.data(), nullptr) != CL_SUCCESS) return {};
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "gpu";
  if (type & CL_DEVICE_TYPE_CPU) return "cpu";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CUSTOM) return "custom";
  return "other";
}

std::string pci_address(unsigned domain, unsigned bus, unsigned dev, unsigned fn) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain & 0xffffu, bus & 0xffu, dev & 0x1fu,
                fn & 0x7u);
  return text;
}

std::optional<std::string> pci_bus_id(cl_device_id device,
                                      const std::vector<std::string>& extensions) {
  if (has(extensions, "cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr info{};
    if (query(device, CL_DEVICE_PCI_BUS_INFO_KHR, info)) {
      return pci_address(info.pci_domain, info.pci_bus, info.pci_device, info.pci_function);
    }
  }
  if (has(extensions, "cl_nv_device_attribute_query")) {
    cl_uint bus = 0, slot = 0, domain = 0;
    if (query(device, kPciBusIdNv, bus) && query(device, kPciSlotIdNv, slot)) {
      if (!query(device, kPciDomainIdNv, domain)) domain = 0;
      return pci_address(domain, bus, slot >> 3, slot & 7);
    }
  }
  if (has(extensions, "cl_amd_device_attribute_query")) {
    cl_device_topology_amd topo{};
    if (query(device, CL_DEVICE_TOPOLOGY_AMD, topo) &&
        topo.raw.type == CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD) {
      return pci_address(0, static_cast<unsigned char>(topo.pcie.bus),
                         static_cast<unsigned char>(topo.pcie.device),
                         static_cast<unsigned char>(topo.pcie.function));
    }
  }
  return std::nullopt;
}

std::optional<std::string> device_uuid(cl_device_id device,
                                       const std::vector<std::string>& extensions) {
  if (!has(extensions, "cl_khr_device_uuid")) return std::nullopt;
  cl_uchar uuid[CL_UUID_SIZE_KHR] = {};
  if (clGetDeviceInfo(device, CL_DEVICE_UUID_KHR, sizeof uuid, uuid, nullptr) != CL_SUCCESS) {
    return std::nullopt;
  }
  std::string hex;
  char byte[3];
  for (cl_uchar b : uuid) {
    std::snprintf(byte, sizeof byte, "%02x", b);
    hex += byte;
  }
  return hex;
}

std::vector<uint32_t> subgroup_sizes(cl_device_id device,
                                     const std::vector<std::string>& extensions) {
  std::vector<uint32_t> out;
  if (!has(extensions, "cl_intel_required_subgroup_size")) return out;
  size_t bytes = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, nullptr, &bytes) != CL_SUCCESS ||
      bytes == 0) {
    return out;
  }
  std::vector<size_t> sizes(bytes / sizeof(size_t));
  if (clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, bytes, sizes.data(), nullptr) ==
      CL_SUCCESS) {
    for (size_t s : sizes) out.push_back(static_cast<uint32_t>(s));
  }
  return out;
}

// "OpenCL 3.0 PoCL ..." -> 3
int major_version(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) < 1) return 0;
  return major;
}

void fill_limits(cl_device_id d, core::DeviceInfo& info) {
  auto& limits = info.api_limits;
  size_t size_value = 0;
  cl_ulong ulong_value = 0;
  cl_uint uint_value = 0;
  if (query(d, CL_DEVICE_MAX_PARAMETER_SIZE, size_value)) {
    limits["max_parameter_size"] = size_value;
  }
  if (query(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, ulong_value)) {
    limits["max_constant_buffer_size"] = ulong_value;
  }
  if (query(d, CL_DEVICE_MAX_CONSTANT_ARGS, uint_value)) limits["max_constant_args"] = uint_value;
  if (query(d, CL_DEVICE_PROFILING_TIMER_RESOLUTION, size_value)) {
    limits["profiling_timer_resolution"] = size_value;
  }
  if (query(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, uint_value)) {
    limits["mem_base_addr_align"] = uint_value;
  }
  if (query(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, ulong_value)) {
    limits["global_mem_cache_size"] = ulong_value;
  }
  if (query(d, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, uint_value)) {
    limits["global_mem_cacheline_size"] = uint_value;
  }
  if (query(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, uint_value)) {
    limits["max_clock_frequency"] = uint_value;
  }
  if (query(d, CL_DEVICE_ADDRESS_BITS, uint_value)) limits["address_bits"] = uint_value;
  cl_device_local_mem_type local_type = 0;
  if (query(d, CL_DEVICE_LOCAL_MEM_TYPE, local_type)) {
    limits["local_mem_type"] = local_type == CL_LOCAL ? "local" : "global";
  }
  if (query(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, uint_value)) {
    limits["preferred_vector_width_half"] = uint_value;
  }
  if (query(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, uint_value)) {
    limits["native_vector_width_float"] = uint_value;
  }
  if (major_version(info.api_version) >= 3 || major_version(info.api_version) == 2) {
    if (query(d, CL_DEVICE_MAX_NUM_SUB_GROUPS, uint_value)) {
      limits["max_num_sub_groups"] = uint_value;
    }
  }
  std::string c_version = query_string(d, CL_DEVICE_OPENCL_C_VERSION);
  if (!c_version.empty()) limits["opencl_c_version"] = c_version;
}

void fill_features(cl_device_id d, core::DeviceInfo& info) {
  const auto& ext = info.extensions;
  auto& f = info.features;
  f.fp16_arithmetic = has(ext, "cl_khr_fp16");
  f.fp16_storage = true;  // vload_half / vstore_half are core OpenCL C
  cl_device_fp_config double_config = 0;
  f.fp64 = has(ext, "cl_khr_fp64") ||
           (query(d, CL_DEVICE_DOUBLE_FP_CONFIG, double_config) && double_config != 0);
  f.int8_storage = true;  // char is core OpenCL C
  f.int8_arithmetic = true;
  f.integer_dot_product = has(ext, "cl_khr_integer_dot_product");
  f.atomic64 = has(ext, "cl_khr_int64_base_atomics");
  cl_uint max_sub_groups = 0;
  f.subgroups = has(ext, "cl_khr_subgroups") ||
                (major_version(info.api_version) >= 3 &&
                 query(d, CL_DEVICE_MAX_NUM_SUB_GROUPS, max_sub_groups) && max_sub_groups > 0);
  f.bf16 = has(ext, "cl_intel_bfloat16_conversions");
}

// A device is usable when a context and a queue can be made on it.
void try_context(const cl::Device& device, core::DeviceInfo& info) {
  cl_int err = CL_SUCCESS;
  cl::Context context(device, nullptr, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    info.usable = false;
    info.unusable_reason = cl_error("clCreateContext", err, info.id.to_string()).describe();
    return;
  }
  cl::CommandQueue queue(context, device, cl::QueueProperties::None, &err);
  if (err != CL_SUCCESS) {
    info.usable = false;
    info.unusable_reason =
        cl_error("clCreateCommandQueueWithProperties", err, info.id.to_string()).describe();
  }
}

}  // namespace

Result<std::vector<DeviceSlot>> list_devices() {
  std::vector<cl::Platform> platforms;
  cl_int err = cl::Platform::get(&platforms);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && platforms.empty())) {
    return std::vector<DeviceSlot>{};
  }
  if (err != CL_SUCCESS) return cl_error("clGetPlatformIDs", err, "opencl");
  std::vector<DeviceSlot> slots;
  for (const auto& platform : platforms) {
    std::string platform_name = platform_string(platform(), CL_PLATFORM_NAME);
    std::vector<cl::Device> devices;
    err = platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (err == CL_DEVICE_NOT_FOUND) continue;
    if (err != CL_SUCCESS) {
      slots.push_back(DeviceSlot{platform, cl::Device(), platform_name, err});
      continue;
    }
    for (auto& device : devices) {
      slots.push_back(DeviceSlot{platform, device, platform_name, CL_SUCCESS});
    }
  }
  return slots;
}

core::DeviceInfo describe(const DeviceSlot& slot, int index, bool check_usable) {
  core::DeviceInfo info;
  info.id = core::DeviceId{core::Api::opencl, index};
  info.platform_name = slot.platform_name;
  info.driver_name = slot.platform_name;
  info.api_limits = core::Json::object();
  std::string platform_version = platform_string(slot.platform(), CL_PLATFORM_VERSION);
  if (!platform_version.empty()) info.api_limits["platform_version"] = platform_version;
  if (slot.list_error != CL_SUCCESS) {
    info.name = "(devices of platform '" + slot.platform_name + "')";
    info.usable = false;
    info.unusable_reason =
        cl_error("clGetDeviceIDs", slot.list_error, info.id.to_string()).describe();
    return info;
  }
  cl_device_id d = slot.device();
  info.name = query_string(d, CL_DEVICE_NAME);
  info.vendor = query_string(d, CL_DEVICE_VENDOR);
  cl_uint vendor_id = 0;
  if (query(d, CL_DEVICE_VENDOR_ID, vendor_id)) info.vendor_id = vendor_id;
  info.driver_version = query_string(d, CL_DRIVER_VERSION);
  info.api_version = query_string(d, CL_DEVICE_VERSION);
  cl_device_type type = 0;
  if (query(d, CL_DEVICE_TYPE, type)) info.device_type = device_type_name(type);
  info.extensions = split_words(query_string(d, CL_DEVICE_EXTENSIONS));
  info.pci_bus_id = pci_bus_id(d, info.extensions);
  info.uuid = device_uuid(d, info.extensions);

  cl_ulong ulong_value = 0;
  if (query(d, CL_DEVICE_GLOBAL_MEM_SIZE, ulong_value)) info.global_mem_size = ulong_value;
  if (query(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, ulong_value)) info.max_mem_alloc_size = ulong_value;
  if (query(d, CL_DEVICE_LOCAL_MEM_SIZE, ulong_value)) info.local_mem_size = ulong_value;
  cl_bool unified = CL_FALSE;
  info.host_unified_memory = query(d, CL_DEVICE_HOST_UNIFIED_MEMORY, unified) && unified;
  // As in Vulkan, the memory the device computes on counts as device-local even when shared.
  info.heaps.push_back(core::MemoryHeap{info.global_mem_size, true});

  size_t wg = 0;
  if (query(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, wg)) info.max_work_group_size = wg;
  cl_uint dims = 0;
  if (query(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims) && dims > 0) {
    std::vector<size_t> sizes(dims);
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes.size() * sizeof(size_t),
                        sizes.data(), nullptr) == CL_SUCCESS) {
      for (size_t i = 0; i < 3; ++i) info.max_work_item_sizes[i] = i < dims ? sizes[i] : 1;
    }
  }
  cl_uint units = 0;
  if (query(d, CL_DEVICE_MAX_COMPUTE_UNITS, units)) info.max_compute_units = units;
  info.subgroup_sizes = subgroup_sizes(d, info.extensions);
  fill_features(d, info);
  fill_limits(d, info);
  if (check_usable) try_context(slot.device, info);
  return info;
}

Result<std::vector<core::DeviceInfo>> enumerate() {
  auto slots = list_devices();
  if (!slots) return slots.error();
  std::vector<core::DeviceInfo> out;
  for (size_t i = 0; i < slots->size(); ++i) {
    out.push_back(describe((*slots)[i], static_cast<int>(i)));
  }
  return out;
}

}  // namespace gauntlet::backends::opencl
