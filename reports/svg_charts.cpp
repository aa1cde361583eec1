#include "reports/svg_charts.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "reports/telemetry_json.h"
#include "reports/text_util.h"

namespace gauntlet::reports::detail {

namespace {

std::string num(double v) { return format_number(v, 1); }

std::string text_el(double x, double y, const std::string& text,
                    const std::string& anchor = "start", const std::string& cls = "label") {
  return "<text class=\"" + cls + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         anchor + "\">" + xml_escape(text) + "</text>";
}

std::string line_el(double x1, double y1, double x2, double y2, const std::string& cls) {
  return "<line class=\"" + cls + "\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" +
         num(x2) + "\" y2=\"" + num(y2) + "\"/>";
}

// An inline chart's opening: its class, size, accessible title and the heading drawn at `left`.
std::string svg_open(const std::string& kind, double width, double height, const std::string& title,
                     const std::string& heading, double left) {
  return "<svg class=\"chart " + kind + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
         num(height) + "\" role=\"img\"><title>" + xml_escape(title) + "</title>" +
         text_el(left, 18, heading, "start", "title");
}

}  // namespace

std::string stress_chart_svg(const StressResult& s) {
  constexpr double kW = 560, kH = 280, kLeft = 60, kRight = 20, kTop = 30, kBottom = 50;
  const double plot_w = kW - kLeft - kRight;
  const double plot_h = kH - kTop - kBottom;
  uint64_t max_bytes = std::max<uint64_t>(s.safe_budget_bytes, 1);
  double max_bw = std::max(s.copy_bandwidth_gbps, 0.1);
  for (const auto& p : s.curve) {
    max_bytes = std::max(max_bytes, p.bytes);
    max_bw = std::max(max_bw, p.bandwidth_gbps);
  }
  max_bw *= 1.15;
  auto x_of = [&](double bytes) { return kLeft + plot_w * bytes / static_cast<double>(max_bytes); };
  auto y_of = [&](double gbps) { return kTop + plot_h * (1.0 - gbps / max_bw); };

  std::string out = svg_open("stress", kW, kH, "Memory stress: bytes allocated vs bandwidth",
                             "Memory stress: allocated vs copy bandwidth", kLeft);
  out += line_el(kLeft, kTop + plot_h, kLeft + plot_w, kTop + plot_h, "axis");
  out += line_el(kLeft, kTop, kLeft, kTop + plot_h, "axis");
  for (int i = 0; i <= 4; ++i) {
    const double bytes = static_cast<double>(max_bytes) * i / 4.0;
    out += text_el(x_of(bytes), kTop + plot_h + 16, format_bytes(static_cast<uint64_t>(bytes)),
                   "middle");
    const double gbps = max_bw * i / 4.0;
    out += text_el(kLeft - 6, y_of(gbps) + 4, format_number(gbps, 1), "end");
    if (i > 0) out += line_el(kLeft, y_of(gbps), kLeft + plot_w, y_of(gbps), "grid");
  }
  out += text_el(kLeft + plot_w / 2, kH - 8, "allocated bytes", "middle");
  out += text_el(14, kTop + plot_h / 2, "GB/s", "middle");
  std::string points;
  for (const auto& p : s.curve) {
    if (p.verified)
      points += num(x_of(static_cast<double>(p.bytes))) + "," + num(y_of(p.bandwidth_gbps)) + " ";
  }
  if (!points.empty()) out += "<polyline class=\"curve\" points=\"" + points + "\"/>";
  if (s.safe_budget_bytes > 0) {
    const double x = x_of(static_cast<double>(s.safe_budget_bytes));
    out += line_el(x, kTop, x, kTop + plot_h, "budget");
    out += text_el(x + 4, kTop + 12, "safe budget " + format_bytes(s.safe_budget_bytes), "start",
                   "label budget-label");
  }
  for (const auto& p : s.curve) {
    const double y = p.verified ? y_of(p.bandwidth_gbps) : kTop + plot_h;
    out += "<circle class=\"point " + std::string(p.verified ? "verified" : "unverified") +
           "\" cx=\"" + num(x_of(static_cast<double>(p.bytes))) + "\" cy=\"" + num(y) +
           "\" r=\"5\"><title>" +
           xml_escape("step " + std::to_string(p.step) + ": " + format_bytes(p.bytes) + ", " +
                      (p.verified ? format_number(p.bandwidth_gbps) + " GB/s, verified"
                                  : std::string(core::to_string(p.status)) + ": " + p.reason)) +
           "</title></circle>";
  }
  return out + "</svg>";
}

std::string bar_chart_svg(const std::string& title, const std::string& kind,
                          const std::vector<Bar>& bars, const std::string& unit,
                          std::optional<double> limit, const std::string& limit_label) {
  // The label column is as wide as the longest label (11 px text, at most 6.6 px a character),
  // so that no label is cut off at the left edge.
  constexpr double kPlotW = 340, kRight = 90, kTop = 40, kBarH = 18, kGap = 6, kCharW = 6.6;
  size_t longest = 0;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  const double label_w = std::max(120.0, 16.0 + kCharW * static_cast<double>(longest));
  const double width = label_w + kPlotW + kRight;
  const double plot_w = kPlotW;
  const double height = kTop + static_cast<double>(bars.size()) * (kBarH + kGap) + 20;
  double max_value = limit.value_or(0.0);
  for (const auto& b : bars) max_value = std::max(max_value, b.value);
  if (max_value <= 0.0) max_value = 1.0;
  max_value *= 1.05;
  auto x_of = [&](double v) { return label_w + plot_w * v / max_value; };

  std::string out = svg_open(kind, width, height, title, title, 10);
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double y = kTop + static_cast<double>(i) * (kBarH + kGap);
    out += text_el(label_w - 8, y + kBarH - 5, b.label, "end");
    out += "<rect class=\"bar " + kind + (b.over ? " over" : "") + "\" x=\"" + num(label_w) +
           "\" y=\"" + num(y) + "\" width=\"" + num(std::max(1.0, x_of(b.value) - label_w)) +
           "\" height=\"" + num(kBarH) + "\"><title>" +
           xml_escape(b.label + ": " + format_number(b.value) + " " + unit) + "</title></rect>";
    out += text_el(x_of(b.value) + 4, y + kBarH - 5, format_number(b.value, 1) + " " + unit);
  }
  if (limit) {
    const double x = x_of(*limit);
    out += line_el(x, kTop - 12, x, height - 14, "limit");
    out += text_el(x, kTop - 16, limit_label, "middle", "label limit-label");
  }
  return out + "</svg>";
}

}  // namespace gauntlet::reports::detail

