// ggml's q2_K (ggml-common.h block_q2_K): 256 elements in 84 bytes {scales[16], qs[64], f16 d,
// f16 dmin}: 16 sub-blocks of 16, each with a 4-bit scale (low nibble of its scales byte) and a
// 4-bit min (high nibble); value = (d * scale) * q - dmin * min, q in 0..3. The decoder follows
// ggml-quants.c's dequantize_row_q2_K operation for operation; the encoder its
// quantize_row_q2_K_ref (what its quantize_q2_K runs without an importance matrix) and, given an
// importance row, its quantize_row_q2_K_impl.
#include <algorithm>
#include <cmath>

#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t kBytes = 84;
constexpr uint32_t kSubBlock = 16;
constexpr uint32_t kSubBlocks = QK_K / kSubBlock;
constexpr uint32_t kQsOffset = 16, kDOffset = 80, kDminOffset = 82;

// Each 128 elements share 32 bytes of qs: element e's two bits are bits 2 * ((e % 128) / 32) of
// qs[32 * (e / 128) + e % 32].
struct CodePosition {
  uint32_t byte;
  uint32_t shift;
};

CodePosition code_position(uint32_t e) { return {32 * (e / 128) + e % 32, 2 * ((e % 128) / 32)}; }

// The 4-bit levels of the sub-blocks' scales (low nibbles) or mins (high nibbles) against one
// f16 step of max / 15, stored into d_at; a zero max stores step 0 and leaves the nibbles zero.
void store_levels(const float* values, float max, std::byte* scales, uint32_t shift,
                  std::byte* d_at) {
  if (!(max > 0)) {
    store_u16(d_at, f32_to_f16(0.0f));
    return;
  }
  const float iscale = 15.0f / max;
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    scales[j] |= static_cast<std::byte>(nearest_int(iscale * values[j]) << shift);
  }
  store_u16(d_at, f32_to_f16(max / 15.0f));
}

// quantize_row_q2_K_ref's sub-block fits and levels: out (zeroed) receives them, d and dmin.
void store_reference_levels(const float* x, std::byte* out, uint8_t* codes) {
  float scales[kSubBlocks], mins[kSubBlocks];
  float max_scale = 0, max_min = 0;
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    float weights[kSubBlock];
    for (uint32_t l = 0; l < kSubBlock; ++l) weights[l] = std::fabs(x[kSubBlock * j + l]);
    const AffineFit fit = fit_scale_and_min(x + kSubBlock * j, weights, kSubBlock, 3,
                                            {-0.5f, 0.1f, 15, true}, codes + kSubBlock * j);
    scales[j] = fit.scale;
    mins[j] = fit.min;
    max_scale = std::max(max_scale, fit.scale);
    max_min = std::max(max_min, fit.min);
  }
  store_levels(scales, max_scale, out, 0, out + kDOffset);
  store_levels(mins, max_min, out, 4, out + kDminOffset);
}

// The same with an importance row qw (quantize_row_q2_K_impl): element weights
// qw * sqrt(sigma2 + x^2), sigma2 the super-block's mean square; each sub-block fitted by
// make_qkx3_quants, then the scales and the mins each fitted to 4-bit levels of one step by
// make_qp_quants, weighted by the sub-blocks' weight sums.
void store_weighted_levels(const float* x, const float* qw, std::byte* out, uint8_t* codes) {
  float sum_x2 = 0;
  for (uint32_t j = 0; j < QK_K; ++j) sum_x2 += x[j] * x[j];
  const float sigma2 = sum_x2 / QK_K;
  float scales[kSubBlocks], mins[kSubBlocks], sw[kSubBlocks];
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    float weights[kSubBlock];
    for (uint32_t l = 0; l < kSubBlock; ++l) {
      const float xl = x[kSubBlock * j + l];
      weights[l] = qw[kSubBlock * j + l] * std::sqrt(sigma2 + xl * xl);
    }
    float sumw = 0;
    for (uint32_t l = 0; l < kSubBlock; ++l) sumw += weights[l];
    sw[j] = sumw;
    const AffineFit fit = fit_scale_and_min(x + kSubBlock * j, weights, kSubBlock, 3,
                                            kWeightedAffineSearch, codes + kSubBlock * j);
    scales[j] = fit.scale;
    mins[j] = fit.min;
  }
  uint8_t ls[kSubBlocks], lm[kSubBlocks];
  const float dm = fit_positive_scale(scales, sw, kSubBlocks, 15, ls);
  const float mm = fit_positive_scale(mins, sw, kSubBlocks, 15, lm);
  store_u16(out + kDOffset, f32_to_f16(dm));
  store_u16(out + kDminOffset, f32_to_f16(mm));
  for (uint32_t j = 0; j < kSubBlocks; ++j) out[j] = static_cast<std::byte>(ls[j] | (lm[j] << 4));
}

void quantize_block(const float* x, const float* qw, std::byte* out) {
  uint8_t codes[QK_K];
  std::fill(out, out + kBytes, std::byte{0});
  if (qw) {
    store_weighted_levels(x, qw, out, codes);
  } else {
    store_reference_levels(x, out, codes);
  }

  // Requantize against the scales as stored; a sub-block whose scale rounded to zero keeps the
  // fit's codes, as ggml's does.
  const float d = f16_lookup(load_u16(out + kDOffset));
  const float dmin = f16_lookup(load_u16(out + kDminOffset));
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    const auto sm = static_cast<uint8_t>(out[j]);
    const float step = d * static_cast<float>(sm & 0x0f);
    if (step == 0) continue;
    const float offset = dmin * static_cast<float>(sm >> 4);
    for (uint32_t e = kSubBlock * j; e < kSubBlock * (j + 1); ++e) {
      codes[e] = static_cast<uint8_t>(std::clamp(nearest_int((x[e] + offset) / step), 0, 3));
    }
  }
  for (uint32_t e = 0; e < QK_K; ++e) {
    const CodePosition p = code_position(e);
    out[kQsOffset + p.byte] |= static_cast<std::byte>(codes[e] << p.shift);
  }
}

}  // namespace

void quantize_q2_K(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    quantize_block(src + b * QK_K, importance ? importance + b * QK_K : nullptr, dst + b * kBytes);
  }
}

void dequantize_q2_K(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    const std::byte* in = src + b * kBytes;
    const float d = f16_lookup(load_u16(in + kDOffset));
    const float dmin = f16_lookup(load_u16(in + kDminOffset));
    float* y = dst + b * QK_K;
    for (uint32_t j = 0; j < kSubBlocks; ++j) {
      const auto sm = static_cast<uint8_t>(in[j]);
      const float step = d * static_cast<float>(sm & 0x0f);
      const float offset = dmin * static_cast<float>(sm >> 4);
      for (uint32_t e = kSubBlock * j; e < kSubBlock * (j + 1); ++e) {
        const CodePosition p = code_position(e);
        const auto q = (static_cast<uint8_t>(in[kQsOffset + p.byte]) >> p.shift) & 3;
        y[e] = step * static_cast<float>(q) - offset;
      }
    }
  }
}

}  // namespace gauntlet::core::types
