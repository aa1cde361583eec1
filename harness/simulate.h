#pragma once
// --simulate: clamp a device's limits to those of a target device, so that a deployment to a
// device we do not have can be planned here. Everything downstream reads the clamped figures,
// and the report marks the device as simulated.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/json.h"

namespace gauntlet::harness {

struct SimulateClamps {
  std::string name;         // e.g. "apple-m2-32k-local"
  std::string description;  // what real device or field case it stands for
  std::optional<uint64_t> local_mem_size;
  std::optional<uint64_t> global_mem_size;
  std::optional<uint64_t> max_mem_alloc_size;
  std::vector<std::string> features_off;  // names of core::Features fields, e.g. "bf16"
  // A device whose memory is the host's (an iGPU, Strix Halo, GB10): both sides of a placement
  // draw on host_mem_size together, the GPU side further bounded by global_mem_size, which
  // memory_bound names ("GTT", "ttm.pages_limit", "host memory"; "VRAM" for a discrete card).
  bool shared_memory = false;
  std::optional<uint64_t> host_mem_size;
  std::string memory_bound;
  // The target's driver figures: the free memory it reports (free above total is clamped, and
  // both figures reported), and what other processes hold of the GPU side.
  std::optional<uint64_t> driver_free_mem_size;
  std::optional<uint64_t> other_processes_mem_size;

  core::Json to_json() const;
};

// Reads a clamp file, or a shipped preset by name (see `simulate_preset_names`).
core::Result<SimulateClamps> load_simulate(const std::string& file_or_preset);
std::vector<std::string> simulate_preset_names();
// Reads the clamps from a clamp file's text; `source` names it in errors.
core::Result<SimulateClamps> parse_simulate(const std::string& text, const std::string& source);

// The advertised capabilities as the target device would state them.
core::DeviceInfo apply_clamps(const core::DeviceInfo& info, const SimulateClamps& clamps);

// Clamps a measured figure: the smaller of what was measured and what the target has.
uint64_t clamp_local_memory(uint64_t verified, const SimulateClamps& clamps);
uint64_t clamp_memory_budget(uint64_t budget, const SimulateClamps& clamps);
bool feature_disabled(const SimulateClamps& clamps, const std::string& feature);

}  // namespace gauntlet::harness
