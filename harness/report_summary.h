#pragma once
// What a device's profiles add up to: the largest safe context per format and the recommended
// configuration (the fastest safe one).
#include "reports/report.h"

namespace gauntlet::harness {

void summarize_device(reports::DeviceReport& device);

}  // namespace gauntlet::harness
