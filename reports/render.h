#pragma once
// Renderers of a report: a terminal summary, markdown, a single self-contained HTML page with
// inline SVG charts, and JUnit XML for CI systems.
#include <filesystem>
#include <optional>
#include <string>

#include "core/status.h"
#include "reports/report.h"

namespace gauntlet::reports {

enum class Format { json, text, markdown, html, junit };

const char* to_string(Format format);
// "json", "text", "md" or "markdown", "html", "junit" or "xml".
std::optional<Format> parse_format(const std::string& text);

// What a summary lists: by default the unsafe and untested profiles as one line per cause (with
// how many profiles it rules out and their families); `all` adds every profile with its reason.
struct RenderOptions {
  bool all = false;
};

// Per device: safe configurations, the recommended one, the largest safe context per format, the
// fit answers, the causes of the unsafe ones; then a summary line.
std::string render_text(const Report& report, const RenderOptions& options = {});
std::string render_markdown(const Report& report, const RenderOptions& options = {});
// One page, no network: inline CSS, inline SVG charts (memory stress curve, tok/s per profile,
// local memory per kernel variant against the verified limit); profiles grouped by cause, each
// group a <details> that opens to its profiles.
std::string render_html(const Report& report);
// A <testsuite> per device (and one for host-wide rows): a <testcase> per row and per profile;
// <failure> for fail/unsafe, <error> for error/crash/timeout, <skipped> for
// unsupported/skipped/untested/derived.
std::string render_junit(const Report& report);

std::string render(const Report& report, Format format, const RenderOptions& options = {});
// Renders and writes atomically: a failed write leaves any old file in place.
core::Status write_rendered(const std::filesystem::path& path, const Report& report, Format format,
                            const RenderOptions& options = {});

}  // namespace gauntlet::reports
