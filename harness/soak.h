#pragma once
// A device held busy (run --level soak, or --soak SECONDS at any level): its heaviest safe profile
// decoded over and over while the machine's signals are watched, as gpu-burn and DCGM's targeted
// stress hold a GPU. The speed cold (the hold's first tenth) and steady (its last quarter), the
// decline between them, the hottest temperature reached, and any throttling or error the signals
// saw. A card that loses 5 % as its clock falls at 91 °C shows it here, not in the cold figure.
#include <optional>
#include <vector>

#include "core/device_info.h"
#include "core/options.h"
#include "harness/device_stage.h"
#include "harness/profiles.h"
#include "harness/quick_model.h"
#include "harness/unit_signals.h"
#include "reports/report.h"

namespace gauntlet::harness {

// The profile a soak holds: of the safe ones, the largest weight file, then the longest context.
std::optional<size_t> heaviest_safe(const std::vector<Candidate>& candidates,
                                    const ModelSet& models);

// The hold's samples, each (seconds into the hold, tok/s), into cold (the first tenth, after the
// first sample where there are three or more), steady (the last quarter) and decline.
void settle_soak(reports::SoakResult& soak);

// How long a device is held after its checks: --soak's (or --level soak's) seconds, outside the
// time budget; else, at the standard level and above, up to kSteadyHoldSeconds of what is left of
// the budget (none under kMinHoldSeconds); none at quick.
inline constexpr double kSteadyHoldSeconds = 60;
inline constexpr double kMinHoldSeconds = 10;
double hold_seconds(const core::Options& options, double budget_left_s);

// Holds the heaviest safe profile of `candidates` on `device` for `seconds` in an isolated child
// watched by `watch` (unit "soak:<device>"). A device with no safe profile gets a soak that says
// so.
reports::SoakResult run_soak(const core::DeviceInfo& device, const ModelSet& models,
                             const std::vector<Candidate>& candidates, const core::Options& options,
                             double seconds, DeviceWatch& watch, const Progress& progress);

// Each safe profile's steady_tok_s: its tok_s scaled by the device's soak (steady / cold), where
// the soak ran.
void apply_steady(reports::DeviceReport& device);

}  // namespace gauntlet::harness
