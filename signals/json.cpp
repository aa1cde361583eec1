#include "signals/json.h"

namespace gauntlet::signals {

namespace {

template <typename T>
void put(core::Json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

template <typename Map>
void put_map(core::Json& j, const char* key, const Map& map) {
  if (!map.empty()) j[key] = map;
}

void put_notes(core::Json& j, const auto& absent, const auto& problems) {
  if (!absent.empty()) j["absent"] = absent;
  if (!problems.empty()) j["problems"] = problems;
}

}  // namespace

core::Json to_json(const PciLink& link) {
  core::Json j = core::Json::object();
  put(j, "speed_gts", link.speed_gts);
  put(j, "width", link.width);
  put(j, "max_speed_gts", link.max_speed_gts);
  put(j, "max_width", link.max_width);
  j["degraded"] = link.degraded();
  return j;
}

core::Json to_json(const Snapshot& s) {
  core::Json j = {{"device", s.device}};
  put_map(j, "temperatures_c", s.temperatures_c);
  put_map(j, "clocks_mhz", s.clocks_mhz);
  put_map(j, "max_clocks_mhz", s.max_clocks_mhz);
  put(j, "power_w", s.power_w);
  put(j, "power_cap_w", s.power_cap_w);
  put(j, "energy_j", s.energy_j);
  put(j, "fan_rpm", s.fan_rpm);
  put(j, "busy_percent", s.busy_percent);
  put(j, "vram_used_bytes", s.vram_used_bytes);
  put(j, "vram_total_bytes", s.vram_total_bytes);
  put(j, "gtt_used_bytes", s.gtt_used_bytes);
  put(j, "gtt_total_bytes", s.gtt_total_bytes);
  if (s.link) j["link"] = to_json(*s.link);
  j["throttle_reasons"] = s.throttle_reasons;
  put_notes(j, s.absent, s.problems);
  return j;
}

core::Json to_json(const DeviceSummary& s) {
  core::Json signals = core::Json::object();
  for (const auto& [name, stats] : s.signals) {
    signals[name] = {{"min", stats.min},     {"max", stats.max},   {"mean", stats.mean()},
                     {"first", stats.first}, {"last", stats.last}, {"count", stats.count}};
  }
  core::Json series = core::Json::array();
  for (const auto& point : s.series) {
    core::Json p = {{"t", point.seconds}, {"values", point.values}};
    if (!point.throttle_reasons.empty()) p["throttle_reasons"] = point.throttle_reasons;
    series.push_back(std::move(p));
  }
  core::Json j = {{"device", s.device},
                  {"seconds", s.seconds},
                  {"samples", s.samples},
                  {"signals", std::move(signals)},
                  {"throttle_seconds", s.throttle_seconds},
                  {"link_degraded", s.link_degraded()},
                  {"series", std::move(series)}};
  put_notes(j, s.absent, s.problems);
  return j;
}

core::Json to_json(const Counters& c) {
  core::Json j = {{"device", c.device}, {"values", c.values}};
  if (c.link) j["link"] = to_json(*c.link);
  if (!c.firmware.empty()) j["firmware"] = c.firmware;
  put_notes(j, c.absent, c.problems);
  return j;
}

core::Json to_json(const std::vector<CounterChange>& changes) {
  core::Json j = core::Json::array();
  for (const auto& change : changes) {
    core::Json c = {{"counter", change.name}, {"delta", change.delta}};
    put(c, "before", change.before);
    put(c, "after", change.after);
    j.push_back(std::move(c));
  }
  return j;
}

core::Json to_json(const GpuLogEvent& event) {
  core::Json j = {{"kind", to_string(event.kind)}, {"message", event.message}};
  if (!event.bus_id.empty()) j["bus_id"] = event.bus_id;
  put(j, "xid", event.xid);
  if (!event.detail.empty()) j["detail"] = event.detail;
  return j;
}

}  // namespace gauntlet::signals
