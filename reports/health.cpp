#include "reports/health.h"

#include <algorithm>
#include <cstdio>

namespace gauntlet::reports {

namespace {

HealthStatus worst(HealthStatus a, HealthStatus b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

// The worst status of `checks` and the reasons of the checks at it, each prefixed by `prefix`.
std::pair<HealthStatus, std::string> settle_checks(const std::vector<HealthCheck>& checks,
                                                   const std::string& prefix) {
  HealthStatus status = HealthStatus::pass;
  for (const auto& c : checks) status = worst(status, c.status);
  std::string reason;
  if (status == HealthStatus::pass) return {status, reason};
  for (const auto& c : checks) {
    if (c.status != status || c.reason.empty()) continue;
    reason += (reason.empty() ? "" : "; ") + prefix + (c.not_run ? c.id + " " : "") + c.reason;
  }
  return {status, reason};
}

core::Json check_json(const HealthCheck& c) {
  return core::Json{{"id", c.id},         {"status", to_string(c.status)}, {"not_run", c.not_run},
                    {"reason", c.reason}, {"seconds", c.seconds},          {"metrics", c.metrics}};
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", s);
  return text;
}

}  // namespace

const char* to_string(HealthStatus status) {
  switch (status) {
    case HealthStatus::pass:
      return "pass";
    case HealthStatus::warning:
      return "warning";
    case HealthStatus::critical:
      return "critical";
    case HealthStatus::could_not_run:
      return "could_not_run";
  }
  return "could_not_run";
}

void settle(HealthReport& report) {
  HealthStatus status = HealthStatus::pass;
  std::string reason;
  auto [node_status, node_reason] = settle_checks(report.node_checks, "");
  status = node_status;
  for (auto& d : report.devices) {
    std::tie(d.status, d.reason) = settle_checks(d.checks, "");
    status = worst(status, d.status);
  }
  // The node's reason: the checks at the worst status, node-wide first, then per device.
  if (node_status == status) reason = node_reason;
  for (const auto& d : report.devices) {
    if (d.status != status || status == HealthStatus::pass) continue;
    std::string named;
    auto [s, r] = settle_checks(d.checks, d.device + " ");
    named = r;
    reason += (reason.empty() || named.empty() ? "" : "; ") + named;
  }
  report.status = status;
  report.reason = reason;
}

std::string health_first_line(const HealthReport& report) {
  std::string line = "gauntlet: ";
  if (report.status == HealthStatus::pass || report.reason.empty()) {
    size_t checks = report.node_checks.size();
    for (const auto& d : report.devices) checks += d.checks.size();
    line += std::string(report.status == HealthStatus::pass ? "ok" : to_string(report.status)) +
            " (" + std::to_string(report.devices.size()) + " devices, " + std::to_string(checks) +
            " checks, " + seconds_text(report.seconds) + ")";
  } else {
    line += report.reason;
  }
  // One line, fit for a drain reason: no newline, no double quote, bounded.
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::replace(line.begin(), line.end(), '"', '\'');
  if (line.size() > 240) line = line.substr(0, 237) + "...";
  return line;
}

int health_exit_code(const HealthReport& report, bool fail_on_warning) {
  switch (report.status) {
    case HealthStatus::pass:
      return 0;
    case HealthStatus::warning:
      return fail_on_warning ? 1 : 0;
    case HealthStatus::critical:
      return 1;
    case HealthStatus::could_not_run:
      return 2;
  }
  return 2;
}

core::Json health_to_json(const HealthReport& report) {
  core::Json devices = core::Json::array();
  for (const auto& d : report.devices) {
    core::Json checks = core::Json::array();
    for (const auto& c : d.checks) checks.push_back(check_json(c));
    devices.push_back({{"device", d.device},
                       {"key", d.key},
                       {"name", d.name},
                       {"bus_id", d.bus_id},
                       {"status", to_string(d.status)},
                       {"reason", d.reason},
                       {"checks", checks}});
  }
  core::Json node_checks = core::Json::array();
  for (const auto& c : report.node_checks) node_checks.push_back(check_json(c));
  return core::Json{{"schema_version", report.schema_version},
                    {"kind", "gauntlet-health"},
                    {"node", report.node},
                    {"version", report.version},
                    {"started", report.started},
                    {"seconds", report.seconds},
                    {"deadline_s", report.deadline_s},
                    {"baseline", {{"path", report.baseline}, {"found", report.baseline_found}}},
                    {"state", report.state},
                    {"status", to_string(report.status)},
                    {"reason", report.reason},
                    {"summary", health_first_line(report)},
                    {"node_checks", node_checks},
                    {"devices", devices}};
}

std::string render_health_text(const HealthReport& report) {
  std::string out = health_first_line(report) + "\n";
  auto check_line = [](const HealthCheck& c) {
    if (c.not_run) return "    " + c.id + ": " + c.reason + "\n";
    std::string line = "    " + c.id + ": " + to_string(c.status);
    if (!c.reason.empty()) line += " (" + c.reason + ")";
    return line + " " + seconds_text(c.seconds) + "\n";
  };
  out += "node " + report.node + ": " + to_string(report.status) + ", baseline " + report.baseline +
         (report.baseline_found ? "" : " (none)") + ", deadline " +
         seconds_text(report.deadline_s) + ", took " + seconds_text(report.seconds) + "\n";
  for (const auto& c : report.node_checks) out += check_line(c);
  for (const auto& d : report.devices) {
    out += "  " + d.device + " (" + d.name + "): " + to_string(d.status) + "\n";
    for (const auto& c : d.checks) out += check_line(c);
  }
  return out;
}

}  // namespace gauntlet::reports
