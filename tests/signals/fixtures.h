#pragma once
// Where the signals tests' fixture trees are, and a writable copy of one for a test that moves a
// value during a unit.
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace gauntlet::signals::testing {

inline std::filesystem::path fixtures() {
  return std::filesystem::path(GAUNTLET_SOURCE_DIR) / "tests/signals/fixtures";
}

// A copy of fixtures()/<name> in a folder of the test's own.
class FixtureCopy {
 public:
  explicit FixtureCopy(const std::string& name) : dir_("signals-" + name) {
    std::filesystem::copy(fixtures() / name, dir_.path(), std::filesystem::copy_options::recursive);
  }
  const std::filesystem::path& root() const { return dir_.path(); }
  // Replaces the file whole (a new file renamed over it), as a reader on another thread must
  // never see it half written: sysfs attributes change at once.
  void write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = dir_.path() / relative;
    const std::filesystem::path next = path.string() + ".next";
    std::ofstream(next, std::ios::trunc) << text;
    std::filesystem::rename(next, path);
  }

 private:
  gauntlet::testing::TempDir dir_;
};

}  // namespace gauntlet::signals::testing
