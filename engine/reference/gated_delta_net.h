#pragma once
// The pieces of a gated DeltaNet layer (qwen35's recurrent layers) on one token of one sequence,
// as llama.cpp computes them (src/models/qwen35.cpp build_layer_attn_linear,
// src/models/delta-net-base.cpp, ggml-cpu's ssm_conv, rms_norm and gated_delta_net in
// ggml/src/ggml-cpu/ops.cpp), kept apart so that tests can check them against hand-worked values
// and the device kernels can be compared with them.
#include <cstdint>

#include "engine/model/loaded_model.h"

namespace gauntlet::engine::reference {

// The causal conv1d of `width` over each channel's last width - 1 inputs (`state`, channel c's at
// c * (width - 1), oldest first) and this token's `x`, then SiLU (ggml_ssm_conv then ggml_silu):
// out[c] = silu(sum_i window_c[i] * kernel[c * width + i]). The state then drops its oldest input
// and keeps x (build_conv_state's copy of the last width - 1 columns).
void conv_step(const float* x, float* state, const float* kernel, uint32_t channels, uint32_t width,
               float* out);
// One channel's causal conv without an activation: the float sum of its window (`state`'s
// width - 1 inputs, oldest first, then x) times its taps, in ggml_compute_forward_ssm_conv_f32's
// order; the state then drops its oldest input and keeps x.
float conv_window(float* state, const float* taps, uint32_t width, float x);
// v / sqrt(sum(v^2) + eps), as build_gdn_l2_norm builds it from ggml_rms_norm(v, eps / n) scaled
// by 1 / sqrt(n).
void l2_normalize(float* v, uint32_t n, float eps);
// ggml's softplus: log(1 + e^x), x above 20.
float softplus(float x);
// One delta-rule step of one value head (ggml_gated_delta_net with a scalar gate): the state
// `s` (n x n, s[j * n + i] = S[i][j]) decays by exp(g), then S += k (beta (v - S^T k))^T, and
// out[j] = (S^T q)[j] / sqrt(n).
void delta_rule_step(float* s, const float* q, const float* k, const float* v, float g, float beta,
                     uint32_t n, float* out);
// o = rmsnorm(o) * weight * silu(z) over one head of n (qwen35's build_norm_gated).
void gated_rmsnorm(float* o, const float* z, const float* weight, uint32_t n, float eps);

// The recurrent part of layer l for one token, after its projections: `qkv` (ssm_channels()),
// `ba` (beta's then alpha's projection per value head); writes `conv_out` (ssm_channels()) and the
// gated norm's output `o` (ssm_inner) from `z`, updating the sequence's `conv_state` and
// `delta_state` (planner::StateLayout). A token at position 0 starts from a zero state.
void gated_delta_net_token(const model::ModelShape& shape, const model::LayerWeights& layer,
                           const float* qkv, const float* z, const float* ba, float* conv_state,
                           float* delta_state, bool first, float* conv_out, float* o);

}  // namespace gauntlet::engine::reference
