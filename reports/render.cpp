#include "reports/render.h"

#include "reports/io.h"

namespace gauntlet::reports {

const char* to_string(Format format) {
  switch (format) {
    case Format::json:
      return "json";
    case Format::text:
      return "text";
    case Format::markdown:
      return "md";
    case Format::html:
      return "html";
    case Format::junit:
      return "junit";
  }
  return "json";
}

std::optional<Format> parse_format(const std::string& text) {
  if (text == "json") return Format::json;
  if (text == "text" || text == "txt") return Format::text;
  if (text == "md" || text == "markdown") return Format::markdown;
  if (text == "html") return Format::html;
  if (text == "junit" || text == "xml") return Format::junit;
  return std::nullopt;
}

std::string render(const Report& report, Format format, const RenderOptions& options) {
  switch (format) {
    case Format::json:
      return report_json_text(report);
    case Format::text:
      return render_text(report, options);
    case Format::markdown:
      return render_markdown(report, options);
    case Format::html:
      return render_html(report);
    case Format::junit:
      return render_junit(report);
  }
  return report_json_text(report);
}

core::Status write_rendered(const std::filesystem::path& path, const Report& report, Format format,
                            const RenderOptions& options) {
  return core::write_file_atomically(path, render(report, format, options));
}

}  // namespace gauntlet::reports
