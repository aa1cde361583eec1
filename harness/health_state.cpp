#include "harness/health_state.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace gauntlet::harness {

std::filesystem::path baseline_path(const core::Options& options) {
  return std::filesystem::path(options.state_dir) / "baseline.json";
}

std::filesystem::path health_state_path(const core::Options& options) {
  return std::filesystem::path(options.state_dir) / "health-state.json";
}

core::Status write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return core::make_error(core::ErrorKind::io_error,
                            "cannot create " + dir.string() + ": " + ec.message());
  }
  // The temporary's name: stale_temps removes "<name>.tmp.<pid>" files a killed run left.
  auto temp = path;
  temp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc | std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      std::filesystem::remove(temp, ec);
      return core::make_error(core::ErrorKind::io_error, "cannot write " + temp.string());
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return core::make_error(core::ErrorKind::io_error,
                            "cannot rename " + temp.string() + " to " + path.string());
  }
  return core::Status::ok();
}

core::Status write_baseline(const core::Options& options, const std::string& report_json) {
  return write_file_atomically(baseline_path(options), report_json);
}

core::Result<core::Json> read_health_state(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return core::Json::object();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = core::Json::parse(text.str(), nullptr, false);
  if (!in || parsed.is_discarded() || !parsed.is_object()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the health state file " + path.string() + " is not a JSON object");
  }
  return parsed;
}

}  // namespace gauntlet::harness
