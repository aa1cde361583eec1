#pragma once
// The run's journal: one JSON line per finished unit, appended and flushed as it finishes, so
// that an interrupted run keeps what it had and `--resume` continues from it.
#include <filesystem>
#include <map>
#include <string>

#include "core/json.h"
#include "core/status.h"

namespace gauntlet::harness {

class Journal {
 public:
  // Opens the journal at `path`. With `resume`, earlier entries are loaded (a torn last line,
  // left by a kill mid-write, is dropped). Without it, an existing journal is an error: it holds
  // the results of an interrupted run, and starting over would lose them.
  static core::Result<Journal> open(const std::filesystem::path& path, bool resume);

  const core::Json* find(const std::string& unit) const;
  core::Status append(const std::string& unit, const core::Json& payload);
  size_t size() const { return entries_.size(); }
  const std::filesystem::path& path() const { return path_; }
  // Removes the journal once the final report is safely written.
  core::Status remove();

 private:
  std::filesystem::path path_;
  std::map<std::string, core::Json> entries_;
};

}  // namespace gauntlet::harness
