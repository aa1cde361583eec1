#pragma once
// Formatting shared by the renderers, diff and merge (internal to reports/).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gauntlet::reports::detail {

// 1536 -> "1.5 KiB"; below 1 KiB in bytes ("512 B").
std::string format_bytes(uint64_t bytes);
// A number with at most `digits` decimals, trailing zeros removed: 41.50 -> "41.5".
std::string format_number(double value, int digits = 2);
std::string format_optional(const std::optional<double>& value, int digits = 2);
std::string xml_escape(const std::string& text);  // also right for HTML text and attributes
// <td class="cls">text</td> (no class when empty), the text escaped.
std::string html_cell(const std::string& text, const std::string& cls = {});
// The style both HTML pages (report and fleet) share: page, headings, tables.
extern const char* const kHtmlPageStyle;
std::string markdown_escape(const std::string& text);

// A table of text cells, rendered with aligned columns or as a markdown table.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  bool empty() const { return rows_.empty(); }
  std::string aligned(const std::string& indent) const;
  std::string markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gauntlet::reports::detail
