#pragma once
// Reading and writing report files. A reader never sees half a report: files are written to a
// temporary file and renamed. A broken report (bad JSON, another major schema version, a missing
// or mistyped field) is refused with an error that names the file and what is wrong.
#include <filesystem>
#include <string>

#include "core/status.h"
#include "reports/report.h"

namespace gauntlet::reports {

core::Json report_to_json(const Report& report);
// Checks the schema version and the schema, then converts. `what` names the source in errors.
core::Result<Report> report_from_json(const core::Json& json, const std::string& what);
core::Result<Report> parse_report(const std::string& text, const std::string& what);
core::Result<Report> read_report(const std::filesystem::path& path);

// The report as indented JSON text.
std::string report_json_text(const Report& report);
core::Status write_report(const std::filesystem::path& path, const Report& report);

}  // namespace gauntlet::reports
