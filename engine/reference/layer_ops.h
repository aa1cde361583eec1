#pragma once
// The element-wise pieces of the host reference's layer, as llama.cpp's graphs apply them
// (ggml_rms_norm then a multiply by the weight, ggml_add of a bias, ggml_rope_ext), kept apart so
// that tests can check them against hand-worked values.
#include <cmath>
#include <cstdint>
#include <span>

#include "engine/model/loaded_model.h"

namespace gauntlet::engine::reference {

// An f32 tensor's data (norms, biases: every file keeps them in f32).
inline const float* floats(const model::TensorView& t) {
  return reinterpret_cast<const float*>(t.data);
}
// ggml_silu and ggml_sigmoid.
inline float silu(float x) { return x / (1.0f + std::exp(-x)); }
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// x = the token's row of the embedding, times sqrt(n_embd) where the architecture scales it
// (gemma: inpL = ggml_scale(inpL, sqrtf(n_embd))).
void embed_token(const model::ModelShape& shape, const model::TensorView& token_embd, int32_t token,
                 float* x);
// out[i] = x[i] / sqrt(mean(x^2) + eps) * weight[i], i < n (out may be x).
// `weight` may be null: the norm alone (ggml_rms_norm).
void rmsnorm(float* out, const float* x, const float* weight, uint32_t n, float eps);
// Each of n_heads head vectors normalized on its own, with one weight shared by the heads
// (qwen3's attn_q_norm / attn_k_norm).
void rmsnorm_heads(float* vec, uint32_t n_heads, uint32_t head_dim, const float* weight, float eps);
void add_bias(float* x, const float* bias, uint64_t n);
// Turns every head's pairs (model::rope_pair) by the angles whose cos/sin `table` holds
// (model::rope_table).
void rope_heads(float* vec, uint32_t n_heads, uint32_t head_dim, uint32_t rope_dims,
                model::RopeStyle style, std::span<const float> table);
// cap * tanh(x / cap): gemma's attention-logit and final-logit soft-caps (ggml_softcap).
float softcap(float x, float cap);
// GELU's tanh approximation, as ggml_gelu: 0.5 x (1 + tanh(sqrt(2 / pi) x (1 + 0.044715 x^2))).
float gelu(float x);
// gate[i] = act(gate[i]) * up[i], i < n: SwiGLU (silu) or GeGLU (gelu).
void gated_activation(model::Activation act, float* gate, const float* up, uint32_t n);
// An ungated feed-forward's activation in place: LLM_FFN_RELU_SQR (ggml_relu then ggml_sqr) for
// Activation::relu_sqr, SiLU otherwise.
void activation(model::Activation act, float* x, uint32_t n);
// gpt-oss's clamped SwiGLU, as ggml-cpu's ggml_compute_forward_swiglu_oai_f32: x = min(gate,
// limit), y = clamp(up, -limit, limit), gate = x / (1 + exp(-alpha x)) * (y + 1).
void swiglu_oai(float* gate, const float* up, uint32_t n, float alpha, float limit);

}  // namespace gauntlet::engine::reference
