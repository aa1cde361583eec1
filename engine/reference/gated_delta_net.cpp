#include "engine/reference/gated_delta_net.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/reference/layer_ops.h"

namespace gauntlet::engine::reference {

float conv_window(float* state, const float* taps, uint32_t width, float x) {
  const uint32_t kept = width - 1;
  // ggml_compute_forward_ssm_conv_f32: a float sum over the window, oldest first.
  float sum = 0.0f;
  for (uint32_t i = 0; i < kept; ++i) sum += state[i] * taps[i];
  sum += x * taps[kept];
  for (uint32_t i = 0; i + 1 < kept; ++i) state[i] = state[i + 1];
  if (kept > 0) state[kept - 1] = x;
  return sum;
}

void conv_step(const float* x, float* state, const float* kernel, uint32_t channels, uint32_t width,
               float* out) {
  for (uint32_t c = 0; c < channels; ++c) {
    const float sum =
        conv_window(state + uint64_t{c} * (width - 1), kernel + uint64_t{c} * width, width, x[c]);
    out[c] = silu(sum);
  }
}

void l2_normalize(float* v, uint32_t n, float eps) {
  // ggml_rms_norm(x, eps / n): sum in double, scale 1 / sqrtf(mean + eps / n); then ggml_scale.
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) sum += static_cast<double>(v[i] * v[i]);
  const float nf = static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(static_cast<float>(sum / n) + eps / nf);
  const float tail = 1.0f / std::sqrt(nf);
  for (uint32_t i = 0; i < n; ++i) v[i] = v[i] * scale * tail;
}

float softplus(float x) { return x > 20.0f ? x : std::log(1.0f + std::exp(x)); }

void delta_rule_step(float* s, const float* q, const float* k, const float* v, float g, float beta,
                     uint32_t n, float* out) {
  const float decay = std::exp(g);
  for (uint64_t i = 0; i < uint64_t{n} * n; ++i) s[i] *= decay;
  const float scale = 1.0f / std::sqrt(static_cast<float>(n));
  for (uint32_t j = 0; j < n; ++j) {
    float* row = s + uint64_t{j} * n;  // column j of S
    float sk = 0.0f;
    for (uint32_t i = 0; i < n; ++i) sk += row[i] * k[i];
    const float delta = (v[j] - sk) * beta;
    float sq = 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
      row[i] += k[i] * delta;
      sq += row[i] * q[i];
    }
    out[j] = sq * scale;
  }
}

void gated_rmsnorm(float* o, const float* z, const float* weight, uint32_t n, float eps) {
  rmsnorm(o, o, weight, n, eps);
  for (uint32_t i = 0; i < n; ++i) o[i] *= silu(z[i]);
}

void gated_delta_net_token(const model::ModelShape& s, const model::LayerWeights& L,
                           const float* qkv, const float* z, const float* ba, float* conv_state,
                           float* delta_state, bool first, float* conv_out, float* o) {
  if (first) {
    std::fill(conv_state, conv_state + s.ssm_conv_floats(), 0.0f);
    std::fill(delta_state, delta_state + s.ssm_delta_floats(), 0.0f);
  }
  const uint32_t channels = s.ssm_channels(), n = s.ssm_state, heads = s.ssm_heads;
  conv_step(qkv, conv_state, floats(L.ssm_conv1d), channels, s.ssm_conv, conv_out);
  // The conv's channels are Q (key heads x n), K (the same), then V (value heads x n).
  float* q = conv_out;
  float* k = conv_out + uint64_t{s.ssm_groups} * n;
  const float* v = k + uint64_t{s.ssm_groups} * n;
  for (uint32_t h = 0; h < s.ssm_groups; ++h) {
    l2_normalize(q + uint64_t{h} * n, n, s.rms_eps);
    l2_normalize(k + uint64_t{h} * n, n, s.rms_eps);
  }
  const float* dt_bias = floats(L.ssm_dt_bias);
  const float* a = floats(L.ssm_a);
  for (uint32_t h = 0; h < heads; ++h) {
    const float beta = sigmoid(ba[h]);
    const float g = softplus(ba[heads + h] + dt_bias[h]) * a[h];
    // Value head h reads key head h % key heads: ggml_repeat_4d tiles the key heads, and the
    // fused op indexes them iv1 % neq1 (ggml_compute_forward_gated_delta_net_one_chunk).
    const uint64_t kh = h % s.ssm_groups;
    delta_rule_step(delta_state + uint64_t{h} * n * n, q + kh * n, k + kh * n, v + uint64_t{h} * n,
                    g, beta, n, o + uint64_t{h} * n);
    gated_rmsnorm(o + uint64_t{h} * n, z + uint64_t{h} * n, floats(L.ssm_norm), n, s.rms_eps);
  }
}

}  // namespace gauntlet::engine::reference
