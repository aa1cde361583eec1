#include "reports/soak_lines.h"

#include <cmath>
#include <cstdio>

namespace gauntlet::reports::detail {

std::vector<std::string> soak_lines(const std::optional<SoakResult>& soak) {
  if (!soak) return {};
  if (soak->samples.empty()) {
    return {"soak: not run: " + (soak->error.empty() ? std::string("no sample") : soak->error)};
  }
  char text[256];
  const double change = std::fabs(soak->decline) * 100;
  std::snprintf(text, sizeof text,
                "soak: %s held %.0f s: %.1f tok/s cold, %.1f tok/s steady (%.1f %% %s)",
                soak->profile.c_str(), soak->seconds, soak->cold_tok_s, soak->steady_tok_s, change,
                soak->decline >= 0 ? "lower" : "higher");
  std::string line = text;
  if (soak->max_temperature_c) {
    std::snprintf(text, sizeof text, "; hottest %.0f °C", *soak->max_temperature_c);
    line += text;
  } else {
    line += "; no temperature sensor";
  }
  if (!soak->signals.empty()) line += "; " + soak->signals;
  if (!soak->error.empty()) line += "; stopped early: " + soak->error;
  return {line};
}

}  // namespace gauntlet::reports::detail
