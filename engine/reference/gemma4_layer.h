#pragma once
// gemma4's two additions to gemma's layer on the host reference, as src/models/gemma4.cpp builds
// them: the per-layer embedding (E2B/E4B) and the 26B-A4B's experts beside the dense feed-forward.
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/model/loaded_model.h"
#include "engine/planner/planner.h"
#include "engine/reference/forward.h"
#include "engine/reference/thread_pool.h"

namespace gauntlet::engine::reference {

// Layer l's per-layer embedding for every token of a pass, added to the residual at .x:
// in_l = (rmsnorm(per_layer_model_proj_l . (embedding * sqrt(n_embd)) / sqrt(n_embd)) +
// per_layer_token_embd[token]_l * sqrt(n_embd_per_layer)) / sqrt(2) (build_inp_per_layer,
// project_per_layer_inputs), then x += post_norm(proj . (gelu(inp_gate . x) * in_l)). Each layer
// computes its own slice from the token, so that a layer range needs nothing from the embedding.
void per_layer_embedding(const model::ModelShape& shape, const model::ModelWeights& weights,
                         uint32_t layer, float* act, std::span<const PassToken> tokens,
                         const planner::ActivationLayout& layout, ThreadPool& pool);

// The 26B-A4B's feed-forward for every token of a pass, from the residual at .x after attention
// to the sum of its branches at .xb (post_ffw_norm and the residual add follow, as for every
// layer): post_ffw_norm_1(dense GELU FFN(ffn_norm(x))) + post_ffw_norm_2(experts(
// pre_ffw_norm_2(x))), the router reading rmsnorm(x) / sqrt(n_embd) * ffn_gate_inp.scale.
void dense_beside_experts_ffn(const model::ModelShape& shape, const model::LayerWeights& layer,
                              float* act, size_t n_tokens, const planner::ActivationLayout& layout,
                              ThreadPool& pool);

}  // namespace gauntlet::engine::reference
