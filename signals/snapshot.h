#pragma once
// What one device's signals read at one instant. A signal the machine does not expose is absent
// (an empty optional, no key in a map), never 0; `absent` says which sources were not there and
// `problems` which were there but malformed.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "signals/pci_link.h"

namespace gauntlet::signals {

struct Snapshot {
  std::string device;  // the PCI bus id ("0000:c1:00.0") where there is one, else a name ("cpu")
  std::map<std::string, double> temperatures_c;  // by the source's label: edge, junction, mem, gpu
  std::map<std::string, double> clocks_mhz;      // gfx, mem, sm, soc, cpu_max, ...
  std::map<std::string, double> max_clocks_mhz;  // the clock's current ceiling, where exposed
  std::optional<double> power_w;
  std::optional<double> power_cap_w;
  std::optional<double> energy_j;  // a running total (Intel hwmon energy1_input)
  std::optional<double> fan_rpm;
  std::optional<double> busy_percent;
  std::optional<uint64_t> vram_used_bytes;
  std::optional<uint64_t> vram_total_bytes;
  std::optional<uint64_t> gtt_used_bytes;
  std::optional<uint64_t> gtt_total_bytes;
  std::optional<PciLink> link;
  std::set<std::string> throttle_reasons;  // active at this instant: "pl1", "temp_hotspot", ...
  std::vector<std::string> absent;
  std::vector<std::string> problems;
};

// Every numeric signal present, by a stable name ("temperature.edge", "clock.gfx", "power",
// "link.speed_gts"): what the sampler keeps statistics of.
std::vector<std::pair<std::string, double>> numeric_signals(const Snapshot& snapshot);

}  // namespace gauntlet::signals
