#include "harness/unit_signals.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "signals/json.h"
#include "signals/snapshot.h"

namespace gauntlet::harness {

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// Memory: amdgpu RAS blocks, NVML's ECC totals and remapped rows. The link: AER and PCIe replay.
bool is_memory_counter(const std::string& name) {
  return starts_with(name, "ras.") || starts_with(name, "ecc.") ||
         starts_with(name, "remapped_rows.");
}
bool is_link_counter(const std::string& name) {
  return starts_with(name, "aer.") || name == "pcie_replay";
}

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

// The DRM card of the device with this bus id (hwmon, amdgpu or Intel GT files, link, counters),
// else its PCI device folder.
signals::DeviceSignals gpu_signals(const std::filesystem::path& sysfs_root,
                                   const std::string& bus_id) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_root / "class/drm", ec)) {
    const std::string card = entry.path().filename().string();
    if (card.rfind("card", 0) != 0 || card.find('-') != std::string::npos) continue;
    if (signals::pci_bus_id_of(entry.path() / "device") == bus_id) {
      return signals::drm_card_signals(sysfs_root, card);
    }
  }
  return signals::pci_device_signals(sysfs_root / "bus/pci/devices" / bus_id);
}

// The signals' names with their last part dropped ("temperature.edge" -> "temperature").
std::string family(const std::string& name) { return name.substr(0, name.find('.')); }

