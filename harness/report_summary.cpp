#include "harness/report_summary.h"

#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace gauntlet::harness {

void summarize_device(reports::DeviceReport& device) {
  std::map<std::string, reports::LargestContext> largest;
  const reports::Profile* fastest = nullptr;
  for (const auto& p : device.profiles) {
    auto& entry = largest[p.weight_format];
    entry.weight_format = p.weight_format;
    if (p.verdict != reports::ProfileVerdict::safe) continue;
    if (p.context > entry.context) {
      entry.context = p.context;
      entry.profile = p.name;
    }
    if (p.figures.tok_s &&
        (fastest == nullptr || *p.figures.tok_s > fastest->figures.tok_s.value_or(0))) {
      fastest = &p;
    }
  }
  device.largest_safe_context.clear();
  for (const char* format : {"f32", "f16", "bf16", "q8_0", "q4_0"}) {
    if (largest.count(format)) device.largest_safe_context.push_back(largest[format]);
  }
  if (fastest != nullptr) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "the fastest safe configuration: %.1f tok/s, matched the host "
                  "reference",
                  *fastest->figures.tok_s);
    device.recommendation = reports::Recommendation{fastest->name, why};
  }
}

reports::HostInfo describe_host() {
  reports::HostInfo host;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) host.hostname = name;
  struct utsname uts {};
  if (::uname(&uts) == 0)
    host.os = std::string(uts.sysname) + " " + uts.release + " " + uts.machine;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      host.cpu = line.substr(line.find(':') + 2);
      break;
    }
  }
  struct sysinfo si {};
  if (::sysinfo(&si) == 0) host.memory_bytes = static_cast<uint64_t>(si.totalram) * si.mem_unit;
  return host;
}

}  // namespace gauntlet::harness
