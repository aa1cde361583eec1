#pragma once
// Inline SVG charts for the HTML report (internal to reports/). Every element carries a class
// that says what it shows, so that tests can count bars.
#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace gauntlet::reports::detail {

struct Bar {
  std::string label;
  double value = 0.0;
  bool over = false;  // drawn as exceeding the limit
};

// Bytes vs bandwidth at each stress step: verified points green, the others red, and the safe
// budget as a vertical line.
std::string stress_chart_svg(const StressResult& stress);
// Horizontal bars with value labels; `kind` becomes part of each bar's class ("bar tok"); a limit,
// when given, is a vertical line with its label.
// The device's signals over the run: each temperature, clock and power series of its units'
// evidence (devices[].telemetry.units, placed by their "at") and the soak's tok/s, each scaled to
// its own range and named with it in the legend. Empty where fewer than two points exist.
std::string signals_chart_svg(const DeviceReport& device);

std::string bar_chart_svg(const std::string& title, const std::string& kind,
                          const std::vector<Bar>& bars, const std::string& unit,
                          std::optional<double> limit, const std::string& limit_label);

}  // namespace gauntlet::reports::detail
