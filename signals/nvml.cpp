#include "signals/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "signals/nvml_api.h"
#include "signals/sysfs_file.h"

namespace gauntlet::signals {

struct Nvml::Api {
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlDeviceGetCount_v2_fn count = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn handle = nullptr;
  nvmlDeviceGetPciInfo_v3_fn pci = nullptr;
  nvmlDeviceGetTemperature_fn temperature = nullptr;
  nvmlDeviceGetPowerUsage_fn power = nullptr;
  nvmlDeviceGetClockInfo_fn clock = nullptr;
  nvmlDeviceGetCurrentClocksEventReasons_fn reasons = nullptr;
  nvmlDeviceGetTotalEccErrors_fn ecc = nullptr;
  nvmlDeviceGetRemappedRows_fn remapped = nullptr;
  nvmlDeviceGetUint_fn replay = nullptr;
  nvmlDeviceGetVbiosVersion_fn vbios = nullptr;
  nvmlDeviceGetUint_fn link_generation = nullptr;
  nvmlDeviceGetUint_fn link_width = nullptr;
  nvmlDeviceGetUint_fn max_link_generation = nullptr;
  nvmlDeviceGetUint_fn max_link_width = nullptr;
  nvmlDeviceGetMemoryInfo_fn memory = nullptr;
  nvmlDeviceGetRunningProcesses_fn compute_processes = nullptr;
  nvmlDeviceGetRunningProcesses_fn graphics_processes = nullptr;
};

namespace {

template <typename F>
void bind(void* library, const char* name, F& out) {
  out = reinterpret_cast<F>(::dlsym(library, name));
}

std::string nvml_error(const char* call, nvmlReturn_t code) {
  return std::string("nvml: ") + call + " returned " + std::to_string(code);
}

// PCIe generation -> GT/s per lane (PCI Express base specifications 1.0 .. 6.0).
std::optional<double> generation_speed(unsigned generation) {
  static constexpr double speeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (generation < 1 || generation > 6) return std::nullopt;
  return speeds[generation - 1];
}

}  // namespace

std::string Nvml::library_name() {
  const char* name = std::getenv("GAUNTLET_NVML_LIBRARY");
  return name && *name ? name : "libnvidia-ml.so.1";
}

core::Result<std::shared_ptr<Nvml>> Nvml::load() { return load(library_name()); }

core::Result<std::shared_ptr<Nvml>> Nvml::load(const std::string& name) {
  void* library = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = ::dlerror();
    return core::make_error(core::ErrorKind::not_found,
                            "telemetry: NVML not found (" + std::string(why ? why : name) + ")");
  }
  auto api = std::make_unique<Api>();
  bind(library, "nvmlInit_v2", api->init);
  bind(library, "nvmlShutdown", api->shutdown);
  bind(library, "nvmlDeviceGetCount_v2", api->count);
  bind(library, "nvmlDeviceGetHandleByIndex_v2", api->handle);
  bind(library, "nvmlDeviceGetPciInfo_v3", api->pci);
  bind(library, "nvmlDeviceGetTemperature", api->temperature);
  bind(library, "nvmlDeviceGetPowerUsage", api->power);
  bind(library, "nvmlDeviceGetClockInfo", api->clock);
  bind(library, "nvmlDeviceGetCurrentClocksEventReasons", api->reasons);
  if (!api->reasons) bind(library, "nvmlDeviceGetCurrentClocksThrottleReasons", api->reasons);
  bind(library, "nvmlDeviceGetTotalEccErrors", api->ecc);
  bind(library, "nvmlDeviceGetRemappedRows", api->remapped);
  bind(library, "nvmlDeviceGetPcieReplayCounter", api->replay);
  bind(library, "nvmlDeviceGetVbiosVersion", api->vbios);
  bind(library, "nvmlDeviceGetCurrPcieLinkGeneration", api->link_generation);
  bind(library, "nvmlDeviceGetCurrPcieLinkWidth", api->link_width);
  bind(library, "nvmlDeviceGetMaxPcieLinkGeneration", api->max_link_generation);
  bind(library, "nvmlDeviceGetMaxPcieLinkWidth", api->max_link_width);
  bind(library, "nvmlDeviceGetMemoryInfo", api->memory);
  bind(library, "nvmlDeviceGetComputeRunningProcesses_v3", api->compute_processes);
  if (!api->compute_processes) {
    bind(library, "nvmlDeviceGetComputeRunningProcesses_v2", api->compute_processes);
  }
  bind(library, "nvmlDeviceGetGraphicsRunningProcesses_v3", api->graphics_processes);
  if (!api->graphics_processes) {
    bind(library, "nvmlDeviceGetGraphicsRunningProcesses_v2", api->graphics_processes);
  }
  if (!api->init || !api->shutdown || !api->count || !api->handle || !api->pci) {
    ::dlclose(library);
    return core::make_error(core::ErrorKind::unsupported,
                            "telemetry: " + name + " lacks NVML's nvmlInit_v2 or device functions");
  }
  if (const nvmlReturn_t code = api->init(); code != NVML_SUCCESS) {
    ::dlclose(library);
    return core::make_error(core::ErrorKind::unsupported,
                            "telemetry: " + nvml_error("nvmlInit_v2", code));
  }
  return std::shared_ptr<Nvml>(new Nvml(library, std::move(api)));
}

