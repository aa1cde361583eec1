#pragma once
// The readers of one device, chosen by what its sysfs folders hold, and one reading of them all:
// a Snapshot (sampled) and Counters (read before and after a unit).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "signals/counters.h"
#include "signals/nvml.h"
#include "signals/snapshot.h"

namespace gauntlet::signals {

class Reader {
 public:
  virtual ~Reader() = default;
  virtual void read(Snapshot& into) = 0;
  virtual void read_counters(Counters& /*into*/) {}
};

struct DeviceSignals {
  std::string device;  // the PCI bus id where there is one, else a name ("cpu")
  std::vector<std::unique_ptr<Reader>> readers;

  Snapshot snapshot() const;
  Counters counters() const;
};

// A DRM card (<sysfs_root>/class/drm/<card>): hwmon, amdgpu or Intel GT files as present, the
// PCI link and the sysfs counters of its device folder.
DeviceSignals drm_card_signals(const std::filesystem::path& sysfs_root, const std::string& card);

// Any PCI device folder (<sysfs_root>/bus/pci/devices/<bus id>): hwmon, link, counters.
DeviceSignals pci_device_signals(const std::filesystem::path& device_dir);

// NVML's device `index`, named by its PCI bus id.
DeviceSignals nvml_device_signals(std::shared_ptr<const Nvml> nvml, unsigned index);

// The CPUs (signals/cpu.h), named "cpu".
DeviceSignals cpu_signals(const std::filesystem::path& sysfs_root);

// The PCI bus id of a device folder: its uevent's PCI_SLOT_NAME, else its resolved folder's name
// where that reads as one; empty otherwise.
std::string pci_bus_id_of(const std::filesystem::path& device_dir);

}  // namespace gauntlet::signals
