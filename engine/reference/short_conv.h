#pragma once
// lfm2's gated short convolution on one token of one sequence, as llama.cpp computes it
// (src/models/lfm2.cpp build_shortconv_block, ggml-cpu's ssm_conv in ggml/src/ggml-cpu/ops.cpp).
#include <cstdint>

#include "engine/model/loaded_model.h"

namespace gauntlet::engine::reference {

// From in_proj's output `bcx` (B, C and x, n_embd each): bx = B * x goes through the causal conv
// over the sequence's `state` (the last l_cache - 1 values of bx per channel, oldest first), and
// y = C * the conv's output (n_embd) is what out_proj takes. A token at position 0 starts from a
// zero state.
void short_conv_token(const model::ModelShape& shape, const model::LayerWeights& layer,
                      const float* bcx, float* state, bool first, float* y);

}  // namespace gauntlet::engine::reference
