// ggml's 256-element super-block types (ggml-common.h block_q4_K, block_q5_K, block_q6_K). The
// decoders follow ggml-quants.c's dequantize_row_* operation for operation, so they match it bit
// for bit; the encoders follow its reference quantizers (quantize_row_*_ref), which its
// quantize_q4_K / q5_K / q6_K run without an importance matrix, and with one (importance, the
// imatrix row) its quantize_row_q4_K_impl / q5_K_impl / q6_K_impl, so the files they write are
// the ones llama.cpp writes.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types {

namespace {

// q4_K and q5_K: 8 sub-blocks of 32, each with a 6-bit scale and a 6-bit min.
constexpr uint32_t kSubBlock = 32;
constexpr uint32_t kSubBlocks = QK_K / kSubBlock;
constexpr uint32_t kScaleBytes = 12;

// q6_K: 16 sub-blocks of 16, each with a signed 8-bit scale.
constexpr uint32_t kQ6SubBlock = 16;
constexpr uint32_t kQ6SubBlocks = QK_K / kQ6SubBlock;

// --- 6-bit scales and mins of q4_K and q5_K -----------------------------------------------------

struct ScaleMin {
  uint8_t scale;
  uint8_t min;
};

// Sub-blocks 0-3 keep scale and min in the low six bits of bytes j and j + 4; sub-blocks 4-7
// keep their low four bits in byte j + 4 (scale low nibble, min high nibble) and their top two
// bits in the spare top bits of bytes j - 4 (scale) and j (min) (ggml get_scale_min_k4).
ScaleMin unpack_scale_min(const std::byte* packed, uint32_t j) {
  auto at = [packed](uint32_t i) { return static_cast<uint8_t>(packed[i]); };
  if (j < 4) return {static_cast<uint8_t>(at(j) & 63), static_cast<uint8_t>(at(j + 4) & 63)};
  return {static_cast<uint8_t>((at(j + 4) & 0x0f) | ((at(j - 4) >> 6) << 4)),
          static_cast<uint8_t>((at(j + 4) >> 4) | ((at(j) >> 6) << 4))};
}

// The inverse of unpack_scale_min, as quantize_row_q4_K_ref writes it; packed starts zeroed.
void pack_scale_min(std::byte* packed, uint32_t j, ScaleMin sm) {
  auto set = [packed](uint32_t i, uint32_t bits) { packed[i] |= static_cast<std::byte>(bits); };
  if (j < 4) {
    set(j, sm.scale);
    set(j + 4, sm.min);
  } else {
    set(j + 4, (sm.scale & 0x0f) | ((sm.min & 0x0f) << 4));
    set(j - 4, (sm.scale >> 4) << 6);
    set(j, (sm.min >> 4) << 6);
  }
}

// --- where an element's bits live ---------------------------------------------------------------

// q4_K and q5_K: each 64 elements share 32 bytes of qs, the first 32 in the low nibbles and the
// next 32 in the high ones; in q5_K, element e's fifth bit is bit e / 32 of qh[e % 32] (ggml
// dequantize_row_q4_K, dequantize_row_q5_K).
struct NibblePosition {
  uint32_t byte;
  uint32_t shift;
};

NibblePosition k4_position(uint32_t e) { return {(e / 64) * 32 + e % 32, 4 * ((e / 32) % 2)}; }

uint8_t k4_low_bits(const std::byte* qs, uint32_t e) {
  const NibblePosition p = k4_position(e);
  return (static_cast<uint8_t>(qs[p.byte]) >> p.shift) & 0x0f;
}

uint8_t k5_fifth_bit(const std::byte* qh, uint32_t e) {
  return static_cast<uint8_t>(((static_cast<uint8_t>(qh[e % 32]) >> (e / 32)) & 1) << 4);
}

// q6_K: each 128 elements share 64 bytes of ql and 32 of qh. Within them, element r's low four
// bits are in ql[r % 32 + 32 * (group odd)], low nibble for groups 0-1 and high for 2-3 (group =
// r / 32), and its top two bits are bits 2 * group of qh[r % 32] (ggml dequantize_row_q6_K).
struct Q6Position {
  uint32_t ql_byte;
  uint32_t ql_shift;
  uint32_t qh_byte;
  uint32_t qh_shift;
};

Q6Position q6_position(uint32_t e) {
  const uint32_t half = e / 128, group = (e % 128) / 32, lane = e % 32;
  return {half * 64 + lane + 32 * (group % 2), 4 * (group / 2), half * 32 + lane, 2 * group};
}

uint8_t q6_code(const std::byte* ql, const std::byte* qh, uint32_t e) {
  const Q6Position p = q6_position(e);
  const uint8_t low = (static_cast<uint8_t>(ql[p.ql_byte]) >> p.ql_shift) & 0x0f;
  const uint8_t high = (static_cast<uint8_t>(qh[p.qh_byte]) >> p.qh_shift) & 3;
  return static_cast<uint8_t>(low | (high << 4));
}

// --- q4_K and q5_K ------------------------------------------------------------------------------

struct KBlockLayout {
  int nmax;            // 15 for q4_K, 31 for q5_K
  SearchRange search;  // the make_qkx2_quants arguments of the type's reference quantizer
  uint32_t block_bytes;
  bool cap_weighted_levels;  // quantize_row_q5_K_impl caps its levels at 63, q4_K_impl does not
};

// Per-element weights |x| + rms(sub-block) (quantize_row_q4_K_ref, quantize_row_q5_K_ref).
void importance_weights(const float* x, float* w) {
  float sum_x2 = 0;
  for (uint32_t l = 0; l < kSubBlock; ++l) sum_x2 += x[l] * x[l];
  const float av_x = std::sqrt(sum_x2 / kSubBlock);
  for (uint32_t l = 0; l < kSubBlock; ++l) w[l] = av_x + std::fabs(x[l]);
}

// value's 6-bit level, inverse_step = 63 / the largest value (quantize_row_q4_K_ref).
uint8_t six_bit_level(float inverse_step, float value) {
  return std::min<uint8_t>(63, static_cast<uint8_t>(nearest_int(inverse_step * value)));
}

// The sub-block fits, levels, d and dmin of quantize_row_q4_K_ref / quantize_row_q5_K_ref, which
// differ only in nmax and the search range; scales (zeroed) receives the packed levels.
void store_reference_levels(const float* x, const KBlockLayout& layout, std::byte* out,
                            uint8_t* codes) {
  AffineFit fits[kSubBlocks];
  float max_scale = 0, max_min = 0;
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    float weights[kSubBlock];
    importance_weights(x + j * kSubBlock, weights);
    fits[j] = fit_scale_and_min(x + j * kSubBlock, weights, kSubBlock, layout.nmax, layout.search,
                                codes + j * kSubBlock);
    max_scale = std::max(max_scale, fits[j].scale);
    max_min = std::max(max_min, fits[j].min);
  }

