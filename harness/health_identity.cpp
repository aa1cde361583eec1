#include "harness/health_identity.h"

#include "version.h"

namespace gauntlet::harness {

namespace {

using reports::HealthCheck;
using reports::HealthStatus;

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

void add_change(HealthCheck& c, const std::string& what) {
  c.status = HealthStatus::warning;
  c.reason += (c.reason.empty() ? "re-validate: " : ", ") + what;
}

std::string figure(const core::Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The firmware and the link's lanes and generation (not its current speed: it drops at idle).
void compare_board(HealthCheck& c, const core::Json& was, const core::Json& now,
                   const std::string& shown_as) {
  c.metrics["board"] = {{"baseline", was}, {"now", now}};
  if (was.contains("firmware") && now.contains("firmware") && was["firmware"] != now["firmware"]) {
    add_change(
        c, shown_as + " firmware " + figure(was["firmware"]) + " -> " + figure(now["firmware"]));
  }
  if (!was.contains("link") || !now.contains("link")) return;
  for (const char* key : {"width", "max_width", "max_speed_gts"}) {
    const core::Json a = was["link"].value(key, core::Json());
    const core::Json b = now["link"].value(key, core::Json());
    if (!a.is_null() && !b.is_null() && a != b) {
      add_change(c, shown_as + " PCIe link " + key + " " + figure(a) + " -> " + figure(b));
    }
  }
}

}  // namespace

std::vector<HealthCheck> compare_node_identity(const reports::Report& baseline,
                                               const std::vector<probes::PhysicalDevice>& present,
                                               bool all_selected) {
  std::vector<HealthCheck> checks;
  HealthCheck version;
  version.id = "identity.version";
  version.metrics = {{"baseline", baseline.tool.version}, {"now", kVersion}};
  if (baseline.tool.version != kVersion) {
    add_change(version,
               "gauntlet " + baseline.tool.version + " wrote the baseline, this is " + kVersion);
  }
  checks.push_back(version);
  if (!all_selected) return checks;
  HealthCheck devices;
  devices.id = "identity.devices";
  std::vector<std::string> missing;
  for (const auto& d : baseline.devices) {
    bool found = false;
    for (const auto& p : present) found = found || p.key == d.key;
    if (!found) missing.push_back(d.key + " (" + d.name + ")");
  }
  devices.metrics = {{"baseline", baseline.devices.size()}, {"missing", missing}};
  if (!missing.empty()) {
    devices.status = HealthStatus::critical;
    devices.reason = "gone since the baseline: ";
    for (size_t i = 0; i < missing.size(); ++i) devices.reason += (i ? ", " : "") + missing[i];
  }
  checks.push_back(devices);
  return checks;
}

HealthCheck compare_device_identity(const reports::Report& baseline,
                                    const probes::PhysicalDevice& device,
                                    const std::string& shown_as, const core::Json& identity_now) {
  HealthCheck c;
  c.id = "identity";
  const reports::DeviceReport* before = nullptr;
  for (const auto& d : baseline.devices) {
    if (d.key == device.key) before = &d;
  }
  if (before == nullptr) {
    add_change(c, shown_as + " is not in the baseline");
    return c;
  }
  core::Json views = core::Json::array();
  for (const auto& now : device.views) {
    const std::string id = now.id.to_string();
    const core::DeviceInfo* was = nullptr;
    for (const auto& v : before->views) {
      if (v.info.id == now.id) was = &v.info;
    }
    if (was == nullptr) {
      add_change(c, id + " is a new view");
      continue;
    }
    views.push_back({{"device", id},
                     {"driver_version", now.driver_version},
                     {"baseline_driver_version", was->driver_version},
                     {"memory_bytes", now.global_mem_size},
                     {"baseline_memory_bytes", was->global_mem_size}});
    if (was->driver_version != now.driver_version) {
      add_change(c, id + " driver " + was->driver_version + " -> " + now.driver_version);
    }
    if (was->global_mem_size != now.global_mem_size) {
      add_change(c,
                 id + " memory " + mib(was->global_mem_size) + " -> " + mib(now.global_mem_size));
    }
    if (was->name != now.name) add_change(c, id + " is now " + now.name);
  }
  c.metrics["views"] = views;
  compare_board(c, before->telemetry.value("identity", core::Json::object()), identity_now,
                shown_as);
  return c;
}

}  // namespace gauntlet::harness
