#include "harness/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gauntlet::harness {

core::Result<JournalEntries> parse_journal(std::string_view text, const std::string& what) {
  JournalEntries entries;
  size_t number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const bool last = end == std::string_view::npos || end + 1 == text.size();
    const std::string line(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (line.empty()) continue;
    auto parsed = core::parse_json(line, what + " line " + std::to_string(number));
    const bool valid = parsed && parsed->is_object() && parsed->contains("unit") &&
                       (*parsed)["unit"].is_string() && parsed->contains("payload");
    if (!valid) {
      if (last) break;  // a torn last line: the kill came mid-write
      return core::make_error(core::ErrorKind::invalid_argument,
                              "journal " + what + " is damaged at line " + std::to_string(number));
    }
    entries[(*parsed)["unit"].get<std::string>()] = (*parsed)["payload"];
  }
  return entries;
}

core::Result<Journal> Journal::open(const std::filesystem::path& path, bool resume) {
  Journal journal;
  journal.path_ = path;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (!resume) {
    if (exists) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "a journal of an interrupted run exists at " + path.string() +
                                  ": continue it with --resume, or remove it to start over");
    }
    return journal;
  }
  if (!exists) {
    return core::make_error(core::ErrorKind::not_found,
                            "--resume: no journal at " + path.string() + " to continue from");
  }
  auto text = core::read_text_file(path);
  if (!text) return text.error();
  auto entries = parse_journal(*text, path.string());
  if (!entries) return entries.error();
  journal.entries_ = std::move(*entries);
  // Cut a torn last line, so that the next append starts a line of its own.
  if (!text->empty() && text->back() != '\n') {
    std::error_code ec;
    std::filesystem::resize_file(path, text->rfind('\n') + 1, ec);  // npos + 1 == 0
    if (ec) {
      return core::make_error(
          core::ErrorKind::io_error,
          "cannot cut the torn last line of journal " + path.string() + ": " + ec.message());
    }
  }
  return journal;
}

const core::Json* Journal::find(const std::string& unit) const {
  auto it = entries_.find(unit);
  return it == entries_.end() ? nullptr : &it->second;
}

core::Status Journal::append(const std::string& unit, const core::Json& payload) {
  std::string line = core::Json{{"unit", unit}, {"payload", payload}}.dump() + "\n";
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return core::make_error(core::ErrorKind::io_error,
                            "cannot open journal " + path_.string() + ": " + std::strerror(errno));
  }
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return core::make_error(core::ErrorKind::io_error,
                              "cannot write journal " + path_.string() + ": " + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  entries_[unit] = payload;
  return core::Status::ok();
}

core::Status Journal::remove() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  if (ec) {
    return core::make_error(core::ErrorKind::io_error,
                            "cannot remove journal " + path_.string() + ": " + ec.message());
  }
  return core::Status::ok();
}

}  // namespace gauntlet::harness
