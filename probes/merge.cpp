#include "probes/merge.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace gauntlet::probes {

std::optional<std::string> normalize_pci_bus_id(const std::string& text) {
  static const std::regex kBusId(
      R"(^(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$)");
  std::smatch m;
  if (!std::regex_match(text, m, kBusId)) return std::nullopt;
  std::string out =
      (m[1].matched ? m[1].str() : "0000") + ":" + m[2].str() + ":" + m[3].str() + "." + m[4].str();
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string PhysicalDevice::display_name() const {
  for (const auto& view : views) {
    if (view.id.api != core::Api::drm && !view.name.empty()) return view.name;
  }
  return views.empty() ? key : views.front().name;
}

std::vector<PhysicalDevice> merge_views(const std::vector<core::DeviceInfo>& devices) {
  std::vector<PhysicalDevice> merged;
  auto find_by = [&](auto matches) -> PhysicalDevice* {
    for (auto& physical : merged) {
      for (const auto& view : physical.views) {
        if (matches(view)) return &physical;
      }
    }
    return nullptr;
  };
  for (const auto& device : devices) {
    std::optional<std::string> bus;
    if (device.pci_bus_id) bus = normalize_pci_bus_id(*device.pci_bus_id);
    PhysicalDevice* home = nullptr;
    if (bus) {
      home = find_by([&](const core::DeviceInfo& v) {
        return v.pci_bus_id && normalize_pci_bus_id(*v.pci_bus_id) == bus;
      });
    }
    if (home == nullptr && device.uuid && !device.uuid->empty()) {
      home = find_by([&](const core::DeviceInfo& v) { return v.uuid == device.uuid; });
    }
    if (home == nullptr) {
      PhysicalDevice fresh;
      if (bus) {
        fresh.key = "pci:" + *bus;
      } else if (device.uuid && !device.uuid->empty()) {
        fresh.key = "uuid:" + *device.uuid;
      } else {
        fresh.key = device.id.to_string();
      }
      merged.push_back(std::move(fresh));
      home = &merged.back();
    }
    home->views.push_back(device);
  }
  return merged;
}

}  // namespace gauntlet::probes
