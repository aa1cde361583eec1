#include "core/json.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gauntlet::core {

Result<Json> parse_json(const std::string& text, const std::string& what) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    return make_error(ErrorKind::invalid_argument, what + " is not valid JSON (byte " +
                                                       std::to_string(e.byte) + "): " + e.what());
  } catch (const Json::exception& e) {
    // The parser throws out_of_range, not parse_error, for a number beyond a double (1E400).
    return make_error(ErrorKind::invalid_argument, what + " is not readable JSON: " + e.what());
  }
}

Result<std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorKind::not_found,
                      "cannot open " + path.string() + ": " + std::strerror(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return make_error(ErrorKind::io_error, "cannot read " + path.string());
  return buffer.str();
}

Result<Json> read_json_file(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_json(*text, path.string());
}

Status write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const std::string name = std::string(".").append(path.filename().string()).append(".XXXXXX");
  std::string tmpl = (folder / name).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    return make_error(ErrorKind::io_error, "cannot create a temporary file in " + folder.string() +
                                               ": " + std::strerror(errno));
  }
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      return make_error(ErrorKind::io_error, "cannot write " + tmpl + ": " + std::strerror(err));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::fchmod(fd, 0644) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return make_error(ErrorKind::io_error, "cannot flush " + tmpl + ": " + std::strerror(err));
  }
  ::close(fd);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return make_error(ErrorKind::io_error,
                      "cannot rename " + tmpl + " to " + path.string() + ": " + std::strerror(err));
  }
  return Status::ok();
}

}  // namespace gauntlet::core
