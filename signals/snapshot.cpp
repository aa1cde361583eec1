#include "signals/snapshot.h"

namespace gauntlet::signals {

std::vector<std::pair<std::string, double>> numeric_signals(const Snapshot& s) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [label, value] : s.temperatures_c)
    out.emplace_back("temperature." + label, value);
  for (const auto& [label, value] : s.clocks_mhz) out.emplace_back("clock." + label, value);
  for (const auto& [label, value] : s.max_clocks_mhz) out.emplace_back("max_clock." + label, value);
  const auto add = [&out](const char* name, const auto& value) {
    if (value) out.emplace_back(name, static_cast<double>(*value));
  };
  add("power", s.power_w);
  add("power_cap", s.power_cap_w);
  add("energy", s.energy_j);
  add("fan", s.fan_rpm);
  add("busy_percent", s.busy_percent);
  add("vram_used", s.vram_used_bytes);
  add("vram_total", s.vram_total_bytes);
  add("gtt_used", s.gtt_used_bytes);
  add("gtt_total", s.gtt_total_bytes);
  if (s.link) {
    add("link.speed_gts", s.link->speed_gts);
    add("link.width", s.link->width);
    add("link.max_speed_gts", s.link->max_speed_gts);
    add("link.max_width", s.link->max_width);
  }
  return out;
}

}  // namespace gauntlet::signals
