#pragma once
// What llama.cpp allocates for a placement, per device: the buffers a deployment of the model
// really holds, so that a fit answer counts them (gauntlet's own decoder allocates differently;
// placement_plan.h counts that). Each rule names where in llama.cpp it comes from (the llama.cpp
// that node-llama-cpp 3.22.1 ships, tag de3ff815); the figures were checked against what that
// llama.cpp printed for files gauntlet wrote (tests/engine/deployment_test.cpp).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor_type.h"
#include "engine/placement/placement.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::placement {

// ggml-alloc aligns every tensor of a graph and keeps its own chunk bookkeeping: a few hundred
// KiB over the tensors' peak on the graphs measured.
inline constexpr uint64_t kAllocatorSlack = 256 << 10;

struct DeploymentOptions {
  uint32_t context = 4096;
  uint32_t micro_batch = 512;  // llama.cpp's -ub, 512 by default
  uint32_t sequences = 1;      // llama.cpp's n_seq_max (-np)
  // The KV cache's types (-ctk, -ctv; f16 by default, as llama.cpp's): kv_cache_types().
  core::TensorType cache_type_k = core::TensorType::f16;
  core::TensorType cache_type_v = core::TensorType::f16;
  // The largest tensor the devices' kernels address (Vulkan's maxStorageBufferRange; 0: no
  // limit). An output layer whose 512-token logits pass it runs on the host: ggml's supports_op
  // refuses it, so its weight stays there and the logits are computed there.
  uint64_t device_tensor_limit = 0;
  // -fa on: attention without the n_kv x tokens score matrix per head, its mask in f16. A
  // quantized V cache needs it (llama_init_from_model refuses V quantized without it).
  bool flash_attention = false;
};

// The cache types llama.cpp's -ctk/-ctv accept (common/arg.cpp kv_cache_types):
// "f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl".
std::span<const core::TensorType> kv_cache_types();
std::string known_kv_cache_types();
std::optional<core::TensorType> parse_kv_cache_type(std::string_view name);

struct DeploymentBytes {
  std::string device;
  uint64_t weights = 0;   // "model buffer size" (the host's: its mapped tensors)
  uint64_t kv_cache = 0;  // "KV buffer size"
  uint64_t state = 0;     // a hybrid's recurrent state, "RS buffer size"
  uint64_t compute = 0;   // "compute buffer size" (a GPU's, or the host's inputs and logits)
  uint64_t output = 0;    // "output buffer size" (host memory)
  uint64_t total() const { return weights + kv_cache + state + compute + output; }
};

// KV cells a layer keeps (src/llama-kv-cache.cpp, llama-kv-cache-iswa.cpp): the context padded to
// 256 per sequence; a sliding layer min(that, window + micro-batch) padded to 256; a hybrid's
// recurrent layer none (llama_memory_hybrid's filter_attn).
uint32_t kv_cells(const planner::ModelShape& shape, uint32_t layer, const DeploymentOptions& o);

// One entry per device of the placement, in its order; `tensors` are the file's.
std::vector<DeploymentBytes> deployment_bytes(const planner::ModelShape& shape,
                                              std::span<const planner::TensorDesc> tensors,
                                              const Placement& placement,
                                              const DeploymentOptions& options);

// An MTP head in use (llama.cpp's --spec-type draft-mtp; common/speculative.cpp
// common_speculative_init_result): the model loads its MTP blocks' weights (load_mtp) and a second
// context against it (LLAMA_CONTEXT_TYPE_MTP) of the target's context, slots and micro-batch runs
// them as one attention block: its own KV cache, compute buffer and output. Entry 0: the device
// (the blocks' weights, KV cache and compute buffer), entry 1: the host (inputs and output).
// `tensors` are the file's; a shape without MTP blocks plans nothing.
std::vector<DeploymentBytes> mtp_deployment_bytes(const planner::ModelShape& shape,
                                                  std::span<const planner::TensorDesc> tensors,
                                                  const DeploymentOptions& options);

}  // namespace gauntlet::engine::placement
