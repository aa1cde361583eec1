#pragma once
// A folder of a test's own under the system's temporary folder, removed with all it holds when
// the object goes. Its name, gauntlet-test-<pid>-<tag>, carries the test process's pid: a folder
// whose process no longer runs (a test killed before its cleanup) is removed by the next TempDir
// any test makes, so that the suite leaves the temporary folder as it found it.
#include <filesystem>
#include <string>

namespace gauntlet::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }
  // Writes `text` to `name` in the folder (making the folders on its way) and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

// The path of a file `name` in the temporary folder that no other test process uses
// (gauntlet-test-<pid>-<name>), for a test that removes it itself.
std::filesystem::path temp_file_path(const std::string& name);

// The whole of a file (a report, a document the binary wrote); empty when it cannot be read.
std::string read_text(const std::filesystem::path& path);

}  // namespace gauntlet::testing
