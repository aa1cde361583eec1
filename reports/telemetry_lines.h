#pragma once
// A device's machine signals over the run as lines of text (internal to reports/), for the text and
// markdown reports: which signals exist, the hottest temperatures, power and clock ranges and
// throttle time over every unit, the error counters that moved (before -> after) and the kernel's
// lines naming the device.
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// Empty without telemetry (a report before schema 1.6).
std::vector<std::string> telemetry_lines(const DeviceReport& device);

}  // namespace gauntlet::reports::detail
