#pragma once
// Twelve machines as `gauntlet run` reports them, for the fleet report: node-01..06 each with one
// llvmpipe device, node-07..12 each with one PoCL device, their budgets and tok/s a few percent
// apart, as identical machines are. Two are odd: node-03's safe budget is half its siblings',
// and on node-09 the q8_0 profile that is safe everywhere else failed.
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::testing {

inline constexpr const char* kLowBudgetHost = "node-03";
inline constexpr const char* kFlippedHost = "node-09";

std::vector<Report> twelve_machines();

}  // namespace gauntlet::reports::testing
