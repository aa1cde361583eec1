#pragma once
// What Linux exposes about the CPUs, and nothing more: cpufreq's scaling_cur_freq (kHz) under
// <sysfs>/devices/system/cpu/cpu*/cpufreq/ (Documentation/admin-guide/pm/cpufreq.rst), thermal
// zones' temp (millidegrees Celsius) and type under <sysfs>/class/thermal/thermal_zone*/
// (Documentation/driver-api/thermal/sysfs-api.rst), and the hwmon folders of the CPU temperature
// drivers (coretemp, k10temp, zenpower). A machine that exposes none (a VM) gets only `absent`.
#include <filesystem>

#include "signals/snapshot.h"

namespace gauntlet::signals {

// Clocks "cpu_min", "cpu_mean", "cpu_max" over the cores that report one; temperatures by zone
// type ("x86_pkg_temp") or by "<driver>.<label>" for hwmon.
void read_cpu(const std::filesystem::path& sysfs_root, Snapshot& into);

}  // namespace gauntlet::signals
