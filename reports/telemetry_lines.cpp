#include "reports/telemetry_lines.h"

#include <algorithm>
#include <map>

#include "reports/telemetry_json.h"
#include "reports/text_util.h"

namespace gauntlet::reports::detail {

namespace {

std::string joined(const core::Json& list) {
  std::string text;
  if (!list.is_array()) return text;
  for (const auto& item : list) {
    if (item.is_string()) text += (text.empty() ? "" : ", ") + item.get<std::string>();
  }
  return text;
}

struct Range {
  double min = 0, max = 0;
  bool seen = false;
  void add(double lo, double hi) {
    min = seen ? std::min(min, lo) : lo;
    max = seen ? std::max(max, hi) : hi;
    seen = true;
  }
};

// One unit's evidence into the device's totals.
void add_unit(const std::string& unit, const core::Json& evidence,
              std::map<std::string, Range>& ranges, std::map<std::string, double>& throttled,
              std::vector<std::string>& moved, std::vector<std::string>& kernel) {
  const auto& during = json_member(evidence, "during");
  for (const auto& summary : during.is_array() ? during : core::Json::array()) {
    const auto& signals = json_member(summary, "signals");
    if (signals.is_object()) {
      for (auto it = signals.begin(); it != signals.end(); ++it) {
        if (signal_unit(it.key()).empty()) continue;
        ranges[it.key()].add(it->value("min", 0.0), it->value("max", 0.0));
      }
    }
    const auto& throttle = json_member(summary, "throttle_seconds");
    if (throttle.is_object()) {
      for (auto it = throttle.begin(); it != throttle.end(); ++it) {
        if (it->is_number()) throttled[it.key()] += it->get<double>();
      }
    }
  }
  const auto& counters = json_member(evidence, "counters_moved");
  for (const auto& change : counters.is_array() ? counters : core::Json::array()) {
    std::string text = unit + ": " + change.value("counter", std::string()) + " ";
    if (change.contains("before") && change.contains("after")) {
      text += change["before"].dump() + " -> " + change["after"].dump();
    } else {
      text += "+" + json_member(change, "delta").dump();
    }
    moved.push_back(text);
  }
  const auto& lines = json_member(evidence, "kernel");
  for (const auto& event : lines.is_array() ? lines : core::Json::array()) {
    kernel.push_back(unit + ": " + event.value("message", std::string()));
  }
}

}  // namespace

std::vector<std::string> telemetry_lines(const DeviceReport& d) {
  if (!d.telemetry.is_object()) return {};
  std::vector<std::string> lines;
  std::string line = "signals: " + (joined(json_member(d.telemetry, "sources")).empty()
                                        ? std::string("none")
                                        : joined(json_member(d.telemetry, "sources")));
  if (const auto absent = joined(json_member(d.telemetry, "absent")); !absent.empty()) {
    line += "; absent: " + absent;
  }
  if (const auto notes = joined(json_member(d.telemetry, "notes")); !notes.empty())
    line += "; " + notes;
  lines.push_back(line);

  // Over every unit: each temperature, clock and power signal's range, the throttle time by
  // reason, the counters that moved and the kernel's lines.
  std::map<std::string, Range> ranges;
  std::map<std::string, double> throttled;
  std::vector<std::string> moved, kernel;
  const auto& units = json_member(d.telemetry, "units");
  if (units.is_object()) {
    for (auto it = units.begin(); it != units.end(); ++it) {
      add_unit(it.key(), *it, ranges, throttled, moved, kernel);
    }
  }
  if (!ranges.empty()) {
    std::string text = "over the run:";
    bool first = true;
    for (const auto& [signal, r] : ranges) {
      text += std::string(first ? " " : ", ") + signal + " " + format_number(r.min, 0) +
              (r.max > r.min ? "-" + format_number(r.max, 0) : "") + " " + signal_unit(signal);
      first = false;
    }
    lines.push_back(text);
  }
  if (!throttled.empty()) {
    std::string text = "throttled:";
    bool first = true;
    for (const auto& [reason, seconds] : throttled) {
      text += std::string(first ? " " : ", ") + reason + " " + format_number(seconds, 1) + " s";
      first = false;
    }
    lines.push_back(text);
  }
  for (const auto& m : moved) lines.push_back("counter moved: " + m);
  for (const auto& k : kernel) lines.push_back("kernel: " + k);
  for (const auto& row : d.machine_rows) lines.push_back(row.id + ": " + row.reason);
  return lines;
}

}  // namespace gauntlet::reports::detail