  const float inv_scale = max_scale > 0 ? 63.0f / max_scale : 0.0f;
  const float inv_min = max_min > 0 ? 63.0f / max_min : 0.0f;
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    pack_scale_min(out + 4, j,
                   {six_bit_level(inv_scale, fits[j].scale), six_bit_level(inv_min, fits[j].min)});
  }
  store_u16(out, f32_to_f16(max_scale / 63.0f));
  store_u16(out + 2, f32_to_f16(max_min / 63.0f));
}

// The same with an importance row qw (quantize_row_q4_K_impl / quantize_row_q5_K_impl): element
// weights qw * sqrt(sigma2 + x^2), sigma2 twice the super-block's mean square; each sub-block
// fitted by make_qkx3_quants, then its scales and its mins each fitted to 6-bit levels of one
// step by make_qp_quants, weighted by the sub-blocks' weight sums.
void store_weighted_levels(const float* x, const float* qw, const KBlockLayout& layout,
                           std::byte* out, uint8_t* codes) {
  float sum_x2 = 0;
  for (uint32_t l = 0; l < QK_K; ++l) sum_x2 += x[l] * x[l];
  const float sigma2 = 2 * sum_x2 / QK_K;
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
    const AffineFit fit = fit_scale_and_min(x + kSubBlock * j, weights, kSubBlock, layout.nmax,
                                            kWeightedAffineSearch, codes + kSubBlock * j);
    scales[j] = fit.scale;
    mins[j] = fit.min;
  }
  uint8_t ls[kSubBlocks], lm[kSubBlocks];
  const float d_block = fit_positive_scale(scales, sw, kSubBlocks, 63, ls);
  const float m_block = fit_positive_scale(mins, sw, kSubBlocks, 63, lm);
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    ScaleMin sm{ls[j], lm[j]};
    if (layout.cap_weighted_levels)
      sm = {std::min<uint8_t>(63, sm.scale), std::min<uint8_t>(63, sm.min)};
    pack_scale_min(out + 4, j, sm);
  }
  store_u16(out, f32_to_f16(d_block));
  store_u16(out + 2, f32_to_f16(m_block));
}

