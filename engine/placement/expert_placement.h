#pragma once
// Where a mixture's routed experts go: llama.cpp's --cpu-moe, --n-cpu-moe N and -ot REGEX=DEVICE
// (common/arg.cpp: --n-cpu-moe N is -ot blk\.i\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU for each
// i < N, --cpu-moe the same for every layer). Attention, the router, the shared expert and the KV
// cache stay on the layer's device; the expert stacks move.
#include <cstdint>
#include <string>

#include "core/status.h"
#include "engine/model/shape.h"
#include "engine/placement/placement.h"

namespace gauntlet::engine::placement {

// The experts of the first `layers` layers (all: --cpu-moe) on the host, which joins the
// placement's devices if it is not one. Refuses a model without experts.
core::Status experts_on_host(Placement& placement, const model::ModelShape& shape, uint32_t layers);

// -ot REGEX=DEVICE: the expert stacks whose names the regular expression finds (std::regex_search,
// as llama.cpp) go to DEVICE: "CPU" or "host" for the host, or a device of the placement. Refused,
// naming the rule: a rule without '=', a bad expression, one that finds no tensor, or finds a
// tensor that is not an expert stack (gauntlet moves expert stacks only), or only some of a
// layer's three stacks, or a device the placement does not have.
core::Status override_tensors(Placement& placement, const model::ModelShape& shape,
                              const std::string& rule);

}  // namespace gauntlet::engine::placement
