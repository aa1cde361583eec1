#include "harness/stale_temps.h"

#include <signal.h>

#include <cerrno>
#include <string>

namespace gauntlet::harness {

namespace {

// mkstemp's template: ".<name>." then six characters.
bool is_write_temporary_of(const std::string& file, const std::string& name) {
  const std::string prefix = "." + name + ".";
  return file.size() == prefix.size() + 6 && file.compare(0, prefix.size(), prefix) == 0;
}

bool process_gone(const std::string& digits) {
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  return ::kill(static_cast<pid_t>(std::stol(digits)), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::vector<std::filesystem::path> remove_stale_temporaries(
    const std::vector<std::filesystem::path>& outputs, const std::filesystem::path& cache_dir) {
  std::vector<std::filesystem::path> removed;
  std::error_code ec;
  auto remove = [&](const std::filesystem::path& p) {
    if (std::filesystem::remove(p, ec)) removed.push_back(p);
  };
  for (const auto& out : outputs) {
    const auto dir = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (is_write_temporary_of(entry.path().filename().string(), out.filename().string())) {
        remove(entry.path());
      }
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, ec)) {
    const std::string file = entry.path().filename().string();
    const auto at = file.rfind(".tmp.");
    if (at != std::string::npos && process_gone(file.substr(at + 5))) remove(entry.path());
  }
  return removed;
}

}  // namespace gauntlet::harness
