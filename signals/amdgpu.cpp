#include "signals/amdgpu.h"

#include "signals/gpu_metrics.h"
#include "signals/sysfs_file.h"

namespace gauntlet::signals {

namespace fs = std::filesystem;

bool is_amdgpu_device(const fs::path& device_dir) {
  std::error_code ec;
  return fs::exists(device_dir / "gpu_busy_percent", ec) ||
         fs::exists(device_dir / "gpu_metrics", ec);
}

namespace {

template <typename T>
void read_value(const fs::path& path, std::optional<T>& out, Snapshot& into) {
  auto value = read_integer(path);
  if (!value) return into.problems.push_back(value.error().message);
  if (!value->has_value()) return into.absent.push_back(path.filename().string() + ": absent");
  if (**value < 0) return into.problems.push_back("negative value in " + path.string());
  out = static_cast<T>(**value);
}

void read_metrics(const fs::path& file, Snapshot& into) {
  auto bytes = read_attribute(file, 4096);
  if (!bytes) return into.problems.push_back(bytes.error().message);
  if (!bytes->has_value()) return into.absent.push_back("gpu_metrics: absent");
  const std::string& raw = **bytes;
  auto metrics = decode_gpu_metrics(std::as_bytes(std::span(raw.data(), raw.size())));
  if (!metrics) return into.problems.push_back(metrics.error().message);
  for (const auto& [label, value] : metrics->temperatures_c)
    into.temperatures_c.emplace(label, value);
  for (const auto& [label, value] : metrics->clocks_mhz) into.clocks_mhz.emplace(label, value);
  if (!into.power_w) into.power_w = metrics->socket_power_w;
  if (!into.busy_percent) into.busy_percent = metrics->gfx_activity_percent;
  for (auto& reason : metrics->throttle_reasons()) into.throttle_reasons.insert(std::move(reason));
}

}  // namespace

void read_amdgpu(const fs::path& device_dir, Snapshot& into) {
  read_value(device_dir / "gpu_busy_percent", into.busy_percent, into);
  read_value(device_dir / "mem_info_vram_used", into.vram_used_bytes, into);
  read_value(device_dir / "mem_info_vram_total", into.vram_total_bytes, into);
  read_value(device_dir / "mem_info_gtt_used", into.gtt_used_bytes, into);
  read_value(device_dir / "mem_info_gtt_total", into.gtt_total_bytes, into);
  read_metrics(device_dir / "gpu_metrics", into);
}

}  // namespace gauntlet::signals
