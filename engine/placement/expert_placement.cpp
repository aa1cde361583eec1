#include "engine/placement/expert_placement.h"

#include <algorithm>
#include <regex>
#include <vector>

namespace gauntlet::engine::placement {

namespace {

uint32_t device_index(Placement& p, const std::string& name) {
  auto it = std::find(p.devices.begin(), p.devices.end(), name);
  if (it != p.devices.end()) return static_cast<uint32_t>(it - p.devices.begin());
  p.devices.push_back(name);
  return static_cast<uint32_t>(p.devices.size() - 1);
}

void move_experts(Placement& p, uint32_t layer, uint32_t device) {
  if (p.expert_device.empty()) {
    p.expert_device.assign(p.slot_device.begin(), p.slot_device.end() - 1);
  }
  p.expert_device[layer] = device;
}

}  // namespace

core::Status experts_on_host(Placement& p, const model::ModelShape& shape, uint32_t layers) {
  if (!shape.moe())
    return core::invalid_argument("--cpu-moe / --n-cpu-moe: the model has no experts");
  const uint32_t n = std::min(layers, shape.n_layer);
  if (n == 0) return core::Status::ok();
  const uint32_t host = device_index(p, kHost);
  for (uint32_t l = 0; l < n; ++l) move_experts(p, l, host);
  p.label += n == shape.n_layer ? " cpu-moe" : " n-cpu-moe=" + std::to_string(n);
  return core::Status::ok();
}

core::Status override_tensors(Placement& p, const model::ModelShape& shape,
                              const std::string& rule) {
  const auto eq = rule.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == rule.size()) {
    return core::invalid_argument("--override-tensor '" + rule + "' is not REGEX=DEVICE");
  }
  std::regex pattern;
  try {
    pattern = std::regex(rule.substr(0, eq));
  } catch (const std::regex_error& e) {
    return core::invalid_argument("--override-tensor '" + rule + "': not a regular expression (" +
                                  e.what() + ")");
  }
  std::string device = rule.substr(eq + 1);
  if (device == "CPU" || device == "cpu") device = kHost;
  if (device != kHost && std::find(p.devices.begin(), p.devices.end(), device) == p.devices.end()) {
    return core::invalid_argument(
        "--override-tensor '" + rule + "': " + device +
        " is not a device of the placement (CPU or host, or one of --device)");
  }
  std::vector<uint32_t> found(shape.n_layer, 0);
  bool any = false;
  for (const auto& t : model::model_tensors(shape, model::FileType::f32)) {
    if (!std::regex_search(t.name, pattern)) continue;
    if (!planner::is_expert_stack(t.name)) {
      return core::invalid_argument(
          "--override-tensor '" + rule + "' finds " + t.name +
          ", which is not an expert stack (gauntlet moves ffn_*_exps tensors only)");
    }
    if (t.name.ends_with(".weight")) ++found[std::stoul(t.name.substr(4))];
    any = true;
  }
  if (!any)
    return core::invalid_argument("--override-tensor '" + rule + "' finds no tensor of the model");
  const uint32_t target = device_index(p, device);
  const uint32_t stacks = shape.fused_expert_gate_up ? 2 : 3;
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    if (found[l] == 0) continue;
    if (found[l] != stacks) {
      return core::invalid_argument("--override-tensor '" + rule + "' finds " +
                                    std::to_string(found[l]) + " of layer " + std::to_string(l) +
                                    "'s " + std::to_string(stacks) +
                                    " expert stacks; a layer's experts move together");
    }
    move_experts(p, l, target);
  }
  p.label += " ot=" + rule;
  return core::Status::ok();
}

}  // namespace gauntlet::engine::placement