// The first counter that moved up and is of the kind `is_kind` names, as a cause `key`.
std::optional<reports::Cause> moved_counter(const std::vector<signals::CounterChange>& moved,
                                            bool (*is_kind)(const std::string&), const char* key) {
  for (const auto& m : moved) {
    if (is_kind(m.name) && m.delta > 0) {
      return reports::Cause{key, m.name, {{"delta", static_cast<double>(m.delta)}}};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<reports::Cause> UnitEvidence::cause() const {
  if (!kernel.empty()) {
    // The line that says what happened, ahead of a devcoredump's path where there is one.
    const auto telling = std::find_if(kernel.begin(), kernel.end(), [](const auto& e) {
      return e.kind != signals::GpuLogKind::devcoredump;
    });
    const auto& e = telling != kernel.end() ? *telling : kernel.front();
    reports::Cause c{"hang_or_reset", e.message, {}};
    if (e.xid) c.figures["xid"] = *e.xid;
    return c;
  }
  if (auto c = moved_counter(moved, is_memory_counter, "memory_errors")) return c;
  if (auto c = moved_counter(moved, is_link_counter, "link_errors")) return c;
  for (const auto& d : during) {
    if (!d.link_degraded()) continue;
    reports::Cause c{"link_degraded", d.device, {}};
    for (const char* name :
         {"link.speed_gts", "link.width", "link.max_speed_gts", "link.max_width"}) {
      if (auto it = d.signals.find(name); it != d.signals.end()) c.figures[name] = it->second.max;
    }
    return c;
  }
  return std::nullopt;
}

std::string UnitEvidence::throttle_note() const {
  std::string reasons;
  double total = 0;
  for (const auto& d : during) {
    total = std::max(total, d.seconds);
    for (const auto& [reason, s] : d.throttle_seconds) {
      if (s <= 0) continue;
      reasons += (reasons.empty() ? "" : ", ") + reason + " " + seconds_text(s);
    }
  }
  if (reasons.empty()) return "";
  return "measured while throttled (" + reasons + " of " + seconds_text(total) + ")";
}

std::optional<double> UnitEvidence::hottest_c() const {
  std::optional<double> max;
  for (const auto& summary : during) {
    for (const auto& [name, stats] : summary.signals) {
      if (name.rfind("temperature.", 0) == 0 && stats.count > 0) {
        max = std::max(max.value_or(stats.max), stats.max);
      }
    }
  }
  return max;
}

core::Json UnitEvidence::to_json() const {
  core::Json j{{"at", at}, {"seconds", seconds}};
  core::Json during_json = core::Json::array();
  for (const auto& d : during) during_json.push_back(signals::to_json(d));
  j["during"] = during_json;
  if (!moved.empty()) j["counters_moved"] = signals::to_json(moved);
  if (!kernel.empty()) {
    core::Json lines = core::Json::array();
    for (const auto& e : kernel) lines.push_back(signals::to_json(e));
    j["kernel"] = lines;
  }
  if (const auto c = cause()) j["cause"] = *c;
  if (const auto note = throttle_note(); !note.empty()) j["throttled"] = note;
  return j;
}

std::string describe(const reports::Cause& cause) {
  if (cause.key == "hang_or_reset")
    return "hang or reset: the kernel logged \"" + cause.subject + "\"";
  if (cause.key == "memory_errors" || cause.key == "link_errors") {
    const auto delta = cause.figures.find("delta");
    const long long by = delta == cause.figures.end() ? 0 : static_cast<long long>(delta->second);
    return std::string(cause.key == "memory_errors" ? "memory error counter moved: "
                                                    : "link error counter moved: ") +
           cause.subject + " +" + std::to_string(by);
  }
  if (cause.key == "link_degraded") {
    const auto figure = [&](const char* name) {
      const auto it = cause.figures.find(name);
      if (it == cause.figures.end()) return std::string("?");
      char text[32];
      std::snprintf(text, sizeof text, "%g", it->second);  // 2.5, 16
      return std::string(text);
    };
    return "link degraded: trained at " + figure("link.speed_gts") + " GT/s x" +
           figure("link.width") + " against " + figure("link.max_speed_gts") + " GT/s x" +
           figure("link.max_width") + " through the unit";
  }
  return cause.key + ": " + cause.subject;
}

DeviceWatch::DeviceWatch(const core::DeviceInfo& device, const core::Options& options)
    : device_(device.id.to_string()), kmsg_path_(options.kmsg_path) {
  if (device.pci_bus_id && !device.pci_bus_id->empty()) {
    bus_id_ = *device.pci_bus_id;
    sources_.push_back(gpu_signals(options.sysfs_root, bus_id_));
    auto nvml = signals::Nvml::load();
    if (!nvml) {
      notes_.push_back(nvml.error().message);
    } else {
      nvml_ = *nvml;
      const auto count = nvml_->device_count();
      for (unsigned i = 0; count && i < *count; ++i) {
        const auto bus = nvml_->bus_id(i);
        if (bus && *bus == bus_id_) {
          sources_.push_back(signals::nvml_device_signals(nvml_, i));
        }
      }
    }
  } else {
    sources_.push_back(signals::cpu_signals(options.sysfs_root));
  }
}

DeviceWatch::~DeviceWatch() {
  if (sampler_) sampler_->stop();
}

void DeviceWatch::begin(const std::string& unit) {
  unit_ = unit;
  before_.clear();
  for (const auto& s : sources_) before_.push_back(s.counters());
  cursor_.reset();
  if (kmsg_readable_) {
    auto cursor = signals::KmsgCursor::take(kmsg_path_);
    if (cursor) {
      cursor_ = std::move(*cursor);
    } else {
      kmsg_readable_ = false;  // said once
      notes_.push_back(cursor.error().message);
    }
  }
  std::vector<const signals::DeviceSignals*> devices;
  for (const auto& s : sources_) devices.push_back(&s);
  sampler_ = std::make_unique<signals::Sampler>(devices);
  started_ = std::chrono::steady_clock::now();
  if (!first_started_) first_started_ = started_;
  sampler_->start();
}

UnitEvidence DeviceWatch::end(Journal* journal) {
  UnitEvidence e = end_unit();
  if (journal != nullptr && sampler_was_running_) {
    // A journal that cannot take it only costs the resume this unit's evidence.
    (void)journal->append("signals:" + e.unit, units_[e.unit]);
  }
  return e;
}

const core::Json* DeviceWatch::restore(const std::string& unit, const Journal& journal) {
  const core::Json* saved = journal.find("signals:" + unit);
  if (saved == nullptr) return nullptr;
  units_[unit] = *saved;
  if (const auto cause = evidence_cause(*saved)) {
    rows_.push_back(
        core::make_row("signals:" + unit, device_, core::RowStatus::fail, describe(*cause)));
  }
  return saved;
}

std::optional<reports::Cause> evidence_cause(const core::Json& evidence) {
  if (!evidence.contains("cause")) return std::nullopt;
  return evidence["cause"].get<reports::Cause>();
}

std::string evidence_throttle_note(const core::Json& evidence) {
  return evidence.value("throttled", "");
}

UnitEvidence DeviceWatch::end_unit() {
  UnitEvidence e;
  e.unit = unit_;
  sampler_was_running_ = sampler_ != nullptr;
  if (!sampler_) return e;
  e.during = sampler_->stop();
  sampler_.reset();
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  e.at = std::chrono::duration<double>(started_ - *first_started_).count();
  for (size_t i = 0; i < sources_.size() && i < before_.size(); ++i) {
    for (auto& change : signals::diff(before_[i], sources_[i].counters())) {
      e.moved.push_back(std::move(change));
    }
  }
  if (cursor_) {
    auto batch = cursor_->read();
    if (batch) {
      for (const auto& record : batch->records) {
        auto event = signals::classify_kernel_record(record);
        // A device without a bus id (the CPU's) is named by no GPU line.
        if (event && !bus_id_.empty() && signals::names_device(*event, bus_id_)) {
          e.kernel.push_back(std::move(*event));
        }
      }
    }
    cursor_.reset();
  }
  units_[e.unit] = e.to_json();
  if (const auto cause = e.cause()) {
    rows_.push_back(
        core::make_row("signals:" + e.unit, device_, core::RowStatus::fail, describe(*cause)));
  }
  return e;
}

core::Json DeviceWatch::identity() const {
  core::Json j = core::Json::object();
  for (const auto& s : sources_) {
    const auto c = s.counters();
    if (!c.firmware.empty() && !j.contains("firmware")) j["firmware"] = c.firmware;
    if (c.link && !j.contains("link")) j["link"] = signals::to_json(*c.link);
  }
  return j;
}

core::Json DeviceWatch::telemetry() const {
  std::set<std::string> present, absent, problems;
  for (const auto& s : sources_) {
    const auto snapshot = s.snapshot();
    for (const auto& [name, value] : signals::numeric_signals(snapshot))
      present.insert(family(name));
    if (!snapshot.throttle_reasons.empty()) present.insert("throttle");
    absent.insert(snapshot.absent.begin(), snapshot.absent.end());
    problems.insert(snapshot.problems.begin(), snapshot.problems.end());
    const auto counters = s.counters();
    for (const auto& [name, value] : counters.values) present.insert(family(name));
    absent.insert(counters.absent.begin(), counters.absent.end());
    problems.insert(counters.problems.begin(), counters.problems.end());
  }
  std::vector<std::string> notes = notes_;
  if (kmsg_readable_) notes.push_back("kernel log: read at " + kmsg_path_ + " around each unit");
  core::Json j{{"sources", present}, {"absent", absent}, {"notes", notes}, {"units", units_}};
  if (auto id = identity(); !id.empty()) j["identity"] = std::move(id);
  if (!problems.empty()) j["problems"] = problems;
  return j;
}

}  // namespace gauntlet::harness
