#include "harness/health_signals.h"

#include <algorithm>
#include <filesystem>

#include "signals/counters.h"
#include "signals/device_signals.h"
#include "signals/gpu_log.h"
#include "signals/kmsg_cursor.h"

namespace gauntlet::harness {

namespace {

using reports::HealthCheck;
using reports::HealthStatus;

// The DRM cards under the sysfs root with a PCI bus id: "card0" -> "0000:c1:00.0".
std::map<std::string, std::string> drm_cards(const std::filesystem::path& sysfs_root) {
  std::map<std::string, std::string> cards;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_root / "class/drm", ec)) {
    const std::string name = entry.path().filename().string();
    // card0, not card0-DP-1 (a connector).
    if (name.rfind("card", 0) != 0 || name.find('-') != std::string::npos) continue;
    const std::string bus = signals::pci_bus_id_of(entry.path() / "device");
    if (!bus.empty()) cards[name] = bus;
  }
  return cards;
}

HealthCheck counters_check(const signals::Counters& now, const core::Json& before) {
  HealthCheck c;
  c.id = "signals.counters";
  c.metrics["values"] = now.values;
  if (!before.is_object()) {
    c.not_run = true;
    c.reason = "not run: first health run, counters kept for the next";
    return c;
  }
  std::vector<std::string> moved;
  for (const auto& [name, value] : now.values) {
    if (!before.contains(name) || !before[name].is_number_unsigned()) continue;
    const uint64_t was = before[name].get<uint64_t>();
    // A counter below its last value was reset (a reboot, a driver reload): nothing moved.
    if (value > was) moved.push_back(name + " +" + std::to_string(value - was));
  }
  if (!moved.empty()) {
    c.status = HealthStatus::critical;
    c.reason = "error counter moved since the last health run: ";
    for (size_t i = 0; i < moved.size(); ++i) c.reason += (i ? ", " : "") + moved[i];
  }
  c.metrics["moved"] = moved;
  return c;
}

HealthCheck idle_check(const signals::DeviceSignals& device, const signals::Counters& counters) {
  HealthCheck c;
  c.id = "signals.idle";
  std::vector<std::string> notes;
  if (counters.link && counters.link->width && counters.link->max_width &&
      *counters.link->width < *counters.link->max_width) {
    // Only lanes count: a link's speed drops at idle by design (ASPM, dynamic PCIe clocks).
    notes.push_back("link trained at x" + std::to_string(*counters.link->width) + " of x" +
                    std::to_string(*counters.link->max_width));
  }
  const auto snapshot = device.snapshot();
  const bool idle = !snapshot.busy_percent || *snapshot.busy_percent < 5.0;
  if (idle && !snapshot.throttle_reasons.empty()) {
    std::string reasons;
    for (const auto& r : snapshot.throttle_reasons) reasons += (reasons.empty() ? "" : ",") + r;
    notes.push_back("throttled at idle (" + reasons + ")");
  }
  if (!notes.empty()) {
    c.status = HealthStatus::warning;
    for (size_t i = 0; i < notes.size(); ++i) c.reason += (i ? ", " : "") + notes[i];
  }
  return c;
}

}  // namespace

SignalsSince read_signals_since(const core::Options& options, const core::Json& last) {
  SignalsSince out;
  out.state = core::Json::object();
  const core::Json last_devices = last.value("devices", core::Json::object());

  for (const auto& [card, bus] : drm_cards(options.sysfs_root)) {
    out.card_of[bus] = card;
    auto device = signals::drm_card_signals(options.sysfs_root, card);
    const auto counters = device.counters();
    const core::Json before = last_devices.contains(bus) ? last_devices[bus] : core::Json(nullptr);
    auto& checks = out.by_bus_id[bus];
    checks.push_back(counters_check(counters, before));
    checks.push_back(idle_check(device, counters));
    out.state["devices"][bus] = counters.values;
  }

  // The kernel log after the last record the state kept.
  HealthCheck log;
  log.id = "signals.kernel_log";
  auto cursor = signals::KmsgCursor::from_start(options.kmsg_path);
  const core::Json last_log = last.value("kernel_log", core::Json::object());
  const bool first = !last_log.contains("sequence") || !last_log["sequence"].is_number_unsigned() ||
                     last_log.value("path", "") != options.kmsg_path;
  const uint64_t after = first ? 0 : last_log["sequence"].get<uint64_t>();
  uint64_t newest = after;
  if (!cursor) {
    log.not_run = true;
    log.reason = "not run: " + cursor.error().message;
  } else {
    auto batch = cursor->read();
    if (!batch) {
      log.not_run = true;
      log.reason = "not run: " + batch.error().message;
    } else {
      uint64_t highest = 0;
      for (const auto& r : batch->records) highest = std::max(highest, r.sequence);
      // Numbers below the last one kept: the machine rebooted and every record is new.
      const uint64_t since = highest < after ? 0 : after;
      int read = 0;
      for (const auto& record : batch->records) {
        if (since > 0 && record.sequence <= since) continue;
        ++read;
        newest = std::max(newest, record.sequence);
        if (first) continue;
        auto event = signals::classify_kernel_record(record);
        if (!event) continue;
        std::string named = "the node";
        auto* checks = &out.node_checks;
        for (auto& [bus, device_checks] : out.by_bus_id) {
          if (signals::names_device(*event, bus)) {
            named = out.card_of[bus] + " (" + bus + ")";
            checks = &device_checks;
          }
        }
        HealthCheck hit;
        hit.id = "signals.kernel_log";
        hit.status = HealthStatus::critical;
        hit.reason =
            std::string(signals::to_string(event->kind)) + " in the kernel log: " + event->message;
        hit.metrics = {{"sequence", record.sequence}, {"bus_id", event->bus_id}, {"names", named}};
        checks->push_back(hit);
      }
      newest = std::max(newest, highest);
      log.metrics = {{"records_read", read}, {"after_sequence", after}, {"newest", newest}};
      if (first) {
        log.not_run = true;
        log.reason = "not run: first health run, the log's position kept for the next";
      }
      out.state["kernel_log"] = {{"path", options.kmsg_path}, {"sequence", newest}};
    }
  }
  if (!out.state.contains("kernel_log") && last.contains("kernel_log")) {
    out.state["kernel_log"] = last["kernel_log"];
  }
  out.node_checks.insert(out.node_checks.begin(), log);
  return out;
}

}  // namespace gauntlet::harness
