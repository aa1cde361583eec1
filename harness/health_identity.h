#pragma once
// The node gate's identity checks against the baseline (the last complete `gauntlet run`'s
// report): gauntlet's version, the devices present by key, each API view's driver version and
// memory. A change is the warning "re-validate: ..." (the baseline's verdicts may no longer hold);
// a baseline device that is gone is critical.
#include <vector>

#include "probes/merge.h"
#include "reports/health.h"
#include "reports/report.h"

namespace gauntlet::harness {

// Node-wide: the version, and the baseline's devices missing from `present` (checked only when
// `all_selected`, i.e. health looks at every device).
std::vector<reports::HealthCheck> compare_node_identity(
    const reports::Report& baseline, const std::vector<probes::PhysicalDevice>& present,
    bool all_selected);

// One device's views against the baseline's device of the same key, and its firmware and PCI link
// now (`identity_now`, DeviceWatch::identity) against the baseline's telemetry.identity: a
// firmware update, or a card on fewer lanes or in another slot, asks for re-validation.
reports::HealthCheck compare_device_identity(const reports::Report& baseline,
                                             const probes::PhysicalDevice& device,
                                             const std::string& shown_as,
                                             const core::Json& identity_now);

}  // namespace gauntlet::harness
