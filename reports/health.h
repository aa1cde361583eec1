#pragma once
// The verdict of `gauntlet health`, the node gate: one per node and one per device, each check
// with its status and reason, in the fleet's conventions (exit 0 pass or warning, 1 critical, 2
// could not run; a one-line reason first on stdout). JSON checked by
// reports/schema/health.schema.json.
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace gauntlet::reports {

inline constexpr const char* kHealthSchemaVersion = "1.0";

// Ordered by gravity: the worst of a node's checks is its verdict.
enum class HealthStatus { pass, warning, critical, could_not_run };
const char* to_string(HealthStatus status);

// A check that was not run (the deadline came first, or nothing to check) has status pass or
// warning with `not_run` set and the reason saying why ("not run: deadline").
struct HealthCheck {
  std::string
      id;  // "identity.driver", "probe", "conform", "memory", "decode", "signals.kernel_log"
  HealthStatus status = HealthStatus::pass;
  bool not_run = false;
  std::string reason;
  double seconds = 0;
  core::Json metrics = core::Json::object();
};

struct DeviceHealth {
  std::string device;  // "vulkan:0", "host"
  std::string key;     // the physical device key, as the full report's
  std::string name;
  std::string bus_id;  // empty when the device has none
  HealthStatus status = HealthStatus::pass;
  std::string reason;  // the worst check's reason (empty on pass)
  std::vector<HealthCheck> checks;
};

struct HealthReport {
  std::string schema_version = kHealthSchemaVersion;
  std::string node;  // the host name
  std::string version;
  std::string started;
  double seconds = 0;
  double deadline_s = 0;
  std::string baseline;  // the path read
  bool baseline_found = false;
  std::string state;  // the state file's path
  HealthStatus status = HealthStatus::pass;
  std::string reason;                    // the first line, without "gauntlet: "
  std::vector<HealthCheck> node_checks;  // identity against the baseline, the kernel log, state
  std::vector<DeviceHealth> devices;
};

// Sets each device's and the node's status and reason from their checks: the worst status, the
// reasons of the checks at that status joined with "; ".
void settle(HealthReport& report);

// "gauntlet: vulkan:0 decode differs from the reference at token 2" or "gauntlet: ok (3
// devices, 11 checks, 8.2 s)": the line a scheduler drains a node with.
std::string health_first_line(const HealthReport& report);
// 0 pass or warning (1 with fail_on_warning), 1 critical, 2 could not run.
int health_exit_code(const HealthReport& report, bool fail_on_warning);

core::Json health_to_json(const HealthReport& report);
// The first line, then a line per device and per check.
std::string render_health_text(const HealthReport& report);

}  // namespace gauntlet::reports
