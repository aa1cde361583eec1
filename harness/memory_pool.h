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
#include "stress/host_limits.h"

namespace gauntlet::harness {

struct PoolInputs {
  core::DeviceInfo claimed;              // the view the run uses, --simulate clamps applied
  std::vector<core::DeviceInfo> views;   // every API's view of the same device (drm's included)
  std::optional<SimulateClamps> clamps;  // a preset's figures replace the device's own
  stress::HostMemory host;
  std::optional<uint64_t> ttm_pages_limit_bytes;
};

reports::MemoryPool memory_pool(const PoolInputs& in);

// <sysfs_root>/module/ttm/parameters/pages_limit in bytes (4 KiB pages); nullopt when absent,
// unreadable or 0.
std::optional<uint64_t> read_ttm_pages_limit(const std::filesystem::path& sysfs_root);

// The driver's overhead: what the device claimed and the stress could not allocate, where the
// stress stopped at the device's limit (an allocation refused) rather than at the level's cap.
void add_driver_overhead(reports::MemoryPool& pool, uint64_t claimed_bytes,
                         const reports::StressResult& stress, bool capped_by_level);

}  // namespace gauntlet::harness