// Quantizes one super-block into its d, dmin, packed scales and per-element codes.
void quantize_k_super_block(const float* x, const float* qw, const KBlockLayout& layout,
                            std::byte* out, uint8_t* codes) {
  std::byte* scales = out + 4;
  std::fill(scales, scales + kScaleBytes, std::byte{0});
  if (qw) {
    store_weighted_levels(x, qw, layout, out, codes);
  } else {
    store_reference_levels(x, layout, out, codes);
  }

  // Requantize against the scales as stored. A sub-block whose scale rounded to zero keeps the
  // fit's codes, as ggml's does.
  const float d = f16_lookup(load_u16(out));
  const float dmin = f16_lookup(load_u16(out + 2));
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    const ScaleMin sm = unpack_scale_min(scales, j);
    const float step = d * sm.scale;
    if (step == 0) continue;
    const float offset = dmin * sm.min;
    for (uint32_t i = j * kSubBlock; i < (j + 1) * kSubBlock; ++i) {
      codes[i] =
          static_cast<uint8_t>(std::clamp(nearest_int((x[i] + offset) / step), 0, layout.nmax));
    }
  }
}

// value = (d * scale) * q - dmin * min, per sub-block (ggml dequantize_row_q4_K / q5_K).
template <typename CodeOf>
void dequantize_k_super_block(const std::byte* in, float* y, CodeOf code_of) {
  const float d = f16_lookup(load_u16(in));
  const float dmin = f16_lookup(load_u16(in + 2));
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    const ScaleMin sm = unpack_scale_min(in + 4, j);
    const float step = d * sm.scale;
    const float offset = dmin * sm.min;
    for (uint32_t e = j * kSubBlock; e < (j + 1) * kSubBlock; ++e) {
      y[e] = step * static_cast<float>(code_of(e)) - offset;
    }
  }
}

constexpr KBlockLayout kQ4K{15, {-1.0f, 0.1f, 20}, 144, false};
constexpr KBlockLayout kQ5K{31, {-0.5f, 0.1f, 15}, 176, true};

// --- q6_K ---------------------------------------------------------------------------------------

constexpr uint32_t kQ6Bytes = 210;
constexpr uint32_t kQ6QhOffset = 128, kQ6ScalesOffset = 192, kQ6DOffset = 208;

// Stores the sub-block scales as int8 levels of one f16 d, the largest-magnitude scale at -128
// (quantize_row_q6_K_ref). Returns false for an all-zero super-block.
bool store_q6_scales(const float* sub_scales, std::byte* out) {
  float max_scale = 0, max_abs_scale = 0;
  for (uint32_t j = 0; j < kQ6SubBlocks; ++j) {
    if (std::fabs(sub_scales[j]) > max_abs_scale) {
      max_abs_scale = std::fabs(sub_scales[j]);
      max_scale = sub_scales[j];
    }
  }
  if (max_abs_scale < kGroupMaxEps) return false;
  const float iscale = -128.0f / max_scale;
  store_u16(out + kQ6DOffset, f32_to_f16(1 / iscale));
  for (uint32_t j = 0; j < kQ6SubBlocks; ++j) {
    const int level = std::min(127, nearest_int(iscale * sub_scales[j]));
    out[kQ6ScalesOffset + j] = static_cast<std::byte>(static_cast<int8_t>(level));
  }
  return true;
}

void pack_q6_codes(const int8_t* codes, std::byte* out) {
  std::fill(out, out + kQ6ScalesOffset, std::byte{0});
  for (uint32_t e = 0; e < QK_K; ++e) {
    const auto code = static_cast<uint8_t>(codes[e]);
    const Q6Position p = q6_position(e);
    out[p.ql_byte] |= static_cast<std::byte>((code & 0x0f) << p.ql_shift);
    out[kQ6QhOffset + p.qh_byte] |= static_cast<std::byte>((code >> 4) << p.qh_shift);
  }
}

