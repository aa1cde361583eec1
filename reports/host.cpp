#include "reports/host.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <string>

namespace gauntlet::reports {

namespace {

// The value after `key` and its separator on the first line that starts with `key`.
std::string field(const char* path, const std::string& key, char separator) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    auto at = line.find(separator, key.size());
    if (at == std::string::npos) continue;
    std::string value = line.substr(at + 1);
    const auto first = value.find_first_not_of(" \t\"");
    const auto last = value.find_last_not_of(" \t\"");
    return first == std::string::npos ? "" : value.substr(first, last - first + 1);
  }
  return {};
}

}  // namespace

HostInfo detect_host() {
  HostInfo host;
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) == 0) host.hostname = name.data();
  host.os = field("/etc/os-release", "PRETTY_NAME", '=');
  struct utsname uts {};
  if (::uname(&uts) == 0) {
    host.os += (host.os.empty() ? "" : ", ") + std::string(uts.sysname) + " " + uts.release + " " +
               uts.machine;
  }
  host.cpu = field("/proc/cpuinfo", "model name", ':');
  const auto kib = field("/proc/meminfo", "MemTotal", ':');
  if (!kib.empty()) host.memory_bytes = std::stoull(kib) * 1024ull;
  return host;
}

}  // namespace gauntlet::reports
