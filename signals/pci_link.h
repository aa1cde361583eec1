#pragma once
// A PCI device's link (current_link_speed/_width, max_link_speed/_width) and its AER counters
// (aer_dev_correctable, aer_dev_fatal, aer_dev_nonfatal): the kernel's
// Documentation/ABI/testing/sysfs-bus-pci and sysfs-bus-pci-devices-aer_stats.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gauntlet::signals {

struct PciLink {
  std::optional<double> speed_gts;  // transfers per second, GT/s
  std::optional<int> width;         // lanes
  std::optional<double> max_speed_gts;
  std::optional<int> max_width;

  // Trained below what the link can do: a slower speed or fewer lanes than its maximum.
  bool degraded() const;
};

// "16.0 GT/s PCIe", "2.5 GT/s PCIe", "8 GT/s": the GT/s figure. "Unknown" and garbage are errors.
core::Result<double> parse_link_speed(std::string_view text, const std::string& what);

struct LinkRead {
  std::optional<PciLink> link;  // absent when the device has no link files
  std::vector<std::string> problems;
};
LinkRead read_pci_link(const std::filesystem::path& device_dir);

// One AER file's lines "NAME count": the counters by name (TOTAL_ERR_COR, RxErr, ...).
core::Result<std::map<std::string, uint64_t>> parse_aer_counters(std::string_view text,
                                                                 const std::string& what);

}  // namespace gauntlet::signals
