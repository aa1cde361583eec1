#include "reports/text_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace gauntlet::reports::detail {

std::string format_bytes(uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " B";
  return format_number(value, 1) + " " + kUnits[unit];
}

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  std::array<char, 64> text{};
  // Very small figures (an NMSE) keep their significant digits.
  if (value != 0.0 && std::fabs(value) < 0.01) {
    std::snprintf(text.data(), text.size(), "%.2e", value);
    return text.data();
  }
  std::snprintf(text.data(), text.size(), "%.*f", digits, value);
  std::string out = text.data();
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

std::string format_optional(const std::optional<double>& value, int digits) {
  return value ? format_number(*value, digits) : "-";
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters even as references; keep tab, LF, CR.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string markdown_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '*' || c == '`' || c == '<' || c == '>') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string Table::aligned(const std::string& indent) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = indent;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      out += cell;
      if (i + 1 < widths.size()) out += std::string(widths[i] - cell.size() + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string Table::markdown() const {
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (size_t i = 0; i < header_.size(); ++i) {
      out.append(" ").append(markdown_escape(i < row.size() ? row[i] : "")).append(" |");
    }
    return out + "\n";
  };
  std::string out = line(header_) + "|";
  for (size_t i = 0; i < header_.size(); ++i) out += " --- |";
  out += "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string html_cell(const std::string& text, const std::string& cls) {
  return (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">") + xml_escape(text) + "</td>";
}

const char* const kHtmlPageStyle = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2733;background:#fafbfc}
h1{font-size:1.5em;margin-bottom:4px}h2{margin-top:36px;border-bottom:2px solid #d0d7de;padding-bottom:4px}
h3{margin-top:20px;font-size:1.05em}
.meta{color:#57606a}
table{border-collapse:collapse;margin:8px 0;font-size:0.9em}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4}
)CSS";

}  // namespace gauntlet::reports::detail
