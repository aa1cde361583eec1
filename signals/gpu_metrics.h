#pragma once
// Decodes amdgpu's binary gpu_metrics file: a metrics_table_header (structure_size,
// format_revision, content_revision) and the versioned struct of
// drivers/gpu/drm/amd/include/kgd_pp_interface.h. Decoded: v1.0-v1.3 (discrete GPUs) and
// v2.0-v2.4 (APUs). Any other revision is refused by name, never guessed; a size that does not
// match the header or the revision is refused; nothing past the buffer is read.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace gauntlet::signals {

struct GpuMetrics {
  int format_revision = 0;
  int content_revision = 0;
  std::map<std::string, double> temperatures_c;  // edge, junction, mem (v1); gfx, soc (v2)
  std::optional<double> socket_power_w;
  std::optional<double> gfx_activity_percent;
  std::map<std::string, double> clocks_mhz;       // gfx, soc, mem (uclk), fclk (v2)
  std::optional<uint32_t> throttle_status;        // ASIC dependent: its bits mean nothing portable
  std::optional<uint64_t> indep_throttle_status;  // the kernel's SMU_THROTTLER_*_BIT (v1.3, v2.2+)

  // The names of the set ASIC-independent bits ("ppt0", "temp_hotspot", ...); where a revision
  // has only the ASIC-dependent word and it is not 0, "asic_dependent".
  std::vector<std::string> throttle_reasons() const;
};

core::Result<GpuMetrics> decode_gpu_metrics(std::span<const std::byte> bytes);

// The name of an SMU_THROTTLER_*_BIT (drivers/gpu/drm/amd/pm/swsmu/inc/amdgpu_smu.h), or
// "bit<N>" for one the kernel does not name.
std::string smu_throttler_name(int bit);

}  // namespace gauntlet::signals
