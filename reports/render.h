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

// Per device: safe configurations, the largest safe context per format, why the others are
// unsafe; then a summary line.
std::string render_text(const Report& report);
std::string render_markdown(const Report& report);
// One page, no network: inline CSS, inline SVG charts (memory stress curve, tok/s per profile,
// local memory per profile against the verified limit).
std::string render_html(const Report& report);
// A <testsuite> per device (and one for host-wide rows): a <testcase> per row and per profile;
// <failure> for fail/unsafe, <error> for error/crash/timeout, <skipped> for
// unsupported/skipped/untested/derived.
std::string render_junit(const Report& report);

std::string render(const Report& report, Format format);
// Renders and writes atomically: a failed write leaves any old file in place.
core::Status write_rendered(const std::filesystem::path& path, const Report& report, Format format);

}  // namespace gauntlet::reports
