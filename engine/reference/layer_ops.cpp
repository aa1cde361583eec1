#include "engine/reference/layer_ops.h"

#include <cmath>

#include "engine/model/rope.h"

namespace gauntlet::engine::reference {

void rmsnorm(float* out, const float* x, const float* weight, uint32_t n, float eps) {
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  const float scale = static_cast<float>(1.0 / std::sqrt(sum / n + eps));
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

}  // namespace gauntlet::engine::reference
