// A stand-in for libnvidia-ml.so.1 with NVML's C signatures (signals/nvml_api.h), loaded by the
// tests through GAUNTLET_NVML_LIBRARY. Each call reads the file GAUNTLET_FAKE_NVML_SCRIPT names
// ("key=value" lines; a test rewrites it to move a value during a unit); a key not there has the
// default below, and the value "unsupported" answers NVML_ERROR_NOT_SUPPORTED.
// Built twice: FAKE_NVML_THROTTLE_ONLY leaves out nvmlDeviceGetCurrentClocksEventReasons, as
// drivers before 535 do, so that the fallback to ...ThrottleReasons is exercised.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "signals/nvml_api.h"

namespace {

const std::map<std::string, std::string> kDefaults = {{"count", "2"},
                                                      {"temperature", "83"},
                                                      {"power_mw", "312500"},
                                                      {"clock_gfx", "1725"},
                                                      {"clock_sm", "1725"},
                                                      {"clock_mem", "9501"},
                                                      {"reasons", "0"},
                                                      {"ecc_corrected", "0"},
                                                      {"ecc_uncorrected", "0"},
                                                      {"ecc_aggregate_corrected", "10"},
                                                      {"ecc_aggregate_uncorrected", "0"},
                                                      {"remapped_correctable", "0"},
                                                      {"remapped_uncorrectable", "0"},
                                                      {"remapped_pending", "0"},
                                                      {"remapped_failure", "0"},
                                                      {"replay", "0"},
                                                      {"vbios", "96.00.89.00.01"},
                                                      {"link_gen", "4"},
                                                      {"link_width", "16"},
                                                      {"max_link_gen", "4"},
                                                      {"max_link_width", "16"},
                                                      {"init", "0"},
                                                      {"memory_total", "25769803776"},
                                                      {"memory_used", "1073741824"},
                                                      {"compute_processes", ""},
                                                      {"graphics_processes", ""}};

std::string value_of(const std::string& key) {
  std::map<std::string, std::string> values = kDefaults;
  if (const char* script = std::getenv("GAUNTLET_FAKE_NVML_SCRIPT")) {
    std::ifstream in(script);
    std::string line;
    while (std::getline(in, line)) {
      const auto equals = line.find('=');
      if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
    }
  }
  return values[key];
}

template <typename T>
nvmlReturn_t answer(const std::string& key, T* out) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  const std::string value = value_of(key);
  if (value == "unsupported") return NVML_ERROR_NOT_SUPPORTED;
  *out = static_cast<T>(std::strtoull(value.c_str(), nullptr, 0));
  return NVML_SUCCESS;
}

// Device handles are the index plus one, as pointers: NVML's are opaque.
unsigned index_of(nvmlDevice_t device) {
  return static_cast<unsigned>(reinterpret_cast<uintptr_t>(device)) - 1;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() {
  return static_cast<nvmlReturn_t>(std::atoi(value_of("init").c_str()));
}
nvmlReturn_t nvmlShutdown() { return NVML_SUCCESS; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) { return answer("count", count); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  unsigned count = 0;
  (void)answer("count", &count);
  if (index >= count) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(index) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  std::memset(pci, 0, sizeof *pci);
  pci->domain = 0;
  pci->bus = 1 + index_of(device);
  pci->device = 0;
  std::snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t, int sensor, unsigned int* celsius) {
  if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  return answer("temperature", celsius);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int* milliwatts) {
  return answer("power_mw", milliwatts);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t, int type, unsigned int* mhz) {
  if (type == NVML_CLOCK_GRAPHICS) return answer("clock_gfx", mhz);
  if (type == NVML_CLOCK_SM) return answer("clock_sm", mhz);
  if (type == NVML_CLOCK_MEM) return answer("clock_mem", mhz);
  return NVML_ERROR_INVALID_ARGUMENT;
}

#ifdef FAKE_NVML_THROTTLE_ONLY
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t, unsigned long long* reasons) {
  return answer("reasons", reasons);
}
#else
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t, unsigned long long* reasons) {
  return answer("reasons", reasons);
}
#endif

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t, int error_type, int counter_type,
                                         unsigned long long* count) {
  const std::string kind =
      error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? "corrected" : "uncorrected";
  return answer(counter_type == NVML_VOLATILE_ECC ? "ecc_" + kind : "ecc_aggregate_" + kind, count);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t, unsigned int* corrected,
                                       unsigned int* uncorrected, unsigned int* pending,
                                       unsigned int* failure) {
  const nvmlReturn_t code = answer("remapped_correctable", corrected);
  if (code != NVML_SUCCESS) return code;
  (void)answer("remapped_uncorrectable", uncorrected);
  (void)answer("remapped_pending", pending);
  return answer("remapped_failure", failure);
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t, unsigned int* value) {
  return answer("replay", value);
}
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t, char* version, unsigned int length) {
  const std::string value = value_of("vbios");
  if (value == "unsupported") return NVML_ERROR_NOT_SUPPORTED;
  if (!version || length <= value.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::copy(value.begin(), value.end(), version);
  version[value.size()] = '\0';
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t, unsigned int* value) {
  return answer("link_gen", value);
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t, unsigned int* value) {
  return answer("link_width", value);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t, unsigned int* value) {
  return answer("max_link_gen", value);
}
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t, unsigned int* value) {
  return answer("max_link_width", value);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t* memory) {
  if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
  if (answer("memory_total", &memory->total) != NVML_SUCCESS) return NVML_ERROR_NOT_SUPPORTED;
  (void)answer("memory_used", &memory->used);
  memory->free = memory->total > memory->used ? memory->total - memory->used : 0;
  return NVML_SUCCESS;
}

}  // extern "C"

namespace {

// "pid:bytes,pid:bytes" (bytes "na": NVML_VALUE_NOT_AVAILABLE) into NVML's array protocol.
nvmlReturn_t processes(const std::string& key, unsigned int* count, nvmlProcessInfo_v2_t* infos) {
  std::vector<nvmlProcessInfo_v2_t> listed;
  const std::string value = value_of(key);
  if (value == "unsupported") return NVML_ERROR_NOT_SUPPORTED;
  size_t at = 0;
  while (at < value.size()) {
    const size_t end = std::min(value.find(',', at), value.size());
    const std::string item = value.substr(at, end - at);
    const size_t colon = item.find(':');
    nvmlProcessInfo_v2_t info{};
    info.pid = static_cast<unsigned>(std::strtoul(item.c_str(), nullptr, 10));
    const std::string bytes = item.substr(colon + 1);
    info.usedGpuMemory =
        bytes == "na" ? NVML_VALUE_NOT_AVAILABLE : std::strtoull(bytes.c_str(), nullptr, 10);
    listed.push_back(info);
    at = end + 1;
  }
  if (listed.size() > *count) {
    *count = static_cast<unsigned>(listed.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  std::copy(listed.begin(), listed.end(), infos);
  *count = static_cast<unsigned>(listed.size());
  return NVML_SUCCESS;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t, unsigned int* count,
                                                     nvmlProcessInfo_v2_t* infos) {
  return processes("compute_processes", count, infos);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t, unsigned int* count,
                                                      nvmlProcessInfo_v2_t* infos) {
  return processes("graphics_processes", count, infos);
}

}  // extern "C"