namespace gauntlet::reports::detail {

namespace {

struct Series {
  std::string unit;  // "°C", "MHz", "W", "tok/s"
  std::vector<std::pair<double, double>> points;
};

std::map<std::string, Series> series_of(const DeviceReport& d) {
  std::map<std::string, Series> out;
  const core::Json& units = json_member(d.telemetry, "units");
  if (!units.is_object()) return out;
  for (const auto& [name, evidence] : units.items()) {
    const core::Json& at_json = json_member(evidence, "at");
    if (!at_json.is_number()) continue;  // before schema 1.9: no place on the time axis
    const double at = at_json.get<double>();
    const core::Json& during = json_member(evidence, "during");
    if (!during.is_array()) continue;
    for (const auto& summary : during) {
      const core::Json& series = json_member(summary, "series");
      if (!series.is_array()) continue;
      for (const auto& point : series) {
        const double t = at + point.value("t", 0.0);
        const core::Json& values = json_member(point, "values");
        if (!values.is_object()) continue;
        for (const auto& [signal, value] : values.items()) {
          const auto unit = signal_unit(signal);
          if (unit.empty() || !value.is_number()) continue;
          auto& s = out[signal];
          s.unit = unit;
          s.points.emplace_back(t, value.get<double>());
        }
      }
    }
    if (d.soak && name.rfind("soak:", 0) == 0) {
      auto& s = out["tok/s (soak)"];
      s.unit = "tok/s";
      for (const auto& [t, tok_s] : d.soak->samples) s.points.emplace_back(at + t, tok_s);
    }
  }
  for (auto it = out.begin(); it != out.end();) {
    std::sort(it->second.points.begin(), it->second.points.end());
    it = it->second.points.size() < 2 ? out.erase(it) : std::next(it);
  }
  return out;
}

std::string css_name(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

}  // namespace

std::string signals_chart_svg(const DeviceReport& d) {
  const auto all = series_of(d);
  if (all.empty()) return "";
  constexpr double kW = 560, kLeft = 20, kRight = 20, kTop = 30, kPlotH = 180, kLegendLine = 16;
  const double kH = kTop + kPlotH + 30 + kLegendLine * static_cast<double>(all.size());
  const double plot_w = kW - kLeft - kRight;
  double end = 0;
  for (const auto& [name, s] : all) end = std::max(end, s.points.back().first);
  end = std::max(end, 1.0);
  auto x_of = [&](double t) { return kLeft + plot_w * t / end; };
  std::string out = svg_open("signals", kW, kH, "The device's signals over the run",
                             "Signals over the run, each scaled to its own range", kLeft);
  out += line_el(kLeft, kTop + kPlotH, kLeft + plot_w, kTop + kPlotH, "axis");
  for (int i = 0; i <= 4; ++i) {
    const double t = end * i / 4.0;
    out += text_el(x_of(t), kTop + kPlotH + 16, format_number(t, 0) + " s", "middle");
  }
  double legend_y = kTop + kPlotH + 30;
  for (const auto& [name, s] : all) {
    double lo = s.points.front().second, hi = lo;
    for (const auto& [t, v] : s.points) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    auto y_of = [&](double v) {
      return hi > lo ? kTop + kPlotH * (1.0 - (v - lo) / (hi - lo)) : kTop + kPlotH / 2;
    };
    std::string points;
    for (const auto& [t, v] : s.points) points += num(x_of(t)) + "," + num(y_of(v)) + " ";
    const std::string cls = "series " + css_name(name);
    out += "<polyline class=\"" + cls + "\" points=\"" + points + "\"/>";
    out +=
        text_el(kLeft, legend_y,
                name + ": " + format_number(lo, 1) + " to " + format_number(hi, 1) + " " + s.unit,
                "start", "legend " + css_name(name));
    legend_y += kLegendLine;
  }
  return out + "</svg>";
}

}  // namespace gauntlet::reports::detail
