// ggml's 32-element block types (ggml-common.h block_q4_0 ... block_q8_0); the quantizers follow
// ggml-quants.c's reference versions (quantize_row_*_ref), which its quantize_q4_0 ... q8_0 run
// without an importance matrix, and given an importance row (imatrix) its quantize_row_q4_0_impl,
// q4_1_impl, q5_0_impl and q5_1_impl. quantize_q8_0 ignores the importance, as ggml's does.
#include <algorithm>
#include <cmath>

#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 32;

// Element j's low four bits sit in byte j % 16 of qs: the low nibble for j < 16, the high one
// above (ggml dequantize_row_q4_1 / q5_0 / q5_1).
void pack_nibbles(const uint8_t* codes, std::byte* qs) {
  for (uint32_t j = 0; j < QK / 2; ++j) {
    qs[j] = static_cast<std::byte>((codes[j] & 0x0f) | ((codes[j + QK / 2] & 0x0f) << 4));
  }
}

uint8_t low_bits(const std::byte* qs, uint32_t j) {
  const auto byte = static_cast<uint8_t>(qs[j % (QK / 2)]);
  return j < QK / 2 ? byte & 0x0f : byte >> 4;
}

// Element j's fifth bit is bit j of qh, read as a little-endian uint32 (ggml
// dequantize_row_q5_0: qh >> j for the low half, qh >> (j + 12) & 0x10 for the high half).
void pack_fifth_bits(const uint8_t* codes, std::byte* qh) {
  uint8_t bytes[4] = {0, 0, 0, 0};
  for (uint32_t j = 0; j < QK; ++j) bytes[j / 8] |= ((codes[j] >> 4) & 1) << (j % 8);
  for (uint32_t k = 0; k < 4; ++k) qh[k] = static_cast<std::byte>(bytes[k]);
}

uint8_t fifth_bit(const std::byte* qh, uint32_t j) {
  return static_cast<uint8_t>(((static_cast<uint8_t>(qh[j / 8]) >> (j % 8)) & 1) << 4);
}

// The five-bit code of element j in a block whose qh and qs are given.
uint8_t five_bit_code(const std::byte* qh, const std::byte* qs, uint32_t j) {
  return low_bits(qs, j) | fifth_bit(qh, j);
}

// An unsigned block: value = d * q + min, q in [0, nmax], min the block's minimum.
struct AffineBlock {
  float d;
  float min;
  uint8_t codes[QK];
};

// ggml quantize_row_q4_1_ref / quantize_row_q5_1_ref: d spans [min, max] in nmax steps, codes
// round half up (x * id + 0.5, truncated) and are capped at nmax.
AffineBlock quantize_affine(const float* x, uint8_t nmax) {
  AffineBlock block{};
  float min = x[0], max = x[0];
  for (uint32_t i = 1; i < QK; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
  }
  block.d = (max - min) / nmax;
  block.min = min;
  const float id = block.d != 0 ? 1.0f / block.d : 0.0f;
  for (uint32_t i = 0; i < QK; ++i) {
    const auto q = static_cast<int>((x[i] - min) * id + 0.5f);
    block.codes[i] = static_cast<uint8_t>(std::min<int>(nmax, q));
  }
  return block;
}

// A symmetric block: value = d * (q - half), q in [0, 2 * half - 1].
struct SignedBlock {
  float d;
  uint8_t codes[QK];
};

// ggml quantize_row_q4_0_ref / quantize_row_q5_0_ref: the value of largest magnitude maps to
// -half (so its sign sets d's); codes round half up and are capped at 2 * half - 1.
SignedBlock quantize_signed(const float* x, int half) {
  SignedBlock block{};
  float amax = 0, max = 0;
  for (uint32_t i = 0; i < QK; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  block.d = max / static_cast<float>(-half);
  const float id = block.d != 0 ? 1.0f / block.d : 0.0f;
  for (uint32_t i = 0; i < QK; ++i) {
    const auto q = static_cast<int>(x[i] * id + static_cast<float>(half) + 0.5f);
    block.codes[i] = static_cast<uint8_t>(std::min(2 * half - 1, q));
  }
  return block;
}

void store_d_and_min(std::byte* out, const AffineBlock& block) {
  store_u16(out, f32_to_f16(block.d));
  store_u16(out + 2, f32_to_f16(block.min));
}

// The element weights of quantize_row_q4_0_impl ... q5_1_impl: qw * sqrt(sigma2 + x^2), sigma2
// the mean square of the whole row (of n elements).
class RowWeights {
 public:
  RowWeights(const float* x, uint64_t n, const float* qw) : qw_(qw) {
    if (!qw) return;
    float sum_x2 = 0;
    for (uint64_t j = 0; j < n; ++j) sum_x2 += x[j] * x[j];
    sigma2_ = sum_x2 / static_cast<float>(n);
  }
  // Block b's weights, its elements xb.
  void block(uint64_t b, const float* xb, float* w) const {
    const float* qw = qw_ + QK * b;
    for (uint32_t j = 0; j < QK; ++j) w[j] = qw[j] * std::sqrt(sigma2_ + xb[j] * xb[j]);
  }

 private:
  const float* qw_;
  float sigma2_ = 0;
};

// quantize_row_q4_0_impl / q5_0_impl: make_qx_quants (nmax = half) under the weights; codes in
// [0, 2 * half - 1] (all 0 for an all-zero block, whose d is 0).
SignedBlock quantize_signed_weighted(const float* xb, const float* w, int half) {
  SignedBlock block{};
  int8_t codes[QK];
  block.d = fit_symmetric_scale(xb, w, QK, half, codes);
  for (uint32_t j = 0; j < QK; ++j) block.codes[j] = static_cast<uint8_t>(codes[j]);
  return block;
}

// quantize_row_q4_1_impl / q5_1_impl: make_qkx3_quants under the weights; value = d * q + m with
// m = -the_min (at most 0).
AffineBlock quantize_affine_weighted(const float* xb, const float* w, int nmax) {
  AffineBlock block{};
  const AffineFit fit = fit_scale_and_min(xb, w, QK, nmax, kWeightedAffineSearch, block.codes);
  block.d = fit.scale;
  block.min = -fit.min;
  return block;
}

// Block b of a row of n elements: the reference encoding, or the weighted one given importance.
SignedBlock signed_block(const float* src, uint64_t b, const RowWeights* weights, int half) {
  if (!weights) return quantize_signed(src + b * QK, half);
  float w[QK];
  weights->block(b, src + b * QK, w);
  return quantize_signed_weighted(src + b * QK, w, half);
}

AffineBlock affine_block(const float* src, uint64_t b, const RowWeights* weights, int nmax) {
  if (!weights) return quantize_affine(src + b * QK, static_cast<uint8_t>(nmax));
  float w[QK];
  weights->block(b, src + b * QK, w);
  return quantize_affine_weighted(src + b * QK, w, nmax);
}

}  // namespace

