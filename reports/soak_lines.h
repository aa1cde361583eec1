#pragma once
// A device's soak (the heaviest safe profile held busy) as a line of text (internal to reports/):
// every renderer says the same.
#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// "soak: q4_k_m/... held 300 s: 25.1 tok/s cold, 23.8 tok/s steady (5.2 % lower); hottest
// 91 °C; measured while throttled (...)", or "soak: not run: <why>"; empty without a soak.
std::vector<std::string> soak_lines(const std::optional<SoakResult>& soak);

}  // namespace gauntlet::reports::detail
