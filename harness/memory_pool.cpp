#include "harness/memory_pool.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>

namespace gauntlet::harness {

namespace {

constexpr uint64_t kGiB = 1ull << 30;

std::optional<uint64_t> number_limit(const core::DeviceInfo& info, const char* key) {
  auto it = info.api_limits.find(key);
  if (it == info.api_limits.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

const core::DeviceInfo* drm_view(const PoolInputs& in) {
  for (const auto& v : in.views) {
    if (v.id.api == core::Api::drm && number_limit(v, "vram_total")) return &v;
  }
  return nullptr;
}

// amdgpu on an APU states a VRAM carve-out of a few hundred MiB to 2 GiB beside a GTT of half the
// host memory or more; a discrete card's VRAM is the larger of the two or close to it.
bool small_vram_large_gtt(const core::DeviceInfo& drm) {
  const auto vram = number_limit(drm, "vram_total");
  const auto gtt = number_limit(drm, "gtt_total");
  return vram && gtt && *vram <= 2 * kGiB && *vram * 4 <= *gtt;
}

bool is_shared(const PoolInputs& in) {
  for (const auto& v : in.views) {
    if (v.device_type == "discrete_gpu" && v.id.api != core::Api::drm) return false;
  }
  if (stress::shares_host_memory(in.claimed)) return true;
  for (const auto& v : in.views) {
    if (stress::shares_host_memory(v)) return true;
  }
  const auto* drm = drm_view(in);
  return drm && small_vram_large_gtt(*drm);
}

// A figure above the total it belongs to: the total is used, both are kept.
uint64_t clamp_to_total(reports::MemoryPool& pool, const std::string& source, uint64_t raw,
                        uint64_t total, const std::string& note) {
  if (raw <= total) return raw;
  pool.clamped.push_back({source, raw, total, total, note});
  return total;
}

// What other processes (and the driver) hold of the GPU side, where a driver counter says it.
void read_device_held(const PoolInputs& in, reports::MemoryPool& pool) {
  if (const auto* drm = drm_view(in)) {
    const uint64_t total = *number_limit(*drm, "vram_total");
    if (const auto used = number_limit(*drm, "vram_used")) {
      pool.device_held_bytes = clamp_to_total(pool, "amdgpu mem_info_vram_used", *used, total,
                                              "used above total: clamped to the total");
      pool.device_held_source = "amdgpu mem_info_vram_used";
    }
    if (pool.shared) {
      if (const auto gtt_used = number_limit(*drm, "gtt_used")) {
        const uint64_t gtt_total = number_limit(*drm, "gtt_total").value_or(*gtt_used);
        pool.device_held_bytes +=
            clamp_to_total(pool, "amdgpu mem_info_gtt_used", *gtt_used, gtt_total,
                           "used above total: clamped to the total");
        pool.device_held_source = "amdgpu mem_info_vram_used + mem_info_gtt_used";
      }
    }
    if (!pool.device_held_source.empty()) return;
  }
  if (in.nvml_held) {
    pool.device_held_bytes =
        clamp_to_total(pool, "NVML processes' usedGpuMemory", in.nvml_held->bytes,
                       stress::device_memory(in.claimed), "used above total: clamped to the total");
    pool.device_held_source = in.nvml_held->source;
    return;
  }
  // VK_EXT_memory_budget: heapBudget is what this process may still use of a heap; the rest of
  // the heap is held by other processes and the driver.
  for (const auto& v : in.views) {
    auto budgets = v.api_limits.find("heapBudget");
    if (v.id.api != core::Api::vulkan || budgets == v.api_limits.end() || !budgets->is_array()) {
      continue;
    }
    for (size_t h = 0; h < v.heaps.size() && h < budgets->size(); ++h) {
      if (!v.heaps[h].device_local || !(*budgets)[h].is_number_unsigned()) continue;
      const std::string source = "vulkan heapBudget[" + std::to_string(h) + "]";
      const uint64_t size = v.heaps[h].size;
      const uint64_t budget = clamp_to_total(pool, source, (*budgets)[h].get<uint64_t>(), size,
                                             "free above total: clamped to the heap's size");
      if (size == 0) {
        pool.clamped.push_back({"vulkan heap " + std::to_string(h) + " size", 0, 0, budget,
                                "zero total: the heap's budget used as its size"});
      }
      if (size > budget && pool.device_held_source.empty()) {
        pool.device_held_bytes = size - budget;
        pool.device_held_source = source + " (the heap's size less the budget)";
      }
    }
  }
}

reports::MemoryPool simulated_pool(const SimulateClamps& c) {
  reports::MemoryPool pool;
  pool.shared = c.shared_memory;
  pool.bound = c.memory_bound;
  pool.bound_bytes = *c.global_mem_size;
  const std::string of = "simulate " + c.name + " ";
  if (pool.shared) {
    pool.pool_bytes = *c.host_mem_size;
    pool.bound_bytes =
        clamp_to_total(pool, of + "global_mem_size", pool.bound_bytes, pool.pool_bytes,
                       "the GPU side above the host memory it is drawn from");
  }
  if (c.driver_free_mem_size) {
    const uint64_t free =
        clamp_to_total(pool, of + "driver_free_mem_size", *c.driver_free_mem_size,
                       *c.global_mem_size, "free above total: clamped to the total");
    if (free < pool.bound_bytes) {
      pool.device_held_bytes = pool.bound_bytes - free;
      pool.device_held_source = "the driver's free figure (" + of + "driver_free_mem_size)";
    }
  }
  if (c.other_processes_mem_size) {
    pool.device_held_bytes = std::min(*c.other_processes_mem_size, pool.bound_bytes);
    pool.device_held_source = of + "other_processes_mem_size";
  }
  // Other processes' GPU memory on a shared device is host memory: the pool loses it too.
  if (pool.shared && pool.device_held_bytes > 0) {
    pool.pool_held_bytes = pool.device_held_bytes;
    pool.pool_held_source = pool.device_held_source;
  }
  return pool;
}

reports::MemoryPool shared_pool(const PoolInputs& in) {
  reports::MemoryPool pool;
  pool.shared = true;
  const uint64_t claimed = stress::device_memory(in.claimed);
  pool.pool_bytes = in.host.mem_total.value_or(claimed);
  pool.bound = "host memory";
  pool.bound_bytes = claimed;
  if (claimed == 0) {
    pool.clamped.push_back({core::to_string(in.claimed.id.api) + std::string(" global memory"), 0,
                            0, pool.pool_bytes, "zero total: the host memory used instead"});
    pool.bound_bytes = pool.pool_bytes;
  }
  if (const auto* drm = drm_view(in); drm && number_limit(*drm, "gtt_total")) {
    pool.bound = "GTT";
    pool.bound_bytes = *number_limit(*drm, "gtt_total");
  }
  if (in.ttm_pages_limit_bytes && *in.ttm_pages_limit_bytes < pool.bound_bytes) {
    pool.bound = "ttm.pages_limit";
    pool.bound_bytes = *in.ttm_pages_limit_bytes;
  }
  pool.bound_bytes = clamp_to_total(pool, pool.bound, pool.bound_bytes, pool.pool_bytes,
                                    "the GPU side above the host memory it is drawn from");
  if (in.host.mem_total && in.host.mem_available) {
    const uint64_t available =
        clamp_to_total(pool, "/proc/meminfo MemAvailable", *in.host.mem_available,
                       *in.host.mem_total, "free above total: clamped to the total");
    pool.pool_held_bytes = *in.host.mem_total - available;
    pool.pool_held_source = "host memory in use (MemTotal - MemAvailable)";
  }
  return pool;
}

}  // namespace

reports::MemoryPool memory_pool(const PoolInputs& in) {
  if (in.clamps && in.clamps->global_mem_size) return simulated_pool(*in.clamps);
  reports::MemoryPool pool;
  if (is_shared(in)) {
    pool = shared_pool(in);
  } else {
    pool.bound = "VRAM";
    pool.bound_bytes = stress::device_memory(in.claimed);
    if (pool.bound_bytes == 0) {
      pool.notes.push_back("the driver states no memory size: the plan uses the stress's budget");
    }
  }
  read_device_held(in, pool);
  if (pool.device_held_bytes > pool.bound_bytes) pool.device_held_bytes = pool.bound_bytes;
  return pool;
}

std::optional<HeldByOthers> read_nvml_held(const signals::Nvml& nvml, const std::string& bus_id,
                                           unsigned own_pid) {
  const auto count = nvml.device_count();
  if (!count) return std::nullopt;
  for (unsigned i = 0; i < *count; ++i) {
    const auto id = nvml.bus_id(i);
    if (!id || *id != bus_id) continue;
    const auto memory = nvml.memory(i);
    if (!memory) return std::nullopt;
    HeldByOthers held;
    std::string named;
    int others = 0;
    for (const auto& p : memory->processes) {
      if (p.pid == own_pid) continue;
      ++others;
      held.bytes += p.bytes.value_or(0);
      char text[64];
      if (p.bytes) {
        std::snprintf(text, sizeof text, "pid %u %.2f GiB", p.pid,
                      static_cast<double>(*p.bytes) / kGiB);
      } else {
        std::snprintf(text, sizeof text, "pid %u, its size not stated", p.pid);
      }
      named += (named.empty() ? "" : ", ") + std::string(text);
    }
    held.source = others == 0 ? "NVML: no other process"
                              : "NVML: " + std::to_string(others) + " other process" +
                                    (others == 1 ? "" : "es") + " (" + named + ")";
    return held;
  }
  return std::nullopt;
}

std::optional<uint64_t> read_ttm_pages_limit(const std::filesystem::path& sysfs_root) {
  std::ifstream file(sysfs_root / "module" / "ttm" / "parameters" / "pages_limit");
  std::string text;
  if (!file || !std::getline(file, text)) return std::nullopt;
  uint64_t pages = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pages);
  if (ec != std::errc() || pages == 0) return std::nullopt;
  (void)end;
  return pages * 4096;
}

void add_driver_overhead(reports::MemoryPool& pool, uint64_t claimed_bytes,
                         const reports::StressResult& stress, bool capped_by_level) {
  if (capped_by_level || claimed_bytes == 0) return;
  uint64_t allocated = 0;
  bool refused = false;
  for (const auto& point : stress.curve) {
    if (point.status == core::RowStatus::pass && point.verified) {
      allocated = std::max(allocated, point.bytes);
    }
    refused = refused || point.reason.rfind("allocation", 0) == 0;
  }
  if (!refused || allocated == 0 || allocated >= claimed_bytes) return;
  pool.driver_overhead_bytes = claimed_bytes - allocated;
}

}  // namespace gauntlet::harness