// quantize_row_q6_K_ref, or with an importance row qw quantize_row_q6_K_impl, which differ only
// in the weights of the sub-block fits: x^2, or qw as it is.
void quantize_q6_super_block(const float* x, const float* qw, std::byte* out) {
  int8_t codes[QK_K];
  float sub_scales[kQ6SubBlocks];
  for (uint32_t j = 0; j < kQ6SubBlocks; ++j) {
    sub_scales[j] = fit_symmetric_scale(x + j * kQ6SubBlock, qw ? qw + j * kQ6SubBlock : nullptr,
                                        kQ6SubBlock, 32, codes + j * kQ6SubBlock);
  }
  if (!store_q6_scales(sub_scales, out)) {
    std::fill(out, out + kQ6Bytes, std::byte{0});
    return;
  }
  // Requantize against the stored scales; a sub-block whose scale rounded to zero keeps the
  // fit's codes, as ggml's does.
  const float d = f16_lookup(load_u16(out + kQ6DOffset));
  for (uint32_t j = 0; j < kQ6SubBlocks; ++j) {
    const float step = d * static_cast<float>(static_cast<int8_t>(out[kQ6ScalesOffset + j]));
    if (step == 0) continue;
    for (uint32_t i = j * kQ6SubBlock; i < (j + 1) * kQ6SubBlock; ++i) {
      codes[i] = static_cast<int8_t>(32 + std::clamp(nearest_int(x[i] / step), -32, 31));
    }
  }
  pack_q6_codes(codes, out);
}

}  // namespace

// q4_K: {f16 d, f16 dmin, scales[12], qs[128]}.
void quantize_q4_K(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    std::byte* out = dst + b * kQ4K.block_bytes;
    uint8_t codes[QK_K];
    quantize_k_super_block(src + b * QK_K, importance ? importance + b * QK_K : nullptr, kQ4K, out,
                           codes);
    std::byte* qs = out + 4 + kScaleBytes;
    std::fill(qs, qs + QK_K / 2, std::byte{0});
    for (uint32_t e = 0; e < QK_K; ++e) {
      const NibblePosition p = k4_position(e);
      qs[p.byte] |= static_cast<std::byte>(codes[e] << p.shift);
    }
  }
}

void dequantize_q4_K(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    const std::byte* in = src + b * kQ4K.block_bytes;
    const std::byte* qs = in + 4 + kScaleBytes;
    dequantize_k_super_block(in, dst + b * QK_K, [qs](uint32_t e) { return k4_low_bits(qs, e); });
  }
}

// q5_K: {f16 d, f16 dmin, scales[12], qh[32], qs[128]}.
void quantize_q5_K(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    std::byte* out = dst + b * kQ5K.block_bytes;
    uint8_t codes[QK_K];
    quantize_k_super_block(src + b * QK_K, importance ? importance + b * QK_K : nullptr, kQ5K, out,
                           codes);
    std::byte* qh = out + 4 + kScaleBytes;
    std::byte* qs = qh + QK_K / 8;
    std::fill(qh, qh + QK_K / 8 + QK_K / 2, std::byte{0});
    for (uint32_t e = 0; e < QK_K; ++e) {
      const NibblePosition p = k4_position(e);
      qs[p.byte] |= static_cast<std::byte>((codes[e] & 0x0f) << p.shift);
      qh[e % 32] |= static_cast<std::byte>((codes[e] >> 4) << (e / 32));
    }
  }
}

void dequantize_q5_K(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    const std::byte* in = src + b * kQ5K.block_bytes;
    const std::byte* qh = in + 4 + kScaleBytes;
    const std::byte* qs = qh + QK_K / 8;
    dequantize_k_super_block(in, dst + b * QK_K, [qh, qs](uint32_t e) {
      return k4_low_bits(qs, e) | k5_fifth_bit(qh, e);
    });
  }
}

// q6_K: {ql[128], qh[64], int8 scales[16], f16 d}.
void quantize_q6_K(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    quantize_q6_super_block(src + b * QK_K, importance ? importance + b * QK_K : nullptr,
                            dst + b * kQ6Bytes);
  }
}

// value = (d * scale) * (q - 32) (ggml dequantize_row_q6_K).
void dequantize_q6_K(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    const std::byte* in = src + b * kQ6Bytes;
    const float d = f16_lookup(load_u16(in + kQ6DOffset));
    for (uint32_t j = 0; j < kQ6SubBlocks; ++j) {
      const auto scale = static_cast<int8_t>(in[kQ6ScalesOffset + j]);
      const float step = d * static_cast<float>(scale);
      for (uint32_t e = j * kQ6SubBlock; e < (j + 1) * kQ6SubBlock; ++e) {
        const int q = q6_code(in, in + kQ6QhOffset, e) - 32;
        dst[b * QK_K + e] = step * static_cast<float>(q);
      }
    }
  }
}

}  // namespace gauntlet::core::types
