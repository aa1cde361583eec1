#pragma once
// amdgpu's own device files (the kernel's Documentation/gpu/amdgpu/driver-misc.rst and
// thermal.rst): gpu_busy_percent, mem_info_vram_used/_total, mem_info_gtt_used/_total and the
// binary gpu_metrics (signals/gpu_metrics.h). Its RAS counters are in signals/counters.h.
#include <filesystem>

#include "signals/snapshot.h"

namespace gauntlet::signals {

// Whether `device_dir` looks like an amdgpu device (it has gpu_busy_percent or gpu_metrics).
bool is_amdgpu_device(const std::filesystem::path& device_dir);

// Adds what the files say to `into`; gpu_metrics fills only what hwmon left absent, and adds
// its throttle reasons.
void read_amdgpu(const std::filesystem::path& device_dir, Snapshot& into);

}  // namespace gauntlet::signals
