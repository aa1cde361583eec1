#include "signals/sysfs_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

namespace gauntlet::signals {

namespace fs = std::filesystem;
using core::ErrorKind;

core::Result<std::optional<std::string>> read_attribute(const fs::path& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<std::string>{};
    return core::make_error(ErrorKind::io_error,
                            "cannot read " + path.string() + " (" + std::strerror(errno) + ")");
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return core::make_error(ErrorKind::io_error,
                              "cannot read " + path.string() + " (" + std::strerror(error) + ")");
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      return core::make_error(ErrorKind::invalid_argument, path.string() + " is longer than " +
                                                               std::to_string(max_bytes) +
                                                               " bytes: not a sysfs attribute");
    }
  }
  ::close(fd);
  return std::optional<std::string>{std::move(text)};
}

std::string printable_line(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, text.find('\n'))) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

namespace {

std::string shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return text.size() > 40 ? out + "..." : out;
}

}  // namespace

core::Result<int64_t> parse_integer(std::string_view text, const std::string& what) {
  std::string_view digits = text;
  while (!digits.empty() && (digits.back() == '\n' || digits.back() == ' '))
    digits.remove_suffix(1);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size()) {
    return core::invalid_argument("garbage in " + what + ": '" + shown(text) + "'");
  }
  return value;
}

core::Result<std::optional<int64_t>> read_integer(const fs::path& path) {
  auto text = read_attribute(path);
  if (!text) return text.error();
  if (!text->has_value()) return std::optional<int64_t>{};
  auto value = parse_integer(**text, path.string());
  if (!value) return value.error();
  return std::optional<int64_t>{*value};
}

std::vector<fs::path> numbered_entries(const fs::path& folder, std::string_view prefix) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    long number = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
    if (error != std::errc{} || end != rest.data() + rest.size()) continue;
    found.emplace_back(number, entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> paths;
  for (auto& [number, path] : found) paths.push_back(std::move(path));
  return paths;
}

core::Result<std::map<std::string, uint64_t>> parse_named_counts(std::string_view text,
                                                                 const std::string& what,
                                                                 std::string_view separator,
                                                                 bool last) {
  std::map<std::string, uint64_t> counts;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const size_t at = last ? line.rfind(separator) : line.find(separator);
    std::optional<int64_t> count;
    if (at != std::string_view::npos && at != 0) {
      auto parsed = parse_integer(line.substr(at + separator.size()), what);
      if (parsed && *parsed >= 0) count = *parsed;
    }
    if (!count) {
      return core::invalid_argument("garbage in " + what + ": '" + std::string(line.substr(0, 40)) +
                                    "'");
    }
    counts[std::string(line.substr(0, at))] = static_cast<uint64_t>(*count);
  }
  return counts;
}

}  // namespace gauntlet::signals
