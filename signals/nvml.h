#pragma once
// NVIDIA's NVML, loaded at run time (dlopen): no NVIDIA header or library at build time. The
// library is GAUNTLET_NVML_LIBRARY's value, or libnvidia-ml.so.1.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "signals/counters.h"
#include "signals/snapshot.h"

namespace gauntlet::signals {

struct NvmlProcess {
  unsigned pid = 0;
  std::optional<uint64_t> bytes;  // absent where NVML does not say (NVML_VALUE_NOT_AVAILABLE)
};

struct NvmlMemory {
  uint64_t total = 0, used = 0, free = 0;
  std::vector<NvmlProcess> processes;
};

class Nvml {
 public:
  // Loads the library and calls nvmlInit_v2. No library: a not_found error
  // "telemetry: NVML not found (<what dlopen said>)"; a library without the functions or whose
  // nvmlInit_v2 fails: an unsupported error that says which.
  static core::Result<std::shared_ptr<Nvml>> load(const std::string& library);
  // load(library_name()): GAUNTLET_NVML_LIBRARY's value, or libnvidia-ml.so.1.
  static core::Result<std::shared_ptr<Nvml>> load();
  static std::string library_name();

  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  core::Result<unsigned> device_count() const;
  // "0000:01:00.0", the form sysfs and dev_printk use.
  core::Result<std::string> bus_id(unsigned index) const;
  // Temperature, power, graphics/SM/memory clocks, clock-event reasons, PCIe link.
  void read(unsigned index, Snapshot& into) const;
  // ECC totals (volatile and aggregate), remapped rows, the PCIe replay counter.
  void read_counters(unsigned index, Counters& into) const;
  // The device's memory and the processes holding some (compute and graphics, each pid once).
  core::Result<NvmlMemory> memory(unsigned index) const;

  struct Api;

 private:
  Nvml(void* library, std::unique_ptr<Api> api);
  void* library_;
  std::unique_ptr<Api> api_;
};

// The names of the set bits of an NVML clock-event reason mask ("sw_power_cap", ...).
std::vector<std::string> nvml_clock_event_names(unsigned long long mask);

}  // namespace gauntlet::signals
