#pragma once
// Reading a device's telemetry JSON (devices[].telemetry, as harness/unit_signals writes it) in the
// renderers (internal to reports/).
#include <string>

#include "core/json.h"

namespace gauntlet::reports::detail {

// j[key], or a null value where j is not an object or has no such key.
inline const core::Json& json_member(const core::Json& j, const char* key) {
  static const core::Json none;
  return j.is_object() && j.contains(key) ? j.at(key) : none;
}

// The unit of a signal the reports show ("temperature.edge" -> "°C", "clock.gfx" -> "MHz",
// "power" -> "W"); empty for the signals they leave out.
inline std::string signal_unit(const std::string& signal) {
  if (signal.rfind("temperature.", 0) == 0) return "°C";
  if (signal.rfind("clock.", 0) == 0) return "MHz";
  if (signal == "power") return "W";
  return "";
}

}  // namespace gauntlet::reports::detail
