// The fleet report as one self-contained HTML page: a card per group with its spread, its
// majority's safe profiles and its outliers.
#include "reports/fleet.h"
#include "reports/text_util.h"

namespace gauntlet::reports {

namespace {

using detail::format_bytes;
using detail::format_number;
using detail::xml_escape;

// What the fleet page adds to the shared page style.
constexpr const char* kFleetStyle = R"CSS(
.outlier{color:#b42318;font-weight:600}.ok{color:#116329;font-weight:600}
details{margin:6px 0}code{font-size:0.9em}
)CSS";

std::string td(const std::string& text, const std::string& cls = {}) {
  return detail::html_cell(text, cls);
}

std::string spread_cells(const std::optional<Spread>& s, bool bytes) {
  if (!s) return td("-") + td("-") + td("-");
  auto text = [bytes](double v) {
    return bytes ? format_bytes(static_cast<uint64_t>(v)) : format_number(v, 1);
  };
  return td(text(s->min)) + td(text(s->median)) + td(text(s->max));
}

std::string group_section(const FleetReport& f, size_t index) {
  const auto& g = f.groups[index];
  std::string out = "<section class=\"group\"><h2>Group " + std::to_string(index + 1) + ": " +
                    xml_escape(g.key.model) + "</h2><p class=\"meta\">" +
                    xml_escape(g.key.driver.empty() ? "no usable driver" : g.key.driver) + " · " +
                    format_bytes(g.key.memory_bytes) + " · " + std::to_string(g.machines.size()) +
                    " machine(s)</p>";
  out += "<table><tr><th>figure</th><th>min</th><th>median</th><th>max</th></tr><tr>" +
         td("safe budget") + spread_cells(g.budget_bytes, true) + "</tr><tr>" +
         td("tok/s of " + (g.recommended.empty() ? std::string("-") : g.recommended)) +
         spread_cells(g.recommended_tok_s, false) + "</tr></table>";
  if (g.outliers.empty()) {
    out += "<p class=\"ok\">No outliers.</p>";
  } else {
    out += "<table><tr><th>outlier</th><th>why</th><th>report</th></tr>";
    for (const auto& o : g.outliers) {
      const auto& m = f.machines[o.machine];
      for (const auto& r : o.reasons) {
        out += "<tr>" + td(m.host + "/" + m.device, "outlier") + td(r.message) + td(m.source) +
               "</tr>";
      }
    }
    out += "</table>";
  }
  out += "<details><summary>" + std::to_string(g.majority_safe.size()) +
         " profile(s) safe on the majority</summary><ul>";
  for (const auto& p : g.majority_safe) out += "<li><code>" + xml_escape(p) + "</code></li>";
  out += "</ul></details><details><summary>machines</summary><ul>";
  for (size_t i : g.machines) {
    const auto& m = f.machines[i];
    out += "<li>" + xml_escape(m.host + "/" + m.device + " (" + m.source + ")") + "</li>";
  }
  return out + "</ul></details></section>";
}

}  // namespace

std::string render_fleet_html(const FleetReport& f) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gauntlet "
      "fleet</title><style>" +
      std::string(detail::kHtmlPageStyle) + kFleetStyle +
      "</style></head><body><h1>gauntlet fleet</h1><p class=\"meta\">" +
      std::to_string(f.machines.size()) + " machine(s) in " + std::to_string(f.groups.size()) +
      " group(s) from " + std::to_string(f.reports) + " report(s); " +
      std::to_string(f.outlier_count()) + " outlier(s) (threshold " +
      format_number(100.0 * f.threshold, 1) + "% below the group median)</p>";
  if (!f.skipped.empty()) {
    out += "<h2>Skipped reports</h2><table><tr><th>report</th><th>why</th></tr>";
    for (const auto& s : f.skipped)
      out += "<tr>" + td(s.source) + td(s.reason, "outlier") + "</tr>";
    out += "</table>";
  }
  for (size_t i = 0; i < f.groups.size(); ++i) out += group_section(f, i);
  return out + "</body></html>\n";
}

}  // namespace gauntlet::reports