Nvml::Nvml(void* library, std::unique_ptr<Api> api) : library_(library), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  ::dlclose(library_);
}

core::Result<unsigned> Nvml::device_count() const {
  unsigned count = 0;
  if (const nvmlReturn_t code = api_->count(&count); code != NVML_SUCCESS) {
    return core::make_error(core::ErrorKind::api_error, nvml_error("nvmlDeviceGetCount_v2", code));
  }
  return count;
}

namespace {

core::Result<nvmlDevice_t> handle_of(const Nvml::Api& api, unsigned index) {
  nvmlDevice_t device = nullptr;
  if (const nvmlReturn_t code = api.handle(index, &device); code != NVML_SUCCESS) {
    return core::make_error(core::ErrorKind::api_error,
                            nvml_error("nvmlDeviceGetHandleByIndex_v2", code));
  }
  return device;
}

// Calls `f` where it is bound: NOT_SUPPORTED names the signal absent, other failures a problem.
template <typename F, typename... Args>
bool call(F f, const char* name, std::vector<std::string>& absent,
          std::vector<std::string>& problems, Args... args) {
  if (!f) {
    absent.push_back(std::string("nvml: ") + name + " not in this library");
    return false;
  }
  const nvmlReturn_t code = f(args...);
  if (code == NVML_SUCCESS) return true;
  if (code == NVML_ERROR_NOT_SUPPORTED) {
    absent.push_back(std::string("nvml: ") + name + " not supported");
  } else {
    problems.push_back(nvml_error(name, code));
  }
  return false;
}

}  // namespace

core::Result<std::string> Nvml::bus_id(unsigned index) const {
  auto device = handle_of(*api_, index);
  if (!device) return device.error();
  nvmlPciInfo_t pci{};
  if (const nvmlReturn_t code = api_->pci(*device, &pci); code != NVML_SUCCESS) {
    return core::make_error(core::ErrorKind::api_error,
                            nvml_error("nvmlDeviceGetPciInfo_v3", code));
  }
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.0", pci.domain & 0xffffu, pci.bus & 0xffu,
                pci.device & 0xffu);
  return std::string(text);
}

core::Result<NvmlMemory> Nvml::memory(unsigned index) const {
  auto device = handle_of(*api_, index);
  if (!device) return device.error();
  if (!api_->memory) {
    return core::make_error(core::ErrorKind::unsupported,
                            "nvml: nvmlDeviceGetMemoryInfo not in this library");
  }
  nvmlMemory_t m{};
  if (const nvmlReturn_t code = api_->memory(*device, &m); code != NVML_SUCCESS) {
    return core::make_error(core::ErrorKind::api_error,
                            nvml_error("nvmlDeviceGetMemoryInfo", code));
  }
  NvmlMemory out{m.total, m.used, m.free, {}};
  for (auto list : {api_->compute_processes, api_->graphics_processes}) {
    if (!list) continue;
    std::vector<nvmlProcessInfo_v2_t> infos(64);
    unsigned count = static_cast<unsigned>(infos.size());
    nvmlReturn_t code = list(*device, &count, infos.data());
    if (code == NVML_ERROR_INSUFFICIENT_SIZE) {  // more processes than room: ask again
      infos.resize(count + 16);
      count = static_cast<unsigned>(infos.size());
      code = list(*device, &count, infos.data());
    }
    if (code != NVML_SUCCESS) continue;
    for (unsigned i = 0; i < count && i < infos.size(); ++i) {
      const auto& info = infos[i];
      const bool seen = std::any_of(out.processes.begin(), out.processes.end(),
                                    [&](const NvmlProcess& p) { return p.pid == info.pid; });
      if (seen) continue;
      NvmlProcess p{info.pid, std::nullopt};
      if (info.usedGpuMemory != NVML_VALUE_NOT_AVAILABLE) p.bytes = info.usedGpuMemory;
      out.processes.push_back(p);
    }
  }
  return out;
}

