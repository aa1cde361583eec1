#pragma once
// Error counters read once before and once after a unit (amdgpu RAS, AER, PCIe replay, NVML ECC
// and remapped rows), and what moved between the two readings.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "signals/pci_link.h"

namespace gauntlet::signals {

struct Counters {
  std::string device;
  // By name: "ras.umc.ce", "aer.correctable.TOTAL_ERR_COR", "pcie_replay",
  // "ecc.volatile.corrected".
  std::map<std::string, uint64_t> values;
  std::optional<PciLink> link;
  // The board's firmware version where the driver says it (amdgpu's vbios_version, NVML's VBIOS
  // version): identity, compared by the health gate with its baseline's.
  std::string firmware;
  std::vector<std::string> absent;
  std::vector<std::string> problems;
};

struct CounterChange {
  std::string name;
  std::optional<uint64_t> before;  // absent: the counter appeared (or went) between the readings
  std::optional<uint64_t> after;
  int64_t delta = 0;
};

// The counters that moved (or appeared, or went) from `before` to `after`, by name.
std::vector<CounterChange> diff(const Counters& before, const Counters& after);

// An amdgpu ras/<block>_err_count file, "ue: N\nce: M\n": {"ue": N, "ce": M}.
core::Result<std::map<std::string, uint64_t>> parse_ras_count(std::string_view text,
                                                              const std::string& what);

// The sysfs counters of a PCI device folder: ras/*_err_count, pcie_replay_count, aer_dev_*.
void read_sysfs_counters(const std::filesystem::path& device_dir, Counters& into);

}  // namespace gauntlet::signals
