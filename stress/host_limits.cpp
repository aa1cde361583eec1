#include "stress/host_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "stress/steps.h"

namespace gauntlet::stress {

namespace {

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kHostMarginFloor = 512 * kMiB;
constexpr double kHostMarginShare = 0.15;

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A cgroup limit file holds a number or "max"; v1 uses a huge number for "no limit".
std::optional<uint64_t> read_limit(const std::string& path) {
  auto text = read_file(path);
  if (!text) return std::nullopt;
  std::string value = *text;
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
  if (value.empty() || value == "max") return std::nullopt;
  try {
    uint64_t v = std::stoull(value);
    if (v >= (1ull << 62)) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

struct CgroupLine {
  std::string controllers;
  std::string path;
};

std::vector<CgroupLine> parse_self_cgroup(const std::string& text) {
  std::vector<CgroupLine> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto a = line.find(':');
    auto b = line.find(':', a == std::string::npos ? 0 : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    lines.push_back({line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return lines;
}

// The folder and its ancestors up to `root`, tightest first found.
std::vector<std::string> with_ancestors(const std::string& root, std::string path) {
  std::vector<std::string> dirs;
  while (!path.empty() && path.back() == '/') path.pop_back();
  for (;;) {
    dirs.push_back(root + path);
    if (path.empty()) break;
    auto slash = path.rfind('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  return dirs;
}

void consider_cgroup(HostMemory& host, const std::string& dir, const char* limit_file,
                     const char* usage_file, const char* label) {
  auto limit = read_limit(dir + "/" + limit_file);
  if (!limit) return;
  uint64_t usage = read_limit(dir + "/" + usage_file).value_or(0);
  uint64_t room = *limit > usage ? *limit - usage : 0;
  if (!host.cgroup_room || room < *host.cgroup_room) {
    host.cgroup_room = room;
    host.cgroup_source = std::string(label) + " (" + dir + ")";
    host.cgroup_dir = dir;
  }
}

std::optional<uint64_t> vm_size_bytes() {
  auto status = read_file("/proc/self/status");
  if (!status) return std::nullopt;
  auto kb = parse_meminfo_field(*status, "VmSize");
  if (!kb) return std::nullopt;
  return *kb;
}

}  // namespace

core::Result<uint64_t> parse_meminfo_field(const std::string& text, const std::string& field) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(field.size() + 1));
    uint64_t value = 0;
    std::string unit;
    if (!(fields >> value)) break;
    fields >> unit;
    if (unit == "kB") value *= 1024;
    return value;
  }
  return core::make_error(core::ErrorKind::not_found, "no readable '" + field + "' line");
}

HostMemory read_host_memory(const HostPaths& paths) {
  HostMemory host;
  if (auto meminfo = read_file(paths.meminfo)) {
    if (auto v = parse_meminfo_field(*meminfo, "MemAvailable")) host.mem_available = *v;
    if (auto v = parse_meminfo_field(*meminfo, "MemTotal")) host.mem_total = *v;
  }
  auto self = read_file(paths.self_cgroup);
  for (const auto& line : parse_self_cgroup(self.value_or(""))) {
    if (line.controllers.empty()) {  // cgroup v2: "0::/path"
      for (const auto& dir : with_ancestors(paths.cgroup_root, line.path)) {
        consider_cgroup(host, dir, "memory.max", "memory.current", "cgroup memory.max");
      }
    } else if (("," + line.controllers + ",").find(",memory,") != std::string::npos) {
      // cgroup v1; inside a container the own path is often the mount's root.
      const std::string base = paths.cgroup_root + "/memory";
      auto dirs = with_ancestors(base, line.path);
      dirs.push_back(base);
      for (const auto& dir : dirs) {
        consider_cgroup(host, dir, "memory.limit_in_bytes", "memory.usage_in_bytes",
                        "cgroup v1 memory.limit_in_bytes");
      }
    }
  }
  if (paths.read_rlimit) {
    rlimit rl{};
    if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
      uint64_t used = vm_size_bytes().value_or(0);
      host.rlimit_as_room = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
    }
  }
  return host;
}

bool shares_host_memory(const core::DeviceInfo& info) {
  return info.id.api == core::Api::host || info.host_unified_memory || info.device_type == "cpu" ||
         info.device_type == "integrated_gpu";
}

uint64_t device_memory(const core::DeviceInfo& info) {
  if (info.global_mem_size > 0) return info.global_mem_size;
  uint64_t sum = 0;
  for (const auto& heap : info.heaps) sum += heap.size;
  return sum;
}

std::pair<uint64_t, std::string> api_max_allocation(const core::DeviceInfo& info) {
  uint64_t best = info.max_mem_alloc_size;
  std::string name =
      info.id.api == core::Api::vulkan ? "maxMemoryAllocationSize" : "max_mem_alloc_size";
  if (best == 0) {
    best = device_memory(info);
    name = "device global memory";
  }
  for (const char* key : {"maxStorageBufferRange", "maxBufferSize"}) {
    auto it = info.api_limits.find(key);
    if (it != info.api_limits.end() && it->is_number_unsigned()) {
      uint64_t v = it->get<uint64_t>();
      if (v > 0 && v < best) {
        best = v;
        name = key;
      }
    }
  }
  return {best, name};
}

double level_fraction(core::Level level) {
  switch (level) {
    case core::Level::quick:
      return 0.25;
    case core::Level::standard:
      return 0.9;
    case core::Level::full:
      return 1.0;
  }
  return 0.25;
}

Cap compute_cap(const core::DeviceInfo& info, core::Level level, double max_fraction,
                uint64_t cap_bytes, const HostMemory& host) {
  const uint64_t memory = device_memory(info);
  Cap cap;
  cap.bytes = memory;
  cap.bound_by = "device global memory";
  auto tighten = [&](uint64_t bytes, const std::string& why) {
    if (bytes < cap.bytes) {
      cap.bytes = bytes;
      cap.bound_by = why;
    }
  };
  if (max_fraction > 0) {
    tighten(static_cast<uint64_t>(static_cast<double>(memory) * std::min(max_fraction, 1.0)),
            "max_fraction");
  } else {
    tighten(static_cast<uint64_t>(static_cast<double>(memory) * level_fraction(level)),
            "level cap");
    if (level == core::Level::quick) tighten(kGiB, "level cap");
  }
  if (cap_bytes > 0) tighten(cap_bytes, "cap_bytes");
  if (shares_host_memory(info)) {
    auto with_margin = [&](uint64_t room, const std::string& why) {
      uint64_t margin = std::max<uint64_t>(
          kHostMarginFloor, static_cast<uint64_t>(static_cast<double>(room) * kHostMarginShare));
      uint64_t usable = room > margin ? room - margin : 0;
      if (usable < cap.bytes) {
        cap.host_margin_bytes = margin;
        cap.margin_rule = "host margin max(512 MiB, 15% of " + why + ")";
      }
      tighten(usable, why);
    };
    if (host.mem_available) with_margin(*host.mem_available, "host available memory");
    if (host.cgroup_room) {
      // The cgroup is named, so that a report says which job's limit bound the run.
      const bool v1 = host.cgroup_source.rfind("cgroup v1", 0) == 0;
      with_margin(*host.cgroup_room,
                  std::string(v1 ? "cgroup memory.limit_in_bytes" : "cgroup memory.max") + " (" +
                      host.cgroup_dir + ")");
    }
    if (host.rlimit_as_room) with_margin(*host.rlimit_as_room, "RLIMIT_AS");
  }
  return cap;
}

}  // namespace gauntlet::stress
