#include "reports/io.h"

#include "reports/schema_check.h"

namespace gauntlet::reports {

core::Json report_to_json(const Report& report) { return core::Json(report); }

core::Result<Report> report_from_json(const core::Json& json, const std::string& what) {
  if (!json.is_object())
    return core::invalid_argument(what + ": is not a gauntlet report (not a JSON object)");
  auto version = json.find("schema_version");
  if (version == json.end() || !version->is_string()) {
    return core::invalid_argument(what +
                                  ": is not a gauntlet report (no \"schema_version\" string)");
  }
  const auto text = version->get<std::string>();
  const std::string supported = kSchemaVersion;
  const auto major = [](const std::string& v) { return v.substr(0, v.find('.')); };
  if (major(text) != major(supported)) {
    return core::invalid_argument(what + ": has schema_version \"" + text +
                                  "\"; this build reads " + major(supported) + ".x (" + supported +
                                  ")");
  }
  auto violations = check_report_schema(json, 5);
  if (!violations.empty()) {
    std::string message = "does not match the report schema " + supported + ": ";
    for (size_t i = 0; i < violations.size(); ++i) {
      message += (i ? "; " : "") + violations[i].describe();
    }
    return core::invalid_argument(what + ": " + message);
  }
  try {
    return json.get<Report>();
  } catch (const core::Json::exception& e) {
    return core::invalid_argument(what + ": " + std::string("has a malformed field: ") + e.what());
  }
}

core::Result<Report> parse_report(const std::string& text, const std::string& what) {
  auto json = core::parse_json(text, what);
  if (!json) return json.error();
  return report_from_json(*json, what);
}

core::Result<Report> read_report(const std::filesystem::path& path) {
  auto text = core::read_text_file(path);
  if (!text) return text.error();
  return parse_report(*text, path.string());
}

std::string report_json_text(const Report& report) { return report_to_json(report).dump(2) + "\n"; }

core::Status write_report(const std::filesystem::path& path, const Report& report) {
  return core::write_file_atomically(path, report_json_text(report));
}

}  // namespace gauntlet::reports
