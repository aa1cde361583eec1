#include "signals/device_signals.h"

#include "signals/amdgpu.h"
#include "signals/cpu.h"
#include "signals/hwmon.h"
#include "signals/intel_gt.h"
#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

namespace {

class HwmonReader : public Reader {
 public:
  explicit HwmonReader(fs::path device_dir) : dir_(std::move(device_dir)) {}
  void read(Snapshot& into) override { read_hwmon(dir_, into); }

 private:
  fs::path dir_;
};

class AmdgpuReader : public Reader {
 public:
  explicit AmdgpuReader(fs::path device_dir) : dir_(std::move(device_dir)) {}
  void read(Snapshot& into) override { read_amdgpu(dir_, into); }

 private:
  fs::path dir_;
};

class IntelGtReader : public Reader {
 public:
  explicit IntelGtReader(fs::path card_dir) : dir_(std::move(card_dir)) {}
  void read(Snapshot& into) override { read_intel_gt(dir_, into); }

 private:
  fs::path dir_;
};

// The link is sampled (links train down when idle, so a unit's link is the one seen under load)
// and read with the counters.
class PciReader : public Reader {
 public:
  explicit PciReader(fs::path device_dir) : dir_(std::move(device_dir)) {}
  void read(Snapshot& into) override {
    LinkRead link = read_pci_link(dir_);
    into.link = link.link;
    for (auto& problem : link.problems) into.problems.push_back(std::move(problem));
    if (!link.link) into.absent.push_back("link: no current_link_* files");
  }
  void read_counters(Counters& into) override { read_sysfs_counters(dir_, into); }

 private:
  fs::path dir_;
};

class NvmlReader : public Reader {
 public:
  NvmlReader(std::shared_ptr<const Nvml> nvml, unsigned index)
      : nvml_(std::move(nvml)), index_(index) {}
  void read(Snapshot& into) override { nvml_->read(index_, into); }
  void read_counters(Counters& into) override { nvml_->read_counters(index_, into); }

 private:
  std::shared_ptr<const Nvml> nvml_;
  unsigned index_;
};

class CpuReader : public Reader {
 public:
  explicit CpuReader(fs::path sysfs_root) : root_(std::move(sysfs_root)) {}
  void read(Snapshot& into) override { read_cpu(root_, into); }

 private:
  fs::path root_;
};

bool looks_like_bus_id(const std::string& name) {
  return name.size() == 12 && name[4] == ':' && name[7] == ':' && name[10] == '.';
}

}  // namespace

Snapshot DeviceSignals::snapshot() const {
  Snapshot snapshot;
  snapshot.device = device;
  for (const auto& reader : readers) reader->read(snapshot);
  return snapshot;
}

Counters DeviceSignals::counters() const {
  Counters counters;
  counters.device = device;
  for (const auto& reader : readers) reader->read_counters(counters);
  return counters;
}

std::string pci_bus_id_of(const fs::path& device_dir) {
  if (auto uevent = read_attribute(device_dir / "uevent"); uevent && uevent->has_value()) {
    const std::string& text = **uevent;
    const std::string key = "PCI_SLOT_NAME=";
    if (const size_t at = text.find(key); at != std::string::npos) {
      const std::string value = text.substr(at + key.size(), 12);
      if (looks_like_bus_id(value)) return value;
    }
  }
  std::error_code ec;
  const std::string name = fs::canonical(device_dir, ec).filename().string();
  return !ec && looks_like_bus_id(name) ? name : std::string{};
}

DeviceSignals pci_device_signals(const fs::path& device_dir) {
  DeviceSignals signals;
  signals.device = pci_bus_id_of(device_dir);
  if (signals.device.empty()) signals.device = device_dir.filename().string();
  signals.readers.push_back(std::make_unique<HwmonReader>(device_dir));
  if (is_amdgpu_device(device_dir)) {
    signals.readers.push_back(std::make_unique<AmdgpuReader>(device_dir));
  }
  signals.readers.push_back(std::make_unique<PciReader>(device_dir));
  return signals;
}

DeviceSignals drm_card_signals(const fs::path& sysfs_root, const std::string& card) {
  const fs::path card_dir = sysfs_root / "class/drm" / card;
  DeviceSignals signals = pci_device_signals(card_dir / "device");
  if (pci_bus_id_of(card_dir / "device").empty()) signals.device = card;
  if (intel_driver_of(card_dir) != IntelDriver::none) {
    signals.readers.push_back(std::make_unique<IntelGtReader>(card_dir));
  }
  return signals;
}

DeviceSignals nvml_device_signals(std::shared_ptr<const Nvml> nvml, unsigned index) {
  DeviceSignals signals;
  auto bus_id = nvml->bus_id(index);
  signals.device = bus_id ? *bus_id : "nvml:" + std::to_string(index);
  signals.readers.push_back(std::make_unique<NvmlReader>(std::move(nvml), index));
  return signals;
}

DeviceSignals cpu_signals(const fs::path& sysfs_root) {
  DeviceSignals signals;
  signals.device = "cpu";
  signals.readers.push_back(std::make_unique<CpuReader>(sysfs_root));
  return signals;
}

}  // namespace gauntlet::signals
