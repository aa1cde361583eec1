#include "harness/simulate.h"

#include <algorithm>

#include "kernels/arc_16g_preset.h"
#include "kernels/arc_8g_preset.h"
#include "kernels/gb10_128g_preset.h"
#include "kernels/h100_80g_preset.h"
#include "kernels/h200_141g_preset.h"
#include "kernels/m2_32k_local_preset.h"
#include "kernels/mali_3g_no_bf16_preset.h"
#include "kernels/rtx_24g_preset.h"
#include "kernels/strix_halo_128g_preset.h"

namespace gauntlet::harness {

namespace {

struct Preset {
  const char* name;
  std::string_view text;
};

const Preset kPresets[] = {
    {"m2-32k-local", kernels::m2_32k_local_preset},
    {"mali-3g-no-bf16", kernels::mali_3g_no_bf16_preset},
    {"arc-16g", kernels::arc_16g_preset},
    {"arc-8g", kernels::arc_8g_preset},
    {"rtx-24g", kernels::rtx_24g_preset},
    {"h100-80g", kernels::h100_80g_preset},
    {"h200-141g", kernels::h200_141g_preset},
    {"strix-halo-128g", kernels::strix_halo_128g_preset},
    {"gb10-128g", kernels::gb10_128g_preset},
};

const char* kMemoryBounds[] = {"VRAM", "GTT", "ttm.pages_limit", "host memory"};

bool is_byte_key(const std::string& key) {
  return key == "local_mem_size" || key == "global_mem_size" || key == "max_mem_alloc_size" ||
         key == "host_mem_size" || key == "driver_free_mem_size" ||
         key == "other_processes_mem_size";
}

std::optional<uint64_t>* byte_field(SimulateClamps& clamps, const std::string& key) {
  if (key == "local_mem_size") return &clamps.local_mem_size;
  if (key == "global_mem_size") return &clamps.global_mem_size;
  if (key == "max_mem_alloc_size") return &clamps.max_mem_alloc_size;
  if (key == "host_mem_size") return &clamps.host_mem_size;
  if (key == "driver_free_mem_size") return &clamps.driver_free_mem_size;
  return &clamps.other_processes_mem_size;
}

const char* kFeatureNames[] = {"fp16_storage",
                               "fp16_arithmetic",
                               "bf16",
                               "fp64",
                               "int8_storage",
                               "int8_arithmetic",
                               "integer_dot_product",
                               "atomic64",
                               "cooperative_matrix",
                               "subgroups"};

core::Result<SimulateClamps> parse_clamps(const core::Json& j, const std::string& source) {
  auto bad = [&](const std::string& what) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "simulate file " + source + ": " + what);
  };
  if (!j.is_object()) return bad("expected a JSON object");
  SimulateClamps clamps;
  for (const char* key : {"name", "description"}) {
    if (j.contains(key) && !j[key].is_string())
      return bad(std::string("'") + key + "' must be a string");
  }
  clamps.name = j.value("name", source);
  clamps.description = j.value("description", "");
  for (const auto& [key, value] : j.items()) {
    if (key == "name" || key == "description") continue;
    if (is_byte_key(key)) {
      // Other processes may hold nothing; every other figure is a size.
      const bool zero_ok = key == "other_processes_mem_size";
      if (!value.is_number_unsigned() || (value.get<uint64_t>() == 0 && !zero_ok)) {
        return bad("'" + key + "' must be a " + (zero_ok ? "" : "positive ") + "integer of bytes");
      }
      *byte_field(clamps, key) = value.get<uint64_t>();
    } else if (key == "shared_memory") {
      if (!value.is_boolean()) return bad("'shared_memory' must be true or false");
      clamps.shared_memory = value.get<bool>();
    } else if (key == "memory_bound") {
      const auto name = value.is_string() ? value.get<std::string>() : std::string();
      if (std::find(std::begin(kMemoryBounds), std::end(kMemoryBounds), name) ==
          std::end(kMemoryBounds)) {
        return bad("'memory_bound' must be one of VRAM, GTT, ttm.pages_limit, host memory");
      }
      clamps.memory_bound = name;
    } else if (key == "features_off") {
      if (!value.is_array()) return bad("'features_off' must be a list of feature names");
      for (const auto& f : value) {
        auto name = f.is_string() ? f.get<std::string>() : std::string();
        if (std::find(std::begin(kFeatureNames), std::end(kFeatureNames), name) ==
            std::end(kFeatureNames)) {
          return bad("unknown feature '" + name + "' in 'features_off'");
        }
        clamps.features_off.push_back(name);
      }
    } else {
      return bad("unknown key '" + key + "'");
    }
  }
  if (clamps.shared_memory && !clamps.global_mem_size) {
    return bad("'shared_memory' needs 'global_mem_size', what the GPU side may hold");
  }
  if (!clamps.shared_memory && clamps.host_mem_size) {
    return bad("'host_mem_size' is the pool of a shared-memory device: set 'shared_memory'");
  }
  if (!clamps.shared_memory && !clamps.memory_bound.empty() && clamps.memory_bound != "VRAM") {
    return bad("'memory_bound' " + clamps.memory_bound + " bounds a shared-memory device: set " +
               "'shared_memory'");
  }
  if (clamps.shared_memory && clamps.memory_bound == "VRAM") {
    return bad(
        "a shared-memory device's GPU side is bounded by GTT, ttm.pages_limit or host "
        "memory, not VRAM");
  }
  if (clamps.memory_bound.empty())
    clamps.memory_bound = clamps.shared_memory ? "host memory" : "VRAM";
  if (clamps.shared_memory && !clamps.host_mem_size) clamps.host_mem_size = clamps.global_mem_size;
  return clamps;
}

}  // namespace

