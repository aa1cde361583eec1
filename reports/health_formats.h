#pragma once
// The node gate's verdict in the formats fleets read: node_exporter's textfile format
// (Prometheus' text exposition format, its first line a comment holding the reason), a
// Kubernetes NodeCondition, and a resource.k8s.io/v1beta2 DeviceTaintRule per failing device
// (NoSchedule for critical, None for a warning) in a v1 List.
#include <string>

#include "core/json.h"
#include "reports/health.h"

namespace gauntlet::reports {

std::string render_health_prometheus(const HealthReport& report, double unix_seconds);

// {"type": "GauntletHealthProblem", "status": "True" (critical) | "False" (pass, warning) |
// "Unknown" (could not run), "reason", "message": the first line, the two times}.
core::Json health_node_condition(const HealthReport& report, const std::string& now_iso8601);

// A List of DeviceTaintRules, one per device that is not a pass; `driver` is the DRA driver
// whose devices they select (pool: the node's name, device: the gauntlet device id with ':' as
// '-').
core::Json health_device_taints(const HealthReport& report, const std::string& driver);

}  // namespace gauntlet::reports
