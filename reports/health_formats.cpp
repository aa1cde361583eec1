#include "reports/health_formats.h"

#include <cctype>
#include <cstdio>

namespace gauntlet::reports {

namespace {

// Prometheus label values: backslash, double quote and line feed escaped.
std::string label(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

int status_value(HealthStatus s) { return static_cast<int>(s); }

void family(std::string& out, const std::string& name, const std::string& help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n";
}

// A Kubernetes object name: lower case alphanumerics and '-', at most 63 characters.
std::string k8s_name(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.size() > 63) out.resize(63);
  return out.empty() ? "device" : out;
}

}  // namespace

std::string render_health_prometheus(const HealthReport& report, double unix_seconds) {
  std::string out = "# " + health_first_line(report) + "\n";
  const std::string node = "node=\"" + label(report.node) + "\"";
  family(out, "gauntlet_health_status",
         "The node's verdict: 0 pass, 1 warning, 2 critical, 3 could not run.");
  out +=
      "gauntlet_health_status{" + node + "} " + std::to_string(status_value(report.status)) + "\n";
  family(out, "gauntlet_health_device_status",
         "Each device's verdict: 0 pass, 1 warning, 2 critical, 3 could not run.");
  for (const auto& d : report.devices) {
    out += "gauntlet_health_device_status{" + node + ",device=\"" + label(d.device) + "\",key=\"" +
           label(d.key) + "\",name=\"" + label(d.name) + "\"} " +
           std::to_string(status_value(d.status)) + "\n";
  }
  family(out, "gauntlet_health_check_status",
         "Each check's verdict (device empty for the node's own checks): 0 pass, 1 warning, 2 "
         "critical, 3 could not run.");
  auto checks = [&](const std::string& device, const std::vector<HealthCheck>& list) {
    for (const auto& c : list) {
      out += "gauntlet_health_check_status{" + node + ",device=\"" + label(device) + "\",check=\"" +
             label(c.id) + "\",not_run=\"" + (c.not_run ? "true" : "false") + "\"} " +
             std::to_string(status_value(c.status)) + "\n";
    }
  };
  checks("", report.node_checks);
  for (const auto& d : report.devices) checks(d.device, d.checks);
  family(out, "gauntlet_health_duration_seconds", "How long the health run took.");
  out += "gauntlet_health_duration_seconds{" + node + "} " + number(report.seconds) + "\n";
  family(out, "gauntlet_health_deadline_seconds", "The deadline the health run kept to.");
  out += "gauntlet_health_deadline_seconds{" + node + "} " + number(report.deadline_s) + "\n";
  family(out, "gauntlet_health_last_run_timestamp_seconds",
         "When the health run ended, in seconds since the epoch.");
  out += "gauntlet_health_last_run_timestamp_seconds{" + node + "} " + number(unix_seconds) + "\n";
  return out;
}

core::Json health_node_condition(const HealthReport& report, const std::string& now_iso8601) {
  const char* status = report.status == HealthStatus::critical        ? "True"
                       : report.status == HealthStatus::could_not_run ? "Unknown"
                                                                      : "False";
  const char* reason = report.status == HealthStatus::pass       ? "GauntletHealthy"
                       : report.status == HealthStatus::warning  ? "GauntletWarning"
                       : report.status == HealthStatus::critical ? "GauntletCritical"
                                                                 : "GauntletCouldNotRun";
  return core::Json{{"type", "GauntletHealthProblem"},
                    {"status", status},
                    {"reason", reason},
                    {"message", health_first_line(report)},
                    {"lastHeartbeatTime", now_iso8601},
                    {"lastTransitionTime", now_iso8601}};
}

core::Json health_device_taints(const HealthReport& report, const std::string& driver) {
  core::Json items = core::Json::array();
  for (const auto& d : report.devices) {
    if (d.status == HealthStatus::pass) continue;
    const bool critical = d.status != HealthStatus::warning;
    const std::string device = k8s_name(d.device);
    items.push_back(
        {{"apiVersion", "resource.k8s.io/v1beta2"},
         {"kind", "DeviceTaintRule"},
         {"metadata",
          {{"name", k8s_name("gauntlet-" + report.node + "-" + d.device)},
           {"labels", {{"app.kubernetes.io/managed-by", "gauntlet"}}}}},
         {"spec",
          {{"deviceSelector", {{"driver", driver}, {"pool", report.node}, {"device", device}}},
           {"taint",
            {{"key", "gauntlet.dev/health"},
             {"value", to_string(d.status)},
             {"effect", critical ? "NoSchedule" : "None"}}}}}});
  }
  return core::Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

}  // namespace gauntlet::reports
