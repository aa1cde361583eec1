#pragma once
// One physical device seen through several APIs is shown once, with each API's view.
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"

namespace gauntlet::probes {

struct PhysicalDevice {
  // "pci:0000:c1:00.0", "uuid:<hex>", or the id of a device that no other view matches.
  std::string key;
  std::vector<core::DeviceInfo> views;

  std::string display_name() const;
};

// Groups views by PCI bus id first, then by device UUID; order follows first appearance.
std::vector<PhysicalDevice> merge_views(const std::vector<core::DeviceInfo>& devices);

// "0000:C1:00.0" and "c1:00.0" both become "0000:c1:00.0"; nullopt when it is no bus id.
std::optional<std::string> normalize_pci_bus_id(const std::string& text);

}  // namespace gauntlet::probes
