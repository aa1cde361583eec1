#pragma once
// The run's journal: one JSON line per finished unit, appended and flushed as it finishes, so
// that an interrupted run keeps what it had and `--resume` continues from it.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"

namespace gauntlet::harness {

using JournalEntries = std::map<std::string, core::Json>;

// The entries of a journal's text, unit -> payload, a later line replacing an earlier one. A torn
// last line (a kill mid-write) is dropped; any other line that is not {"unit": string, "payload":
// ...} is an error naming `what` and the line.
core::Result<JournalEntries> parse_journal(std::string_view text, const std::string& what);

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
  JournalEntries entries_;
};

// A journal entry's payload as the type the run wrote there; a payload of another shape (a
// damaged or hand-edited journal) is an error naming the unit, never an exception.
template <typename T>
core::Result<T> journal_payload(const core::Json& payload, const std::string& unit,
                                const Journal& journal) {
  try {
    return payload.get<T>();
  } catch (const core::Json::exception& e) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "journal " + journal.path().string() + ": the entry of '" + unit +
                                "' is damaged: " + e.what());
  }
}

}  // namespace gauntlet::harness
