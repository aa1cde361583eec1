#pragma once
// The part of NVIDIA's NVML C API that signals/nvml.cpp binds at run time, declared here because
// nvml.h is not installed: the signatures and constants of nvml.h (NVML API reference,
// docs.nvidia.com/deploy/nvml-api). The test library tests/signals/fake_nvml.cpp implements them.
#include <cstdint>

extern "C" {

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

enum : nvmlReturn_t {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
};

enum { NVML_TEMPERATURE_GPU = 0 };  // nvmlTemperatureSensors_t
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };  // nvmlClockType_t
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };  // nvmlEccCounterType_t

// nvmlClocksEventReason* (formerly nvmlClocksEventReason*), the bits of
// nvmlDeviceGetCurrentClocksEventReasons.
constexpr unsigned long long nvmlClocksEventReasonGpuIdle = 0x1ull;
constexpr unsigned long long nvmlClocksEventReasonApplicationsClocksSetting = 0x2ull;
constexpr unsigned long long nvmlClocksEventReasonSwPowerCap = 0x4ull;
constexpr unsigned long long nvmlClocksEventReasonHwSlowdown = 0x8ull;
constexpr unsigned long long nvmlClocksEventReasonSyncBoost = 0x10ull;
constexpr unsigned long long nvmlClocksEventReasonSwThermalSlowdown = 0x20ull;
constexpr unsigned long long nvmlClocksEventReasonHwThermalSlowdown = 0x40ull;
constexpr unsigned long long nvmlClocksEventReasonHwPowerBrakeSlowdown = 0x80ull;
constexpr unsigned long long nvmlClocksEventReasonDisplayClockSetting = 0x100ull;

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];  // "00000000:01:00.0"
};

// nvmlMemory_t as nvmlDeviceGetMemoryInfo fills it (bytes).
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlProcessInfo_v2_t, which nvmlDeviceGet{Compute,Graphics}RunningProcesses_v2 and _v3 fill.
// usedGpuMemory is NVML_VALUE_NOT_AVAILABLE where the driver does not say (e.g. on Windows WDDM,
// or another container's process).
struct nvmlProcessInfo_v2_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ull;

typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int* count);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int index, nvmlDevice_t* device);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v3_fn)(nvmlDevice_t device, nvmlPciInfo_t* pci);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t device, int sensor,
                                                    unsigned int* celsius);
typedef nvmlReturn_t (*nvmlDeviceGetPowerUsage_fn)(nvmlDevice_t device, unsigned int* milliwatts);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t device, int type, unsigned int* mhz);
typedef nvmlReturn_t (*nvmlDeviceGetCurrentClocksEventReasons_fn)(nvmlDevice_t device,
                                                                  unsigned long long* reasons);
typedef nvmlReturn_t (*nvmlDeviceGetTotalEccErrors_fn)(nvmlDevice_t device, int error_type,
                                                       int counter_type, unsigned long long* count);
typedef nvmlReturn_t (*nvmlDeviceGetRemappedRows_fn)(nvmlDevice_t device, unsigned int* corrected,
                                                     unsigned int* uncorrected,
                                                     unsigned int* pending, unsigned int* failure);
typedef nvmlReturn_t (*nvmlDeviceGetUint_fn)(nvmlDevice_t device, unsigned int* value);
// nvml.h: nvmlDeviceGetVbiosVersion(device, version, length), NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE
// (32) bytes suffice.
typedef nvmlReturn_t (*nvmlDeviceGetVbiosVersion_fn)(nvmlDevice_t device, char* version,
                                                     unsigned int length);

typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t device, nvmlMemory_t* memory);
// *count in: the array's room; out: the processes (NVML_ERROR_INSUFFICIENT_SIZE when they do not
// fit, *count then the number needed).
typedef nvmlReturn_t (*nvmlDeviceGetRunningProcesses_fn)(nvmlDevice_t device, unsigned int* count,
                                                         nvmlProcessInfo_v2_t* infos);

}  // extern "C"