core::Json SimulateClamps::to_json() const {
  core::Json j{{"name", name}, {"description", description}, {"features_off", features_off}};
  if (local_mem_size) j["local_mem_size"] = *local_mem_size;
  if (global_mem_size) j["global_mem_size"] = *global_mem_size;
  if (max_mem_alloc_size) j["max_mem_alloc_size"] = *max_mem_alloc_size;
  if (shared_memory) j["shared_memory"] = true;
  if (host_mem_size) j["host_mem_size"] = *host_mem_size;
  if (shared_memory) j["memory_bound"] = memory_bound;
  if (driver_free_mem_size) j["driver_free_mem_size"] = *driver_free_mem_size;
  if (other_processes_mem_size) j["other_processes_mem_size"] = *other_processes_mem_size;
  return j;
}

std::vector<std::string> simulate_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

core::Result<SimulateClamps> load_simulate(const std::string& file_or_preset) {
  for (const auto& p : kPresets) {
    if (file_or_preset == p.name) {
      return parse_simulate(std::string(p.text), p.name);
    }
  }
  auto text = core::read_text_file(file_or_preset);
  if (!text) {
    std::string presets;
    for (const auto& n : simulate_preset_names()) presets += (presets.empty() ? "" : ", ") + n;
    auto error = text.error();
    error.message += " (--simulate takes a file or a preset: " + presets + ")";
    return error;
  }
  return parse_simulate(*text, file_or_preset);
}

core::Result<SimulateClamps> parse_simulate(const std::string& text, const std::string& source) {
  auto json = core::parse_json(text, source);
  if (!json) return json.error();
  return parse_clamps(*json, source);
}

core::DeviceInfo apply_clamps(const core::DeviceInfo& info, const SimulateClamps& clamps) {
  core::DeviceInfo out = info;
  if (clamps.local_mem_size)
    out.local_mem_size = std::min(out.local_mem_size, *clamps.local_mem_size);
  if (clamps.global_mem_size) {
    out.global_mem_size = std::min(out.global_mem_size, *clamps.global_mem_size);
  }
  if (clamps.max_mem_alloc_size) {
    out.max_mem_alloc_size = std::min(out.max_mem_alloc_size, *clamps.max_mem_alloc_size);
  }
  core::Json features = out.features;
  for (const auto& f : clamps.features_off) features[f] = false;
  out.features = features.get<core::Features>();
  return out;
}

uint64_t clamp_local_memory(uint64_t verified, const SimulateClamps& clamps) {
  return clamps.local_mem_size ? std::min(verified, *clamps.local_mem_size) : verified;
}

uint64_t clamp_memory_budget(uint64_t budget, const SimulateClamps& clamps) {
  uint64_t out = budget;
  if (clamps.global_mem_size) out = std::min(out, *clamps.global_mem_size);
  return out;
}

bool feature_disabled(const SimulateClamps& clamps, const std::string& feature) {
  return std::find(clamps.features_off.begin(), clamps.features_off.end(), feature) !=
         clamps.features_off.end();
}

}  // namespace gauntlet::harness
