#pragma once
// The host reference's mixture-of-experts feed-forward, as llama.cpp's build_moe_ffn
// (src/llama-graph.cpp) computes it for the architectures the engine runs: router logits
// (ffn_gate_inp . x), softmax, the top n_expert_used probabilities (ggml_argsort_top_k, ties to
// the lower expert id), their weights (divided by their sum where the architecture normalises),
// each picked expert's SwiGLU feed-forward, and the weighted outputs added in the order picked;
// qwen2moe adds its shared expert times sigmoid(ffn_gate_inp_shexp . x).
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/model/loaded_model.h"
#include "engine/planner/planner.h"
#include "engine/reference/thread_pool.h"

namespace gauntlet::engine::reference {

// The `k` largest of `probs`, largest first, a tie going to the lower index.
void top_k(std::span<const float> probs, uint32_t k, uint32_t* ids);

// One token's routing: `router` holds the n_expert logits and is left holding the probabilities
// (ggml_soft_max); `selected` receives the picked ids (as floats) then their weights.
// `selection_bias` (n_expert values, or nullptr): lfm2moe's exp_probs_b, added to the
// probabilities only to pick the experts.
void route_token(const model::ModelShape& shape, float* router, float* selected,
                 const float* selection_bias = nullptr);

// The feed-forward of layer `layer` for every token of a pass: input at .xb of each token's block
// (`layout`, blocks `layout.total` floats apart), output left at .xb.
void experts_ffn(const model::ModelShape& shape, const model::LayerWeights& layer, float* act,
                 size_t n_tokens, const planner::ActivationLayout& layout, ThreadPool& pool);

}  // namespace gauntlet::engine::reference
