#pragma once
// The host a report was made on, read from the system (hostname, /etc/os-release, /proc).
#include "reports/report.h"

namespace gauntlet::reports {

// Fields that cannot be read stay empty (or 0); never fails.
HostInfo detect_host();

}  // namespace gauntlet::reports
