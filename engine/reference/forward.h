#pragma once
// One decode step on the CPU: the reference every device is compared with. Semantics as
// llama.cpp's graph for the model's architecture applies them (model/architecture.h): RMSNorm,
// Q/K/V projections (fused or not, with biases where the architecture has them), per-head Q/K
// norm, rotary embedding (model/rope.h), grouped-query attention with scale 1/sqrt(head_dim) and
// causal softmax, SwiGLU feed-forward, final norm, logits. Each output row is computed by one
// thread in a fixed order, so results do not depend on the number of threads.
#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "engine/model/loaded_model.h"
#include "engine/planner/planner.h"
#include "engine/reference/thread_pool.h"

namespace gauntlet::engine::reference {

using planner::KvPrecision;

// K and V caches, each laid out [layer][position][n_embd_kv] in `precision`.
struct KvCacheView {
  std::byte* k = nullptr;
  std::byte* v = nullptr;
  KvPrecision precision = KvPrecision::f32;
  uint32_t context = 0;
};

// Runs `token` at position `pos` (positions before it must already be in the cache) and
// leaves the logits at activations + activation_layout(shape, context).logits.
core::Status forward_token(const model::ModelShape& shape, const model::ModelWeights& weights,
                           const KvCacheView& kv, float* activations, int32_t token, uint32_t pos,
                           ThreadPool& pool);

}  // namespace gauntlet::engine::reference
