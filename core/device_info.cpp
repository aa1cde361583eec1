#include "core/device_info.h"

#include <charconv>

namespace gauntlet::core {

const char* to_string(Api api) {
  switch (api) {
    case Api::host:
      return "host";
    case Api::opencl:
      return "opencl";
    case Api::vulkan:
      return "vulkan";
    case Api::drm:
      return "drm";
  }
  return "unknown";
}

const char* to_string(Products products) {
  switch (products) {
    case Products::kernels:
      return "kernels";
    case Products::exact:
      return "exact";
    case Products::int8_simd:
      return "int8_simd";
  }
  return "unknown";
}

std::optional<Products> products_from_string(const std::string& text) {
  for (const auto p : {Products::kernels, Products::exact, Products::int8_simd}) {
    if (text == to_string(p)) return p;
  }
  return std::nullopt;
}

std::optional<Api> api_from_string(const std::string& text) {
  for (Api api : {Api::host, Api::opencl, Api::vulkan, Api::drm}) {
    if (text == to_string(api)) return api;
  }
  return std::nullopt;
}

std::string DeviceId::to_string() const {
  // The host API's second device is the fast CPU device (backends/host/host_device.h).
  if (api == Api::host) return index == 1 ? "cpu" : "host";
  return std::string(core::to_string(api)) + ":" + std::to_string(index);
}

std::optional<DeviceId> DeviceId::parse(const std::string& text) {
  if (text == "host" || text == "host:0") return DeviceId{Api::host, 0};
  if (text == "cpu" || text == "cpu:0") return DeviceId{Api::host, 1};
  auto colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto api = api_from_string(text.substr(0, colon));
  if (!api || *api == Api::host) return std::nullopt;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  int index = -1;
  auto [end, ec] = std::from_chars(first, last, index);
  if (ec != std::errc() || end != last || first == last || index < 0) return std::nullopt;
  return DeviceId{*api, index};
}

void to_json(Json& j, const Features& f) {
  j = Json{{"fp16_storage", f.fp16_storage},
           {"fp16_arithmetic", f.fp16_arithmetic},
           {"bf16", f.bf16},
           {"fp64", f.fp64},
           {"int8_storage", f.int8_storage},
           {"int8_arithmetic", f.int8_arithmetic},
           {"integer_dot_product", f.integer_dot_product},
           {"atomic64", f.atomic64},
           {"cooperative_matrix", f.cooperative_matrix},
           {"subgroups", f.subgroups}};
}

void from_json(const Json& j, Features& f) {
  f.fp16_storage = j.value("fp16_storage", false);
  f.fp16_arithmetic = j.value("fp16_arithmetic", false);
  f.bf16 = j.value("bf16", false);
  f.fp64 = j.value("fp64", false);
  f.int8_storage = j.value("int8_storage", false);
  f.int8_arithmetic = j.value("int8_arithmetic", false);
  f.integer_dot_product = j.value("integer_dot_product", false);
  f.atomic64 = j.value("atomic64", false);
  f.cooperative_matrix = j.value("cooperative_matrix", false);
  f.subgroups = j.value("subgroups", false);
}

void to_json(Json& j, const DeviceInfo& d) {
  Json heaps = Json::array();
  for (const auto& h : d.heaps)
    heaps.push_back({{"size", h.size}, {"device_local", h.device_local}});
  j = Json{{"id", d.id.to_string()},
           {"name", d.name},
           {"vendor", d.vendor},
           {"vendor_id", d.vendor_id},
           {"device_id", d.device_id},
           {"driver_name", d.driver_name},
           {"driver_version", d.driver_version},
           {"api_version", d.api_version},
           {"device_type", d.device_type},
           {"platform_name", d.platform_name},
           {"pci_bus_id", d.pci_bus_id ? Json(*d.pci_bus_id) : Json(nullptr)},
           {"uuid", d.uuid ? Json(*d.uuid) : Json(nullptr)},
           {"global_mem_size", d.global_mem_size},
           {"max_mem_alloc_size", d.max_mem_alloc_size},
           {"host_unified_memory", d.host_unified_memory},
           {"heaps", heaps},
           {"local_mem_size", d.local_mem_size},
           {"max_work_group_size", d.max_work_group_size},
           {"max_work_item_sizes", d.max_work_item_sizes},
           {"subgroup_sizes", d.subgroup_sizes},
           {"max_compute_units", d.max_compute_units},
           {"features", d.features},
           {"products", to_string(d.products)},
           {"api_limits", d.api_limits},
           {"extensions", d.extensions},
           {"usable", d.usable},
           {"unusable_reason", d.unusable_reason}};
}

void from_json(const Json& j, DeviceInfo& d) {
  auto id = DeviceId::parse(j.at("id").get<std::string>());
  if (!id) throw Json::other_error::create(501, "bad device id", &j);
  d.id = *id;
  d.name = j.value("name", "");
  d.vendor = j.value("vendor", "");
  d.vendor_id = j.value("vendor_id", 0u);
  d.device_id = j.value("device_id", 0u);
  d.driver_name = j.value("driver_name", "");
  d.driver_version = j.value("driver_version", "");
  d.api_version = j.value("api_version", "");
  d.device_type = j.value("device_type", "");
  d.platform_name = j.value("platform_name", "");
  if (j.contains("pci_bus_id") && j["pci_bus_id"].is_string()) d.pci_bus_id = j["pci_bus_id"];
  if (j.contains("uuid") && j["uuid"].is_string()) d.uuid = j["uuid"];
  d.global_mem_size = j.value("global_mem_size", uint64_t{0});
  d.max_mem_alloc_size = j.value("max_mem_alloc_size", uint64_t{0});
  d.host_unified_memory = j.value("host_unified_memory", false);
  d.heaps.clear();
  for (const auto& h : j.value("heaps", Json::array())) {
    d.heaps.push_back({h.value("size", uint64_t{0}), h.value("device_local", false)});
  }
  d.local_mem_size = j.value("local_mem_size", uint64_t{0});
  d.max_work_group_size = j.value("max_work_group_size", uint64_t{0});
  if (j.contains("max_work_item_sizes")) d.max_work_item_sizes = j["max_work_item_sizes"];
  d.subgroup_sizes = j.value("subgroup_sizes", std::vector<uint32_t>{});
  d.max_compute_units = j.value("max_compute_units", 0u);
  if (j.contains("features")) d.features = j["features"].get<Features>();
  // Absent before the field was written: a device of its API's own kernels.
  d.products = products_from_string(j.value("products", "")).value_or(Products::kernels);
  d.api_limits = j.value("api_limits", Json::object());
  d.extensions = j.value("extensions", std::vector<std::string>{});
  d.usable = j.value("usable", true);
  d.unusable_reason = j.value("unusable_reason", "");
}

}  // namespace gauntlet::core
