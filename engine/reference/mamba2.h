#pragma once
// A Mamba2 block (nemotron_h's recurrent layers) on one token of one sequence, as llama.cpp
// computes it (build_mamba2_layer in src/models/mamba-base.cpp; ggml-cpu's ssm_conv and
// ssm_scan in ggml/src/ggml-cpu/ops.cpp), its pieces apart so that tests can check them against
// hand-worked values.
#include <cstdint>

#include "engine/model/loaded_model.h"

namespace gauntlet::engine::reference {

// One selective-scan step of one head's channel (ggml_ssm_scan with a scalar A per head): the
// state row `s` (d_state values) becomes s * exp(dt A) + B x dt, and the result is s . C;
// `dt` is already softplus(dt + dt_bias).
float scan_step(float* s, const float* b, const float* c, float x, float dt, float a,
                uint32_t d_state);

// The block after its input projection `zxbcdt` (ssm_in's z, x, B, C and dt): the conv with bias
// and SiLU over x, B and C into `conv_out` (ssm_channels()), the scan over the sequence's
// `ssm_state` (d_state per channel of ssm_inner), y + D x gated by silu(z) and normed per group
// into `y` (ssm_inner), what ssm_out takes. A token at position 0 starts from zero states.
void mamba2_token(const model::ModelShape& shape, const model::LayerWeights& layer,
                  const float* zxbcdt, float* conv_state, float* ssm_state, bool first,
                  float* conv_out, float* y);

}  // namespace gauntlet::engine::reference
