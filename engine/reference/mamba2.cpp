#include "engine/reference/mamba2.h"

#include <algorithm>
#include <cmath>

#include "engine/reference/gated_delta_net.h"
#include "engine/reference/layer_ops.h"
#include "engine/reference/scan_step.h"

namespace gauntlet::engine::reference {

float scan_step(float* s, const float* b, const float* c, float x, float dt, float a,
                uint32_t d_state) {
  // ggml_compute_forward_ssm_scan_f32's Mamba-2 branch: dA outside the state loop.
  return scan_row(s, b, c, std::exp(dt * a), x * dt, d_state);
}

void mamba2_token(const model::ModelShape& s, const model::LayerWeights& L, const float* zxbcdt,
                  float* conv_state, float* ssm_state, bool first, float* conv_out, float* y) {
  const uint32_t inner = s.ssm_inner, channels = s.ssm_channels(), width = s.ssm_conv;
  const uint32_t heads = s.ssm_heads, groups = s.ssm_groups, d_state = s.ssm_state;
  const uint32_t head_dim = inner / heads, heads_per_group = heads / groups;
  if (first) {
    std::fill(conv_state, conv_state + s.ssm_conv_floats(), 0.0f);
    std::fill(ssm_state, ssm_state + s.ssm_delta_floats(), 0.0f);
  }
  const float* z = zxbcdt;
  const float* xbc = zxbcdt + inner;
  const float* dt_raw = xbc + channels;
  const float* taps = floats(L.ssm_conv1d);
  const float* bias = L.ssm_conv_bias.data != nullptr ? floats(L.ssm_conv_bias) : nullptr;
  for (uint32_t ch = 0; ch < channels; ++ch) {
    const float sum = conv_window(conv_state + uint64_t{ch} * (width - 1),
                                  taps + uint64_t{ch} * width, width, xbc[ch]);
    conv_out[ch] = silu(bias != nullptr ? sum + bias[ch] : sum);
  }
  const float* x = conv_out;
  const float* b = conv_out + inner;
  const float* c = b + uint64_t{groups} * d_state;
  const float *dt_bias = floats(L.ssm_dt_bias), *a = floats(L.ssm_a), *d = floats(L.ssm_d);
  for (uint32_t h = 0; h < heads; ++h) {
    const float dt = softplus(dt_raw[h] + dt_bias[h]);
    const uint32_t g = h / heads_per_group;
    for (uint32_t i = 0; i < head_dim; ++i) {
      const uint32_t ch = h * head_dim + i;
      const float scanned = scan_step(ssm_state + uint64_t{ch} * d_state, b + g * d_state,
                                      c + g * d_state, x[ch], dt, a[h], d_state);
      y[ch] = silu(z[ch]) * (scanned + x[ch] * d[h]);
    }
  }
  // The grouped RMS norm: each group of inner / groups values normed with its own weights.
  const uint32_t group_width = inner / groups;
  const float* norm = floats(L.ssm_norm);
  for (uint32_t g = 0; g < groups; ++g) {
    float* row = y + uint64_t{g} * group_width;
    rmsnorm(row, row, norm + uint64_t{g} * group_width, group_width, s.rms_eps);
  }
}

}  // namespace gauntlet::engine::reference
