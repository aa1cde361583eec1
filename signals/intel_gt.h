#pragma once
// The GT (graphics tile) frequency and throttle files of Intel's drivers, as the kernel documents
// them: i915's <card>/gt/gt0/rps_act_freq_mhz, rps_max_freq_mhz, throttle_reason_status and
// throttle_reason_* (drivers/gpu/drm/i915/gt/intel_gt_sysfs_pm.c; older kernels
// <card>/gt_act_freq_mhz, gt_max_freq_mhz), and xe's <card>/device/tile0/gt0/freq0/act_freq,
// max_freq, throttle/status and throttle/reason_* (Documentation/ABI/testing/
// sysfs-driver-intel-xe, drivers/gpu/drm/xe/xe_gt_throttle.c). Frequencies in MHz, reasons 0/1.
#include <filesystem>

#include "signals/snapshot.h"

namespace gauntlet::signals {

enum class IntelDriver { none, i915, xe };

IntelDriver intel_driver_of(const std::filesystem::path& card_dir);

// Adds the GT's actual and maximum frequency ("gfx") and its active throttle reasons (named by
// the file: reason_pl1 -> "pl1"; a set status with no set reason -> "unspecified").
void read_intel_gt(const std::filesystem::path& card_dir, Snapshot& into);

}  // namespace gauntlet::signals
