#pragma once
// The element-wise pieces of the host reference's layer, as llama.cpp's graphs apply them
// (ggml_rms_norm then a multiply by the weight, ggml_add of a bias, ggml_rope_ext), kept apart so
// that tests can check them against hand-worked values.
#include <cstdint>
#include <span>

#include "engine/model/architecture.h"

namespace gauntlet::engine::reference {

// out[i] = x[i] / sqrt(mean(x^2) + eps) * weight[i], i < n (out may be x).
void rmsnorm(float* out, const float* x, const float* weight, uint32_t n, float eps);
// Each of n_heads head vectors normalized on its own, with one weight shared by the heads
// (qwen3's attn_q_norm / attn_k_norm).
void rmsnorm_heads(float* vec, uint32_t n_heads, uint32_t head_dim, const float* weight, float eps);
void add_bias(float* x, const float* bias, uint64_t n);
// Turns every head's pairs (model::rope_pair) by the angles whose cos/sin `table` holds
// (model::rope_table).
void rope_heads(float* vec, uint32_t n_heads, uint32_t head_dim, uint32_t rope_dims,
                model::RopeStyle style, std::span<const float> table);

}  // namespace gauntlet::engine::reference
