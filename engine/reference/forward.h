#pragma once
// One pass of the model on the CPU over a batch of tokens: the reference every device is compared
// with. Semantics as
// llama.cpp's graph for the model's architecture applies them (model/architecture.h): RMSNorm,
// Q/K/V projections (fused or not, with biases where the architecture has them), per-head Q/K
// norm, rotary embedding (model/rope.h), grouped-query attention with scale 1/sqrt(head_dim) and
// causal softmax, SwiGLU feed-forward, final norm, logits. Each output row is computed by one
// thread in a fixed order, so results do not depend on the number of threads.
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/status.h"
#include "engine/batch.h"
#include "engine/model/loaded_model.h"
#include "engine/planner/planner.h"
#include "engine/reference/thread_pool.h"

namespace gauntlet::engine::reference {

using planner::KvPrecision;

// K and V caches, each laid out [sequence][layer][slot][n_embd_kv] in `precision`
// (planner::kv_layout with the pass size `micro_batch`).
struct KvCacheView {
  std::byte* k = nullptr;
  std::byte* v = nullptr;
  KvPrecision precision = KvPrecision::f32;
  uint32_t context = 0;
  uint32_t sequences = 1;
  uint32_t micro_batch = 1;  // the most tokens a pass holds
  // A hybrid's recurrent state (planner::state_layout over the same range), f32; null without.
  float* state = nullptr;
  // -fa: attention as llama.cpp's flash attention rounds it where that differs from the plain
  // attention (attend_pass.h, flash_one_chunk). A quantized V implies it, as in llama.cpp.
  bool flash_attention = false;
};

using PassToken = engine::PassToken;

// Runs the tokens as one pass: every matrix is read once for all of them (each output row is
// still one dot product per token, in the same order as a pass of one token, so the results do
// not depend on how tokens are grouped into passes). Token t's activations are at
// activations + t * activation_layout(shape, context).total, its logits at .logits of that.
// `range` runs a share of the layers (a placement's): without its embedding, each token's residual
// stream is read from .x of its block, and left there after its last layer; the cache then holds
// only the range's layers (planner::kv_layout with the range).
core::Status forward_pass(const model::ModelShape& shape, const model::ModelWeights& weights,
                          const KvCacheView& kv, float* activations,
                          std::span<const PassToken> tokens, ThreadPool& pool,
                          const planner::LayerRange& range = planner::LayerRange::whole());
// A pass of one token with its logits.
core::Status forward_token(const model::ModelShape& shape, const model::ModelWeights& weights,
                           const KvCacheView& kv, float* activations, int32_t token, uint32_t pos,
                           ThreadPool& pool);

}  // namespace gauntlet::engine::reference
