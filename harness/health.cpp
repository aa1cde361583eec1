#include "harness/health.h"

#include <stdlib.h>

#include <set>

#include "harness/health_baseline.h"
#include "harness/health_checks.h"
#include "harness/health_deadline.h"
#include "harness/health_identity.h"
#include "harness/health_signals.h"
#include "harness/health_state.h"
#include "harness/stale_temps.h"
#include "harness/unit_signals.h"
#include "probes/inventory.h"
#include "probes/merge.h"
#include "probes/select.h"
#include "reports/host.h"
#include "reports/io.h"
#include "version.h"

namespace gauntlet::harness {

namespace {

using reports::HealthCheck;
using reports::HealthStatus;

constexpr size_t kMaxConformGlobs = 6;

HealthCheck could_not_run(const std::string& id, const std::string& reason) {
  HealthCheck c;
  c.id = id;
  c.status = HealthStatus::could_not_run;
  c.reason = reason;
  return c;
}

// A folder of this run's own for the decode check's model, removed with what it holds.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gauntlet-health-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The dtype rows the baseline's safe profiles of this device rely on: f32 always, f16 where a
// safe profile computes in f16, and the dequantization of each weight type its formats hold. No
// baseline: f32 and q8_0 (the decode check's model).
std::vector<std::string> conform_globs(const reports::Report* baseline, const std::string& key) {
  std::vector<std::string> globs{"conform.f32.*"};
  std::set<std::string> seen(globs.begin(), globs.end());
  auto add = [&](const std::string& glob) {
    if (globs.size() < kMaxConformGlobs && seen.insert(glob).second) globs.push_back(glob);
  };
  const reports::DeviceReport* device = nullptr;
  if (baseline != nullptr) {
    for (const auto& d : baseline->devices) {
      if (d.key == key) device = &d;
    }
  }
  if (device == nullptr) {
    add("conform.gguf.q8_0");
    return globs;
  }
  for (const auto& p : device->profiles) {
    if (p.verdict != reports::ProfileVerdict::safe) continue;
    if (p.compute_precision == "f16") add("conform.f16.*");
    if (!baseline->model) continue;
    auto mix = baseline->model->type_mix.find(p.weight_format);
    if (mix == baseline->model->type_mix.end()) continue;
    for (const auto& share : mix->second) add("conform.gguf." + share.type);
  }
  return globs;
}

const probes::PhysicalDevice* physical_of(const std::vector<probes::PhysicalDevice>& physical,
                                          const core::DeviceId& id) {
  for (const auto& p : physical) {
    for (const auto& v : p.views) {
      if (v.id == id) return &p;
    }
  }
  return nullptr;
}

}  // namespace

reports::HealthReport run_health(const HealthConfig& config) {
  const auto& options = config.options;
  Deadline deadline(config.deadline, std::chrono::milliseconds{2000});
  reports::HealthReport report;
  report.node = reports::detect_host().hostname;
  report.version = kVersion;
  report.started = reports::now_iso8601();
  report.deadline_s = std::chrono::duration<double>(config.deadline).count();
  report.baseline = (config.baseline.empty() ? baseline_path(options) : config.baseline).string();
  report.state = health_state_path(options).string();
  auto finish = [&]() -> reports::HealthReport {
    report.seconds = deadline.elapsed_s();
    reports::settle(report);
    return report;
  };
  remove_stale_temporaries({}, options.state_dir);

  // The baseline: named by the user, it must read; at the state path, it may be absent.
  std::optional<reports::Report> baseline;
  std::error_code ec;
  if (!config.baseline.empty() || std::filesystem::exists(report.baseline, ec)) {
    auto read = read_baseline(report.baseline, report.node);
    if (!read) {
      report.node_checks.push_back(could_not_run(
          "baseline", "baseline " + report.baseline + " unreadable: " + read.error().message));
      return finish();
    }
    if (!read->note.empty()) {
      HealthCheck from_fleet;
      from_fleet.id = "baseline";
      from_fleet.reason = read->note;
      report.node_checks.push_back(from_fleet);
    }
    baseline = std::move(read->report);
    report.baseline_found = true;
  } else {
    HealthCheck none;
    none.id = "baseline";
    none.status = HealthStatus::warning;
    none.reason = "no baseline at " + report.baseline + " (a complete `gauntlet run` writes it)";
    report.node_checks.push_back(none);
  }
  auto last_state = read_health_state(report.state);
  if (!last_state) {
    report.node_checks.push_back(could_not_run("state", last_state.error().message));
    return finish();
  }

  // Enumeration is bounded too: each API's child gets a share of what is left. A driver that
  // crashes or hangs while it enumerates is critical; an API without a loader or devices is not.
  core::IsolationLimits limits = probes::default_probe_limits();
  limits.timeout = std::min(
      limits.timeout,
      std::max(std::chrono::milliseconds{1000}, std::chrono::milliseconds{deadline.left() / 4}));
  limits.grace = std::chrono::milliseconds{500};
  auto inventory = probes::enumerate_all(options, limits);
  HealthCheck enumerate;
  enumerate.id = "enumerate";
  for (const auto& row : inventory.rows()) {
    enumerate.metrics[row.id] = core::to_string(row.status);
    if (row.status != core::RowStatus::crash && row.status != core::RowStatus::timeout) continue;
    enumerate.status = HealthStatus::critical;
    enumerate.reason += (enumerate.reason.empty() ? "" : "; ") + row.id + " " +
                        core::to_string(row.status) + ": " + row.reason;
  }
  report.node_checks.push_back(enumerate);
  auto selection = probes::select_devices(options.device, options.fallback, inventory);
  if (!selection) {
    report.node_checks.push_back(could_not_run("devices", selection.error().message));
    return finish();
  }
  const auto physical = probes::merge_views(inventory.devices());
  if (baseline) {
    for (auto& c : compare_node_identity(*baseline, physical, options.device == "all")) {
      report.node_checks.push_back(std::move(c));
    }
  }
  auto signals = read_signals_since(options, *last_state);
  for (auto& c : signals.node_checks) report.node_checks.push_back(std::move(c));

  ScratchDir scratch;
  std::optional<HealthModels> models;
  if (scratch.path().empty()) {
    report.node_checks.push_back(could_not_run("scratch", "cannot make a temporary folder"));
  } else if (auto written = write_health_models(scratch.path(), options); !written) {
    report.node_checks.push_back(could_not_run("model", written.error().message));
  } else {
    models = *written;
  }

  std::set<std::string> shown_buses;
  for (const auto& id : selection->devices) {
    const core::DeviceInfo* info = inventory.find(id);
    if (info == nullptr) continue;
    reports::DeviceHealth device;
    device.device = id.to_string();
    device.name = info->name;
    device.bus_id = info->pci_bus_id.value_or("");
    const auto* p = physical_of(physical, id);
    device.key = p != nullptr ? p->key : device.device;
    if (baseline && p != nullptr) {
      const DeviceWatch board(*info, options);
      device.checks.push_back(
          compare_device_identity(*baseline, *p, device.device, board.identity()));
    }
    if (models) {
      const auto globs = conform_globs(baseline ? &*baseline : nullptr, device.key);
      for (auto& c : run_device_checks(*info, options, globs, *models, deadline)) {
        device.checks.push_back(std::move(c));
      }
    }
    if (auto it = signals.by_bus_id.find(device.bus_id); it != signals.by_bus_id.end()) {
      for (auto& c : it->second) device.checks.push_back(std::move(c));
      shown_buses.insert(device.bus_id);
    }
    report.devices.push_back(std::move(device));
  }
  // GPUs the kernel's DRM knows that no selected compute device is: their signals still count.
  for (auto& [bus, checks] : signals.by_bus_id) {
    if (shown_buses.count(bus)) continue;
    reports::DeviceHealth device;
    device.device = signals.card_of[bus];
    device.key = "pci:" + bus;
    device.name = "DRM " + signals.card_of[bus];
    device.bus_id = bus;
    device.checks = std::move(checks);
    report.devices.push_back(std::move(device));
  }

  if (auto saved = write_file_atomically(report.state, signals.state.dump(2) + "\n"); !saved) {
    HealthCheck c;
    c.id = "state";
    c.status = HealthStatus::warning;
    c.reason = "state not kept: " + saved.error().message;
    report.node_checks.push_back(c);
  }
  return finish();
}

}  // namespace gauntlet::harness
