#include "tests/support/temp_dir.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <system_error>

namespace gauntlet::testing {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "gauntlet-test-";

// Removes what test processes that are gone left: gauntlet-test-<pid>-... whose pid does not run.
void remove_what_dead_tests_left() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string rest = name.substr(std::string(kPrefix).size());
    const auto dash = rest.find('-');
    const std::string digits = rest.substr(0, dash);
    if (dash == std::string::npos || digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    if (::kill(static_cast<pid_t>(std::stol(digits)), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

}  // namespace

fs::path temp_file_path(const std::string& name) {
  return fs::temp_directory_path() / (kPrefix + std::to_string(::getpid()) + "-" + name);
}

TempDir::TempDir(const std::string& tag) : path_(temp_file_path(tag)) {
  remove_what_dead_tests_left();
  fs::remove_all(path_);
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path TempDir::write(const std::string& name, const std::string& text) const {
  auto file = path_ / name;
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
  return file;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace gauntlet::testing
