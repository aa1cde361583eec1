// ggml-quants.c quantize_row_iq4_nl_impl (ntry 7, with or without quant_weights), transcribed in
// the order of its float operations so that the bytes are ggml's.
#include "core/types/iq4_fit.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/types/k_fit.h"
#include "core/types/nonlinear_values.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t kBlock = 32;
constexpr int kTries = 7;

// The least-squares fit sum(w q x)^2 / sum(w q^2) of x's codes at inverse scale id.
struct Sums {
  float qx;
  float q2;
};
Sums weighted_sums(const float* x, const float* w, float id, uint8_t* codes) {
  Sums s{0, 0};
  for (uint32_t j = 0; j < kBlock; ++j) {
    const uint8_t l = iq4_best_index(id * x[j]);
    if (codes) codes[j] = l;
    const float q = kIq4nlValues[l];
    s.qx += w[j] * q * x[j];
    s.q2 += w[j] * q * q;
  }
  return s;
}

// One block's scale: the fit from the code of the largest magnitude at -127, then 15 trial
// inverse scales (itry - 127) / max, the one with the largest sumqx^2 / sumq2 kept. 0 for a block
// whose largest magnitude is under GROUP_MAX_EPS. The weights are x^2, or with the block's
// importance qw, qw * sqrt(sigma2 + x^2).
float block_scale(const float* x, const float* qw, float sigma2, uint8_t* codes) {
  float w[kBlock];
  for (uint32_t j = 0; j < kBlock; ++j) {
    w[j] = qw ? qw[j] * std::sqrt(sigma2 + x[j] * x[j]) : x[j] * x[j];
  }
  float amax = 0, max = 0;
  for (uint32_t j = 0; j < kBlock; ++j) {
    const float ax = std::fabs(x[j]);
    if (ax > amax) {
      amax = ax;
      max = x[j];
    }
  }
  if (amax < kGroupMaxEps) return 0.0f;
  const float v0 = kIq4nlValues[0];
  float d = -max / v0;
  Sums s = weighted_sums(x, w, 1 / d, codes);
  d = s.q2 > 0 ? s.qx / s.q2 : 0.0f;
  float best = d * s.qx;
  for (int itry = -kTries; itry <= kTries; ++itry) {
    const float id = static_cast<float>(itry + kIq4nlValues[0]) / max;
    s = weighted_sums(x, w, id, nullptr);
    if (s.q2 > 0 && s.qx * s.qx > best * s.q2) {
      d = s.qx / s.q2;
      best = d * s.qx;
    }
  }
  return d;
}

}  // namespace

uint8_t iq4_best_index(float x) {
  const int8_t* val = kIq4nlValues;
  if (x <= val[0]) return 0;
  if (x >= val[15]) return 15;
  int ml = 0, mu = 15;
  while (mu - ml > 1) {
    const int mav = (ml + mu) / 2;
    if (x < val[mav]) {
      mu = mav;
    } else {
      ml = mav;
    }
  }
  return static_cast<uint8_t>(x - val[mu - 1] < val[mu] - x ? mu - 1 : mu);
}

Iq4Fit fit_iq4(const float* x, const float* importance, uint32_t n, uint8_t* q4) {
  Iq4Fit fit{0.0f, 0, {0, 0, 0, 0}};
  uint8_t codes[256];
  float scales[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const uint32_t blocks = n / kBlock;
  float sigma2 = 0;
  if (importance) {
    for (uint32_t j = 0; j < n; ++j) sigma2 += x[j] * x[j];
    sigma2 *= 2.f / static_cast<float>(n);
  }
  float max_scale = 0, amax_scale = 0;
  for (uint32_t ib = 0; ib < blocks; ++ib) {
    scales[ib] = block_scale(x + ib * kBlock, importance ? importance + ib * kBlock : nullptr,
                             sigma2, codes + ib * kBlock);
    const float abs_d = std::fabs(scales[ib]);
    if (abs_d > amax_scale) {
      amax_scale = abs_d;
      max_scale = scales[ib];
    }
  }
  if (blocks > 1) {
    const float d = -max_scale / 32;
    fit.d = d;
    const float id = d != 0 ? 1 / d : 0.0f;
    for (uint32_t ib = 0; ib < blocks; ++ib) {
      const int l = std::clamp(nearest_int(id * scales[ib]), -32, 31);
      const float dl = d * static_cast<float>(l);
      const float idl = dl != 0 ? 1 / dl : 0.0f;
      for (uint32_t j = 0; j < kBlock; ++j) {
        codes[ib * kBlock + j] = iq4_best_index(idl * x[ib * kBlock + j]);
      }
      const auto level = static_cast<uint32_t>(l + 32);
      fit.scales_l[ib / 2] |= static_cast<uint8_t>((level & 0x0f) << (4 * (ib % 2)));
      fit.scales_h |= static_cast<uint16_t>((level >> 4) << (2 * ib));
    }
  } else {
    fit.d = scales[0];
    const float id = scales[0] != 0 ? 1 / scales[0] : 0.0f;
    for (uint32_t j = 0; j < n; ++j) codes[j] = iq4_best_index(id * x[j]);
  }
  for (uint32_t i = 0; i < n / kBlock; ++i) {
    for (uint32_t j = 0; j < 16; ++j) {
      q4[16 * i + j] = static_cast<uint8_t>(codes[32 * i + j] | (codes[32 * i + 16 + j] << 4));
    }
  }
  return fit;
}

}  // namespace gauntlet::core::types
