#pragma once
// Which memory a plan on one device draws on. A discrete card: its own VRAM for the GPU side, the
// host side of a placement in host memory apart. A device whose memory is the host's (an iGPU, an
// APU with a small VRAM carve-out and a large GTT, a CPU device, a --simulate preset that says
// so): one pool that both sides share, the GPU side further bounded by GTT, ttm.pages_limit or the
// host memory itself. Memory other processes hold, where the driver says it, is named; driver
// figures that make no sense (free above total, a zero total) are clamped, the raw figure kept.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "core/device_info.h"
#include "harness/simulate.h"
#include "reports/report.h"
#include "signals/nvml.h"
#include "stress/host_limits.h"

namespace gauntlet::harness {

// Memory other processes hold on the device, as a driver library states it (NVML), and whom.
struct HeldByOthers {
  uint64_t bytes = 0;
  std::string source;  // "NVML: 2 other processes (pid 4145 4.00 GiB, pid 4146 1.00 GiB)"
};

struct PoolInputs {
  core::DeviceInfo claimed;              // the view the run uses, --simulate clamps applied
  std::vector<core::DeviceInfo> views;   // every API's view of the same device (drm's included)
  std::optional<SimulateClamps> clamps;  // a preset's figures replace the device's own
  stress::HostMemory host;
  std::optional<uint64_t> ttm_pages_limit_bytes;
  std::optional<HeldByOthers> nvml_held;  // read_nvml_held's, for an NVIDIA device
};

reports::MemoryPool memory_pool(const PoolInputs& in);

// What processes other than `own_pid` hold on the NVML device whose PCI address is `bus_id`
// ("0000:01:00.0"), summed where NVML states each one's bytes and named where it does not;
// nullopt when NVML has no such device or cannot say. With no other process: 0 bytes, said so.
std::optional<HeldByOthers> read_nvml_held(const signals::Nvml& nvml, const std::string& bus_id,
                                           unsigned own_pid);

// <sysfs_root>/module/ttm/parameters/pages_limit in bytes (4 KiB pages); nullopt when absent,
// unreadable or 0.
std::optional<uint64_t> read_ttm_pages_limit(const std::filesystem::path& sysfs_root);

// The driver's overhead: what the device claimed and the stress could not allocate, where the
// stress stopped at the device's limit (an allocation refused) rather than at the level's cap.
void add_driver_overhead(reports::MemoryPool& pool, uint64_t claimed_bytes,
                         const reports::StressResult& stress, bool capped_by_level);

}  // namespace gauntlet::harness
