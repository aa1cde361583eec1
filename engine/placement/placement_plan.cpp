#include "engine/placement/placement_plan.h"

#include <algorithm>
#include <cstdlib>

namespace gauntlet::engine::placement {

namespace {

uint32_t layer_of(const std::string& name) {
  return static_cast<uint32_t>(std::strtoul(name.c_str() + 4, nullptr, 10));
}

size_t host_of(const Placement& p) {
  return static_cast<size_t>(std::find(p.devices.begin(), p.devices.end(), kHost) -
                             p.devices.begin());
}

}  // namespace

std::vector<DeviceBytes> plan_placement(const planner::ModelShape& shape,
                                        const Placement& placement, const planner::PlanOptions& o) {
  std::vector<DeviceBytes> out(placement.devices.size());
  for (size_t d = 0; d < out.size(); ++d) out[d].device = placement.devices[d];
  std::vector<planner::TensorDesc> by_rule;
  std::span<const planner::TensorDesc> tensors = o.tensors;
  if (tensors.empty()) {
    by_rule = model::model_tensors(shape, o.format);
    tensors = by_rule;
  }
  const uint32_t context = o.context == 0 ? shape.context : o.context;
  const uint32_t pass = planner::pass_tokens(o.micro_batch, o.sequences);
  if (placement.whole()) {
    const auto plan = planner::plan_memory(shape, o);
    auto& only = out[placement.slot_device.front()];
    only.weights = plan.weights;
    only.kv_cache = plan.kv_cache;
    only.activations = plan.activations;
    return out;
  }
  auto shares = placement.shares();
  if (!shares) return out;
  for (const auto& share : *shares) {
    auto& d = out[share.device];
    d.weights = planner::weight_bytes(planner::tensors_in(share.layers, shape, tensors));
    d.kv_cache =
        planner::kv_cache_bytes(shape, context, o.sequences, o.kv, o.micro_batch, share.layers);
    d.activations = planner::activation_bytes(shape, context, pass);
    // Experts the host runs for this share: their stacks, and a pass of packed expert blocks.
    if (share.layers.experts_elsewhere.empty()) continue;
    auto& host = out[host_of(placement)];
    for (const auto& t : tensors) {
      const bool stack = planner::is_expert_stack(t.name);
      if (stack && !share.layers.holds_experts(layer_of(t.name)) &&
          share.layers.holds(layer_of(t.name))) {
        host.weights += t.bytes();
      }
    }
    host.activations = std::max(
        host.activations, planner::experts_layout(shape).total * sizeof(float) * uint64_t{pass});
  }
  // The host looks the tokens up and stages the hand-over, whether or not it holds layers.
  for (size_t d = 0; d < out.size(); ++d) {
    if (placement.devices[d] != kHost) continue;
    for (const auto& t : tensors) {
      if (t.name == "token_embd.weight") out[d].weights += t.bytes();
    }
    out[d].handover = uint64_t{pass} * shape.n_embd * sizeof(float);
  }
  return out;
}

}  // namespace gauntlet::engine::placement
