#include "engine/reference/layer_ops.h"

#include <algorithm>
#include <cmath>

#include "engine/model/rope.h"

namespace gauntlet::engine::reference {

void embed_token(const model::ModelShape& shape, const model::TensorView& token_embd, int32_t token,
                 float* x) {
  model::dequantize_row(token_embd.type, token_embd.row(static_cast<uint64_t>(token)), x,
                        shape.n_embd);
  const float scale = shape.embedding_multiplier();
  if (scale == 1.0f) return;
  for (uint32_t i = 0; i < shape.n_embd; ++i) x[i] *= scale;
}

void rmsnorm(float* out, const float* x, const float* weight, uint32_t n, float eps) {
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  const float scale = static_cast<float>(1.0 / std::sqrt(sum / n + eps));
  if (weight == nullptr) {  // ggml_rms_norm without a weight (gemma4's V)
    for (uint32_t i = 0; i < n; ++i) out[i] = x[i] * scale;
    return;
  }
  for (uint32_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

void rmsnorm_heads(float* vec, uint32_t n_heads, uint32_t head_dim, const float* weight,
                   float eps) {
  for (uint32_t h = 0; h < n_heads; ++h) {
    float* head = vec + static_cast<uint64_t>(h) * head_dim;
    rmsnorm(head, head, weight, head_dim, eps);
  }
}

void add_bias(float* x, const float* bias, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) x[i] += bias[i];
}

void rope_heads(float* vec, uint32_t n_heads, uint32_t head_dim, uint32_t rope_dims,
                model::RopeStyle style, std::span<const float> table) {
  for (uint32_t i = 0; i < rope_dims / 2; ++i) {
    const float c = table[2 * i], s = table[2 * i + 1];
    const auto [first, second] = model::rope_pair(style, i, rope_dims);
    for (uint32_t h = 0; h < n_heads; ++h) {
      float* p = vec + static_cast<uint64_t>(h) * head_dim;
      const float a = p[first], b = p[second];
      p[first] = a * c - b * s;
      p[second] = a * s + b * c;
    }
  }
}

float softcap(float x, float cap) { return cap * std::tanh(x / cap); }

float gelu(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608f, kCoefA = 0.044715f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + kCoefA * x * x)));
}

void gated_activation(model::Activation act, float* gate, const float* up, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = (act == model::Activation::gelu ? gelu(g) : g / (1.0f + std::exp(-g))) * up[i];
  }
}

void activation(model::Activation act, float* x, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    const float relu = std::max(x[i], 0.0f);
    x[i] = act == model::Activation::relu_sqr ? relu * relu : silu(x[i]);
  }
}

void swiglu_oai(float* gate, const float* up, uint32_t n, float alpha, float limit) {
  for (uint32_t i = 0; i < n; ++i) {
    const float x = std::min(gate[i], limit);
    const float y = std::clamp(up[i], -limit, limit);
    gate[i] = x / (1.0f + std::exp(alpha * (-x))) * (y + 1.0f);
  }
}

}  // namespace gauntlet::engine::reference