void Nvml::read(unsigned index, Snapshot& s) const {
  auto device = handle_of(*api_, index);
  if (!device) return s.problems.push_back(device.error().message);
  const nvmlDevice_t d = *device;
  unsigned value = 0;
  if (call(api_->temperature, "nvmlDeviceGetTemperature", s.absent, s.problems, d,
           int{NVML_TEMPERATURE_GPU}, &value)) {
    s.temperatures_c["gpu"] = value;
  }
  if (call(api_->power, "nvmlDeviceGetPowerUsage", s.absent, s.problems, d, &value)) {
    s.power_w = value / 1000.0;
  }
  for (const auto& [type, name] :
       {std::pair{NVML_CLOCK_GRAPHICS, "gfx"}, std::pair{NVML_CLOCK_SM, "sm"},
        std::pair{NVML_CLOCK_MEM, "mem"}}) {
    if (call(api_->clock, "nvmlDeviceGetClockInfo", s.absent, s.problems, d, int{type}, &value)) {
      s.clocks_mhz[name] = value;
    }
  }
  unsigned long long reasons = 0;
  if (call(api_->reasons, "nvmlDeviceGetCurrentClocksEventReasons", s.absent, s.problems, d,
           &reasons)) {
    for (auto& name : nvml_clock_event_names(reasons)) s.throttle_reasons.insert(std::move(name));
  }
  PciLink link;
  if (call(api_->link_generation, "nvmlDeviceGetCurrPcieLinkGeneration", s.absent, s.problems, d,
           &value)) {
    link.speed_gts = generation_speed(value);
  }
  if (call(api_->link_width, "nvmlDeviceGetCurrPcieLinkWidth", s.absent, s.problems, d, &value)) {
    link.width = static_cast<int>(value);
  }
  if (call(api_->max_link_generation, "nvmlDeviceGetMaxPcieLinkGeneration", s.absent, s.problems, d,
           &value)) {
    link.max_speed_gts = generation_speed(value);
  }
  if (call(api_->max_link_width, "nvmlDeviceGetMaxPcieLinkWidth", s.absent, s.problems, d,
           &value)) {
    link.max_width = static_cast<int>(value);
  }
  if (link.speed_gts || link.width || link.max_speed_gts || link.max_width) s.link = link;
}

void Nvml::read_counters(unsigned index, Counters& c) const {
  auto device = handle_of(*api_, index);
  if (!device) return c.problems.push_back(device.error().message);
  const nvmlDevice_t d = *device;
  for (const auto& [counter, counter_name] :
       {std::pair{NVML_VOLATILE_ECC, "volatile"}, std::pair{NVML_AGGREGATE_ECC, "aggregate"}}) {
    for (const auto& [type, type_name] :
         {std::pair{NVML_MEMORY_ERROR_TYPE_CORRECTED, "corrected"},
          std::pair{NVML_MEMORY_ERROR_TYPE_UNCORRECTED, "uncorrected"}}) {
      unsigned long long count = 0;
      if (call(api_->ecc, "nvmlDeviceGetTotalEccErrors", c.absent, c.problems, d, int{type},
               int{counter}, &count)) {
        c.values[std::string("ecc.") + counter_name + "." + type_name] = count;
      }
    }
  }
  unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
  if (call(api_->remapped, "nvmlDeviceGetRemappedRows", c.absent, c.problems, d, &corrected,
           &uncorrected, &pending, &failure)) {
    c.values["remapped_rows.correctable"] = corrected;
    c.values["remapped_rows.uncorrectable"] = uncorrected;
    c.values["remapped_rows.pending"] = pending;
    c.values["remapped_rows.failure"] = failure;
  }
  unsigned replay = 0;
  if (call(api_->replay, "nvmlDeviceGetPcieReplayCounter", c.absent, c.problems, d, &replay)) {
    c.values["pcie_replay"] = replay;
  }
  char vbios[64] = {};
  if (call(api_->vbios, "nvmlDeviceGetVbiosVersion", c.absent, c.problems, d, vbios,
           static_cast<unsigned>(sizeof vbios - 1))) {
    c.firmware = printable_line(vbios);
  }
}

std::vector<std::string> nvml_clock_event_names(unsigned long long mask) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {nvmlClocksEventReasonGpuIdle, "gpu_idle"},
      {nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting"},
      {nvmlClocksEventReasonSwPowerCap, "sw_power_cap"},
      {nvmlClocksEventReasonHwSlowdown, "hw_slowdown"},
      {nvmlClocksEventReasonSyncBoost, "sync_boost"},
      {nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
      {nvmlClocksEventReasonHwThermalSlowdown, "hw_thermal_slowdown"},
      {nvmlClocksEventReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting"}};
  std::vector<std::string> out;
  unsigned long long known = 0;
  for (const auto& [bit, name] : names) {
    known |= bit;
    if (mask & bit) out.emplace_back(name);
  }
  for (int bit = 0; bit < 64; ++bit) {
    if ((mask & ~known) >> bit & 1u) out.push_back("bit" + std::to_string(bit));
  }
  return out;
}

}  // namespace gauntlet::signals
