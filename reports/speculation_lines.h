#pragma once
// A device's speculative decoding check (run -md) as a line of text (internal to reports/): every
// renderer says the same.
#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

// "speculative: draft d.gguf on q8_0/...: 64 greedy tokens the same as without it; 41 of 60
// drafted accepted (68 %); 52.1 tok/s against 40.3 (1.29x)", or "... tokens differ from token 12:
// the profile is unsafe", or "speculative: not run: <why>"; empty without a check.
std::vector<std::string> speculation_lines(const std::optional<SpeculationResult>& s);

}  // namespace gauntlet::reports::detail
