// ggml's q3_K (ggml-common.h block_q3_K): 256 elements in 110 bytes {hmask[32], qs[64],
// scales[12], f16 d}: 16 sub-blocks of 16, each with a 6-bit scale stored offset by 32;
// value = (d * (scale - 32)) * (q - 4), q in 0..7 (two low bits in qs, the third in hmask). The
// decoder follows ggml-quants.c's dequantize_row_q3_K operation for operation; the encoder its
// quantize_row_q3_K_ref (what its quantize_q3_K runs without an importance matrix) and, given an
// importance row, its quantize_row_q3_K_impl. Blocks of 110 bytes are only 2-byte aligned in a row.
#include <algorithm>
#include <cmath>

#include "core/half.h"
#include "core/tensor_type.h"
#include "core/types/bytes.h"
#include "core/types/codecs.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t kBytes = 110;
constexpr uint32_t kSubBlock = 16;
constexpr uint32_t kSubBlocks = QK_K / kSubBlock;
constexpr uint32_t kQsOffset = 32, kScalesOffset = 96, kDOffset = 108;

// Element e's low two bits are bits 2 * ((e % 128) / 32) of qs[32 * (e / 128) + e % 32], as in
// q2_K; its third bit is bit e / 32 of hmask[e % 32].
struct CodePosition {
  uint32_t byte;
  uint32_t shift;
};

CodePosition code_position(uint32_t e) { return {32 * (e / 128) + e % 32, 2 * ((e % 128) / 32)}; }

// Scale j's low four bits are the low nibble of byte j (j < 8) or the high nibble of byte j - 8;
// its top two bits are bits 2 * (j / 4) of byte 8 + j % 4 (the unpacking in dequantize_row_q3_K).
uint32_t unpack_scale(const std::byte* scales, uint32_t j) {
  auto at = [scales](uint32_t i) { return static_cast<uint32_t>(scales[i]); };
  const uint32_t low = j < 8 ? at(j) & 0x0f : at(j - 8) >> 4;
  return low | (((at(8 + j % 4) >> (2 * (j / 4))) & 3) << 4);
}

void pack_scale(std::byte* scales, uint32_t j, uint32_t level) {
  scales[j % 8] |= static_cast<std::byte>((level & 0x0f) << (j < 8 ? 0 : 4));
  scales[8 + j % 4] |= static_cast<std::byte>((level >> 4) << (2 * (j / 4)));
}

// ggml make_q3_quants with do_rmse: codes l in [-nmax, nmax - 1] for the value of largest
// magnitude at -nmax, then up to five passes that move single codes where that raises the
// x^2-weighted fit (sum l * x)^2 / (sum l * l). Returns the least-squares scale; codes are
// stored offset by nmax (an all-zero group: scale 0, codes 0).
float fit_scale(const float* x, int nmax, int8_t* codes) {
  float max = 0, amax = 0;
  for (uint32_t i = 0; i < kSubBlock; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    std::fill(codes, codes + kSubBlock, int8_t{0});
    return 0.0f;
  }
  const float iscale = -nmax / max;
  float sum_lx = 0, sum_l2 = 0;
  for (uint32_t i = 0; i < kSubBlock; ++i) {
    const int l = std::clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
    codes[i] = static_cast<int8_t>(l);
    const float w = x[i] * x[i];
    sum_lx += w * x[i] * l;
    sum_l2 += w * l * l;
  }
  for (int pass = 0; pass < 5; ++pass) {
    int changed = 0;
    for (uint32_t i = 0; i < kSubBlock; ++i) {
      const float w = x[i] * x[i];
      float slx = sum_lx - w * x[i] * codes[i];
      if (!(slx > 0)) continue;
      float sl2 = sum_l2 - w * codes[i] * codes[i];
      const int l = std::clamp(nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
      if (l == codes[i]) continue;
      slx += w * x[i] * l;
      sl2 += w * l * l;
      if (sl2 > 0 && slx * slx * sum_l2 > sum_lx * sum_lx * sl2) {
        codes[i] = static_cast<int8_t>(l);
        sum_lx = slx;
        sum_l2 = sl2;
        ++changed;
      }
    }
    if (changed == 0) break;
  }
  for (uint32_t i = 0; i < kSubBlock; ++i) codes[i] = static_cast<int8_t>(codes[i] + nmax);
  return sum_l2 > 0.0f ? sum_lx / sum_l2 : 0.0f;
}

// quantize_row_q3_K_ref's sub-block fits and levels: out (zeroed) receives the levels and d.
void store_reference_levels(const float* x, std::byte* out, int8_t* codes) {
  float scales[kSubBlocks];
  float max_scale = 0, amax = 0;
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    scales[j] = fit_scale(x + kSubBlock * j, 4, codes + kSubBlock * j);
    if (std::fabs(scales[j]) > amax) {
      amax = std::fabs(scales[j]);
      max_scale = scales[j];
    }
  }
  std::byte* packed = out + kScalesOffset;
  if (max_scale != 0) {
    // The largest-magnitude scale maps to level -32; levels are stored offset by 32.
    const float iscale = -32.0f / max_scale;
    for (uint32_t j = 0; j < kSubBlocks; ++j) {
      const auto level = static_cast<int8_t>(nearest_int(iscale * scales[j]));
      pack_scale(packed, j, static_cast<uint32_t>(std::clamp<int>(level, -32, 31) + 32));
    }
    store_u16(out + kDOffset, f32_to_f16(1 / iscale));
  } else {
    store_u16(out + kDOffset, f32_to_f16(0.0f));
  }
}

