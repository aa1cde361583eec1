#pragma once
// A device's hwmon folder (<device>/hwmon/hwmon*/), as the kernel's
// Documentation/hwmon/sysfs-interface.rst defines its files: temp*_input in millidegrees Celsius
// with temp*_label, power1_average / power1_input / power1_cap / power1_max in microwatts,
// freq*_input in Hz with freq*_label, fan1_input in RPM, energy1_input in microjoules.
#include <filesystem>

#include "signals/snapshot.h"

namespace gauntlet::signals {

// Adds the hwmon signals of `device_dir` to `into`, or names the hwmon folder absent.
void read_hwmon(const std::filesystem::path& device_dir, Snapshot& into);

// The same, for an hwmon folder itself (<sysfs>/class/hwmon/hwmonN); labels get `label_prefix`.
void read_hwmon_folder(const std::filesystem::path& hwmon_dir, const std::string& label_prefix,
                       Snapshot& into);

}  // namespace gauntlet::signals
