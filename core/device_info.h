#pragma once
// What a driver claims about a device, as plain data. Probes fill it; later stages read it.
// Field names follow clinfo's (OpenCL) terms; Vulkan-only limits keep vulkaninfo's names in
// `api_limits`.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace gauntlet::core {

enum class Api { host, opencl, vulkan, drm };

const char* to_string(Api api);
std::optional<Api> api_from_string(const std::string& text);

// How a device is addressed: "opencl:0", "vulkan:1", "drm:0", "host".
struct DeviceId {
  Api api = Api::host;
  int index = 0;

  std::string to_string() const;
  static std::optional<DeviceId> parse(const std::string& text);
  bool operator==(const DeviceId&) const = default;
};

// How a device computes its matrix products, which a decode on it and its checks build on.
// kernels: its API's own (OpenCL, Vulkan). The host API's devices run the reference's forward
// pass in this process: exact, the reference itself (host); int8_simd, activations rounded to
// 8-bit blocks against integer SIMD dot products as llama.cpp's CPU backend computes them (the
// cpu device: compared with the reference at the 8-bit bound, its rows laid out for those
// products on load, its peak the SIMD one).
enum class Products { kernels, exact, int8_simd };

const char* to_string(Products products);
std::optional<Products> products_from_string(const std::string& text);

struct MemoryHeap {
  uint64_t size = 0;
  bool device_local = false;
};

// A feature as the driver states it. `claimed` is what the driver says; whether it works is for
// conformance to find out.
struct Features {
  bool fp16_storage = false;     // 16-bit loads and stores
  bool fp16_arithmetic = false;  // native half arithmetic (cl_khr_fp16 / shaderFloat16)
  bool bf16 = false;             // native bfloat16 (VK_KHR_shader_bfloat16 / cl_intel_bfloat16_*)
  bool fp64 = false;
  bool int8_storage = false;
  bool int8_arithmetic = false;
  bool integer_dot_product = false;
  bool atomic64 = false;
  bool cooperative_matrix = false;
  bool subgroups = false;
};

struct DeviceInfo {
  DeviceId id;
  // identity
  std::string name;
  std::string vendor;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string driver_name;
  std::string driver_version;
  std::string api_version;
  std::string device_type;  // "gpu", "cpu", "integrated_gpu", "discrete_gpu", "virtual_gpu", ...
  std::string platform_name;
  std::optional<std::string> pci_bus_id;  // "0000:c1:00.0"
  std::optional<std::string> uuid;        // hex, 32 characters
  // memory
  uint64_t global_mem_size = 0;
  uint64_t max_mem_alloc_size = 0;
  bool host_unified_memory = false;
  std::vector<MemoryHeap> heaps;
  uint64_t local_mem_size = 0;
  // execution
  uint64_t max_work_group_size = 0;
  std::array<uint64_t, 3> max_work_item_sizes{0, 0, 0};
  std::vector<uint32_t> subgroup_sizes;
  uint32_t max_compute_units = 0;
  Features features;
  Products products = Products::kernels;
  // API-specific limits later stages use, e.g. maxStorageBufferRange, maxPushConstantsSize.
  Json api_limits = Json::object();
  std::vector<std::string> extensions;
  // A device that enumerates but cannot be used (no context, no queue) says why here.
  bool usable = true;
  std::string unusable_reason;
};

void to_json(Json& j, const Features& f);
void from_json(const Json& j, Features& f);
void to_json(Json& j, const DeviceInfo& info);
void from_json(const Json& j, DeviceInfo& info);

}  // namespace gauntlet::core
