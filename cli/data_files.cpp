#include "cli/data_files.h"

#include <algorithm>
#include <system_error>

#include "core/json.h"
#include "reports/schema_check.h"
#include "version.h"

namespace gauntlet::cli {

namespace {

namespace fs = std::filesystem;

std::string schema_line(const fs::path& file, std::string_view built_in) {
  auto text = core::read_text_file(file);
  if (!text) return file.string() + " (missing)";
  return file.string() +
         (*text == built_in ? " (the one built in)" : " (differs from the one built in)");
}

}  // namespace

std::optional<fs::path> find_data_dir() {
  std::error_code error;
  const auto exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  const auto dir = (exe.parent_path() / ".." / "share" / "gauntlet").lexically_normal();
  if (!fs::is_directory(dir / "schema", error)) return std::nullopt;
  return dir;
}

std::vector<std::string> installed_preset_names(const fs::path& data_dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(data_dir / "presets", error)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string resolve_simulate(const std::string& file_or_preset) {
  std::error_code error;
  if (file_or_preset.empty() || fs::exists(file_or_preset, error)) return file_or_preset;
  const auto data = find_data_dir();
  if (!data) return file_or_preset;
  const auto preset = *data / "presets" / (file_or_preset + ".json");
  return fs::is_regular_file(preset, error) ? preset.string() : file_or_preset;
}

std::string version_text() {
  std::string out = std::string("gauntlet ") + kVersion + " (" + kGitRevision + ")\n";
  const auto data = find_data_dir();
  if (!data) return out + "data: no share/gauntlet folder beside the binary (schemas built in)\n";
  out += "data: " + data->string() + "\n";
  out += "report schema: " +
         schema_line(*data / "schema" / "report.schema.json", reports::report_schema_text()) + "\n";
  out += "fleet schema: " +
         schema_line(*data / "schema" / "fleet.schema.json", reports::fleet_schema_text()) + "\n";
  out += "health schema: " +
         schema_line(*data / "schema" / "health.schema.json", reports::health_schema_text()) + "\n";
  std::string presets;
  for (const auto& name : installed_preset_names(*data)) {
    presets += (presets.empty() ? "" : ", ") + name;
  }
  return out + "presets: " + (presets.empty() ? "none" : presets) + " (" +
         (*data / "presets").string() + ")\n";
}

}  // namespace gauntlet::cli
