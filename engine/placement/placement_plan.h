#pragma once
// The planner's bytes for a placement, per device, as gauntlet's split decoder allocates them:
// each share's weights, the KV cache of its layers and its pass activations; the host also holds
// the token embedding (looked up there, as llama.cpp keeps its input layer on the CPU), the
// hand-over buffer of one pass's residual streams, and the expert stacks it runs for a device
// (with a pass of packed expert activations).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/placement/placement.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::placement {

struct DeviceBytes {
  std::string device;
  uint64_t weights = 0;
  uint64_t kv_cache = 0;
  uint64_t activations = 0;
  uint64_t handover = 0;  // one pass's residual streams (the host's staging of the hand-over)
  uint64_t total() const { return weights + kv_cache + activations + handover; }
};

// One entry per device of the placement, in its order (a device holding nothing has zeros).
// `options.tensors` names the file's tensors (or options.format the file type's).
std::vector<DeviceBytes> plan_placement(const planner::ModelShape& shape,
                                        const Placement& placement,
                                        const planner::PlanOptions& options);

}  // namespace gauntlet::engine::placement
