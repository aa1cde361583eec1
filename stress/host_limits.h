#pragma once
// Host safety: a device that shares the host's memory must never drive the machine out of
// memory. The cap takes the smallest of the host's available memory, the cgroup's room and the
// address-space limit, less a stated margin.
#include <cstdint>
#include <optional>
#include <string>

#include "core/device_info.h"
#include "core/options.h"
#include "core/status.h"

namespace gauntlet::stress {

// Where the host's memory facts are read from; tests point these at fixture files.
struct HostPaths {
  std::string meminfo = "/proc/meminfo";
  std::string self_cgroup = "/proc/self/cgroup";
  std::string cgroup_root = "/sys/fs/cgroup";
  bool read_rlimit = true;  // tests of the files alone turn the real RLIMIT_AS off
};

struct HostMemory {
  std::optional<uint64_t> mem_available;  // /proc/meminfo MemAvailable
  std::optional<uint64_t> mem_total;
  std::optional<uint64_t> cgroup_room;     // limit - usage of the tightest cgroup with a limit
  std::string cgroup_source;               // e.g. "cgroup memory.max (/sys/fs/cgroup/x)"
  std::string cgroup_dir;                  // that cgroup's folder, e.g. "/sys/fs/cgroup/x"
  std::optional<uint64_t> rlimit_as_room;  // RLIMIT_AS - this process's address space
};

core::Result<uint64_t> parse_meminfo_field(const std::string& text, const std::string& field);
HostMemory read_host_memory(const HostPaths& paths = {});

// The limits a run obeys, and the one that binds.
struct Cap {
  uint64_t bytes = 0;
  std::string bound_by;
  std::string margin_rule;  // the host margin, when the host bound the cap
  uint64_t host_margin_bytes = 0;
};

bool shares_host_memory(const core::DeviceInfo& info);

// The device's memory as the stress counts it: global_mem_size, else the sum of its heaps.
uint64_t device_memory(const core::DeviceInfo& info);

// The largest single allocation the API allows, and the limit's name.
std::pair<uint64_t, std::string> api_max_allocation(const core::DeviceInfo& info);

// The level's fraction of device memory: quick 0.25 (and at most 1 GiB), standard 0.9, full 1.
double level_fraction(core::Level level);

// The total a run may occupy on `info`: device memory × fraction, the quick level's 1 GiB, the
// caller's cap, and for devices sharing host memory the host's room less its margin.
Cap compute_cap(const core::DeviceInfo& info, core::Level level, double max_fraction,
                uint64_t cap_bytes, const HostMemory& host);

}  // namespace gauntlet::stress