// The same with an importance row qw (quantize_row_q3_K_impl): element weights
// qw * sqrt(sigma2 + x^2), sigma2 twice the super-block's mean square; each sub-block fitted by
// make_qx_quants (nmax 4) under them, then the sub-block scales fitted to levels in [-32, 31] of
// one step by make_qx_quants (nmax 32), weighted by the sub-blocks' weight sums.
void store_weighted_levels(const float* x, const float* qw, std::byte* out, int8_t* codes) {
  float sum_x2 = 0;
  for (uint32_t j = 0; j < QK_K; ++j) sum_x2 += x[j] * x[j];
  const float sigma2 = 2 * sum_x2 / QK_K;
  float scales[kSubBlocks], sw[kSubBlocks];
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    float weights[kSubBlock];
    for (uint32_t l = 0; l < kSubBlock; ++l) {
      const float xl = x[kSubBlock * j + l];
      weights[l] = qw[kSubBlock * j + l] * std::sqrt(sigma2 + xl * xl);
    }
    float sumw = 0;
    for (uint32_t l = 0; l < kSubBlock; ++l) sumw += weights[l];
    sw[j] = sumw;
    scales[j] =
        fit_symmetric_scale(x + kSubBlock * j, weights, kSubBlock, 4, codes + kSubBlock * j);
  }
  int8_t levels[kSubBlocks];
  const float d_block = fit_symmetric_scale(scales, sw, kSubBlocks, 32, levels);
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    pack_scale(out + kScalesOffset, j, static_cast<uint32_t>(levels[j]));
  }
  store_u16(out + kDOffset, f32_to_f16(d_block));
}

void quantize_block(const float* x, const float* qw, std::byte* out) {
  int8_t codes[QK_K];
  std::fill(out, out + kBytes, std::byte{0});
  if (qw) {
    store_weighted_levels(x, qw, out, codes);
  } else {
    store_reference_levels(x, out, codes);
  }
  const std::byte* packed = out + kScalesOffset;

  // Requantize against the scales as stored; a sub-block whose scale rounded to zero keeps the
  // fit's codes, as ggml's does.
  const float d_all = f16_lookup(load_u16(out + kDOffset));
  for (uint32_t j = 0; j < kSubBlocks; ++j) {
    const auto sc = static_cast<int8_t>(unpack_scale(packed, j) - 32);
    const float d = d_all * static_cast<float>(sc);
    if (d == 0) continue;
    for (uint32_t e = kSubBlock * j; e < kSubBlock * (j + 1); ++e) {
      codes[e] = static_cast<int8_t>(std::clamp(nearest_int(x[e] / d), -4, 3) + 4);
    }
  }
  for (uint32_t e = 0; e < QK_K; ++e) {
    const auto code = static_cast<uint32_t>(codes[e]);
    const CodePosition p = code_position(e);
    out[kQsOffset + p.byte] |= static_cast<std::byte>((code & 3) << p.shift);
    out[e % 32] |= static_cast<std::byte>(((code >> 2) & 1) << (e / 32));
  }
}

}  // namespace

void quantize_q3_K(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    quantize_block(src + b * QK_K, importance ? importance + b * QK_K : nullptr, dst + b * kBytes);
  }
}

void dequantize_q3_K(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK_K; ++b) {
    const std::byte* in = src + b * kBytes;
    const float d_all = f16_lookup(load_u16(in + kDOffset));
    float* y = dst + b * QK_K;
    for (uint32_t j = 0; j < kSubBlocks; ++j) {
      const int scale = static_cast<int>(unpack_scale(in + kScalesOffset, j)) - 32;
      const float step = d_all * static_cast<float>(scale);
      for (uint32_t e = kSubBlock * j; e < kSubBlock * (j + 1); ++e) {
        const CodePosition p = code_position(e);
        const int low = (static_cast<int>(in[kQsOffset + p.byte]) >> p.shift) & 3;
        const bool high = ((static_cast<int>(in[e % 32]) >> (e / 32)) & 1) != 0;
        y[e] = step * static_cast<float>(low - (high ? 0 : 4));
      }
    }
  }
}

}  // namespace gauntlet::core::types
