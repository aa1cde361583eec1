#include "harness/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace gauntlet::harness {

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
  std::ifstream in(path);
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto parsed = core::parse_json(line, path.string() + " line " + std::to_string(number));
    if (!parsed || !parsed->contains("unit") || !parsed->contains("payload")) {
      if (in.peek() == EOF) break;  // a torn last line: the kill came mid-write
      return core::make_error(
          core::ErrorKind::invalid_argument,
          "journal " + path.string() + " is damaged at line " + std::to_string(number));
    }
    journal.entries_[(*parsed)["unit"].get<std::string>()] = (*parsed)["payload"];
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