// q8_0: {f16 d, int8 qs[32]}; d = amax / 127, q = round(x / d).
void quantize_q8_0(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const float* x = src + b * QK;
    std::byte* out = dst + b * 34;
    float amax = 0;
    for (uint32_t i = 0; i < QK; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float d = amax / 127.0f;
    const float id = d != 0 ? 1.0f / d : 0.0f;
    store_u16(out, f32_to_f16(d));
    for (uint32_t i = 0; i < QK; ++i) {
      out[2 + i] = static_cast<std::byte>(static_cast<int8_t>(std::lround(x[i] * id)));
    }
  }
}

void dequantize_q8_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * 34;
    const float d = f16_lookup(load_u16(in));
    for (uint32_t i = 0; i < QK; ++i) {
      dst[b * QK + i] = static_cast<float>(static_cast<int8_t>(in[2 + i])) * d;
    }
  }
}

// q4_0: {f16 d, qs[16]}; value = d * (q - 8).
void quantize_q4_0(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  const RowWeights row(src, n, importance);
  const RowWeights* weights = importance ? &row : nullptr;
  for (uint64_t b = 0; b < n / QK; ++b) {
    const SignedBlock block = signed_block(src, b, weights, 8);
    std::byte* out = dst + b * 18;
    store_u16(out, f32_to_f16(block.d));
    pack_nibbles(block.codes, out + 2);
  }
}

// ggml dequantize_row_q4_0.
void dequantize_q4_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * 18;
    const float d = f16_lookup(load_u16(in));
    for (uint32_t j = 0; j < QK; ++j) {
      dst[b * QK + j] = static_cast<float>(low_bits(in + 2, j) - 8) * d;
    }
  }
}

// q4_1: {f16 d, f16 m, qs[16]}; value = d * q + m.
void quantize_q4_1(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  const RowWeights row(src, n, importance);
  const RowWeights* weights = importance ? &row : nullptr;
  for (uint64_t b = 0; b < n / QK; ++b) {
    const AffineBlock block = affine_block(src, b, weights, 15);
    std::byte* out = dst + b * 20;
    store_d_and_min(out, block);
    pack_nibbles(block.codes, out + 4);
  }
}

// ggml dequantize_row_q4_1.
void dequantize_q4_1(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * 20;
    const float d = f16_lookup(load_u16(in));
    const float m = f16_lookup(load_u16(in + 2));
    for (uint32_t j = 0; j < QK; ++j) {
      dst[b * QK + j] = static_cast<float>(low_bits(in + 4, j)) * d + m;
    }
  }
}

// q5_0: {f16 d, qh[4], qs[16]}; value = d * (q - 16).
void quantize_q5_0(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  const RowWeights row(src, n, importance);
  const RowWeights* weights = importance ? &row : nullptr;
  for (uint64_t b = 0; b < n / QK; ++b) {
    const SignedBlock block = signed_block(src, b, weights, 16);
    std::byte* out = dst + b * 22;
    store_u16(out, f32_to_f16(block.d));
    pack_fifth_bits(block.codes, out + 2);
    pack_nibbles(block.codes, out + 6);
  }
}

// ggml dequantize_row_q5_0.
void dequantize_q5_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * 22;
    const float d = f16_lookup(load_u16(in));
    for (uint32_t j = 0; j < QK; ++j) {
      const int q = five_bit_code(in + 2, in + 6, j) - 16;
      dst[b * QK + j] = static_cast<float>(q) * d;
    }
  }
}

// q5_1: {f16 d, f16 m, qh[4], qs[16]}; value = d * q + m.
void quantize_q5_1(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  const RowWeights row(src, n, importance);
  const RowWeights* weights = importance ? &row : nullptr;
  for (uint64_t b = 0; b < n / QK; ++b) {
    const AffineBlock block = affine_block(src, b, weights, 31);
    std::byte* out = dst + b * 24;
    store_d_and_min(out, block);
    pack_fifth_bits(block.codes, out + 4);
    pack_nibbles(block.codes, out + 8);
  }
}

// ggml dequantize_row_q5_1.
void dequantize_q5_1(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const std::byte* in = src + b * 24;
    const float d = f16_lookup(load_u16(in));
    const float m = f16_lookup(load_u16(in + 2));
    for (uint32_t j = 0; j < QK; ++j) {
      dst[b * QK + j] = static_cast<float>(five_bit_code(in + 4, in + 8, j)) * d + m;
    }
  }
}

}  // namespace gauntlet::core::types
