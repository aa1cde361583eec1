// ggml's ternary types for BitNet b1.58 and TriLM models (ggml-common.h block_tq1_0, block_tq2_0):
// 256 elements of -1, 0 or +1 times one f16 scale d (the block's largest magnitude).
//   tq1_0: 54 bytes {u8 qs[48], u8 qh[4], f16 d}: five trits a byte in qs, four in qh. A byte
//          holds its trits as a fixed-point fraction: the base-3 number t0 t1 t2 t3 t4 (t0 the
//          most significant) times 256 / 243, rounded up; trit n is the top of 3 * (byte * 3^n
//          mod 256), i.e. ((uint8_t)(byte * 3^n) * 3) >> 8. Element order: qs[0..31] give
//          elements 32n + m (trit n of byte m, n 0..4), qs[32..47] elements 160 + 16n + m, and
//          qh[0..3] elements 240 + 4n + m (n 0..3; qh's fifth trit is always 0).
//   tq2_0: 66 bytes {u8 qs[64], f16 d}: two bits a trit (0, 1, 2 for -1, 0, +1); as q2_K's
//          codes, in half h of 128 element 32l + m is bits 2l, 2l + 1 of qs[32h + m].
// value = (float)(trit - 1) * d. The decoders follow ggml-quants.c's dequantize_row_tq1_0 and
// dequantize_row_tq2_0, the encoders its quantize_row_tq1_0_ref and quantize_row_tq2_0_ref (which
// llama.cpp's quantizer calls with or without an importance matrix). Blocks are 2-byte aligned.
#include <cmath>
#include <cstring>

#include "core/half.h"
#include "core/types/codecs.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 256;
constexpr uint32_t kTq1Bytes = 54;
constexpr uint32_t kTq2Bytes = 66;
constexpr uint8_t kPow3[6] = {1, 3, 9, 27, 81, 243};

// ggml's per-block scale: the largest magnitude, and its reciprocal (0 for an all-zero block).
float block_amax(const float* x) {
  float amax = 0.0f;
  for (uint32_t j = 0; j < QK; ++j) {
    const float a = std::fabs(x[j]);
    amax = amax > a ? amax : a;  // ggml's MAX(amax, fabsf(v))
  }
  return amax;
}

// -1, 0, 1 -> 0, 1, 2 (lroundf rounds half away from zero).
int trit_of(float x, float id) { return static_cast<int>(std::lroundf(x * id)) + 1; }

// A base-3 number of five trits as a byte: times 256 / 243, rounded up.
uint8_t trits_byte(uint32_t q) { return static_cast<uint8_t>((q * 256 + (243 - 1)) / 243); }

int trit_at(uint8_t byte, uint32_t n) {
  const auto q = static_cast<uint8_t>(byte * kPow3[n]);
  return (static_cast<uint16_t>(q) * 3) >> 8;
}

void put_half(std::byte* p, float v) {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
}

float half_at(const std::byte* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_to_f32(h);
}

void quantize_tq1_block(const float* x, std::byte* out) {
  const float d = block_amax(x);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_half(out + 52, d);
  // 5 trits a byte along 32 bytes (elements 0..159), then along 16 (160..239).
  for (uint32_t m = 0; m < 32; ++m) {
    uint32_t q = 0;
    for (uint32_t n = 0; n < 5; ++n) q = q * 3 + static_cast<uint32_t>(trit_of(x[m + 32 * n], id));
    out[m] = std::byte{trits_byte(q)};
  }
  for (uint32_t m = 0; m < 16; ++m) {
    uint32_t q = 0;
    for (uint32_t n = 0; n < 5; ++n) {
      q = q * 3 + static_cast<uint32_t>(trit_of(x[160 + m + 16 * n], id));
    }
    out[32 + m] = std::byte{trits_byte(q)};
  }
  // 4 trits a byte (elements 240..255), the first in the most significant of five.
  for (uint32_t m = 0; m < 4; ++m) {
    uint32_t q = 0;
    for (uint32_t n = 0; n < 4; ++n) {
      q = q * 3 + static_cast<uint32_t>(trit_of(x[240 + m + 4 * n], id));
    }
    out[48 + m] = std::byte{trits_byte(q * 3)};
  }
}

void quantize_tq2_block(const float* x, std::byte* out) {
  const float d = block_amax(x);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  put_half(out + 64, d);
  for (uint32_t h = 0; h < 2; ++h) {
    for (uint32_t m = 0; m < 32; ++m) {
      uint32_t q = 0;
      for (uint32_t l = 0; l < 4; ++l) {
        q += (static_cast<uint32_t>(trit_of(x[128 * h + m + 32 * l], id)) & 3u) << (2 * l);
      }
      out[32 * h + m] = static_cast<std::byte>(q);
    }
  }
}

}  // namespace

void quantize_tq1_0(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / QK; ++b) quantize_tq1_block(src + b * QK, dst + b * kTq1Bytes);
}

void dequantize_tq1_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const auto* q = reinterpret_cast<const uint8_t*>(src + b * kTq1Bytes);
    const float d = half_at(src + b * kTq1Bytes + 52);
    float* y = dst + b * QK;
    for (uint32_t n5 = 0; n5 < 5; ++n5) {
      for (uint32_t m = 0; m < 32; ++m) {
        y[32 * n5 + m] = static_cast<float>(trit_at(q[m], n5) - 1) * d;
      }
      for (uint32_t m = 0; m < 16; ++m) {
        y[160 + 16 * n5 + m] = static_cast<float>(trit_at(q[32 + m], n5) - 1) * d;
      }
    }
    for (uint32_t n4 = 0; n4 < 4; ++n4) {
      for (uint32_t m = 0; m < 4; ++m) {
        y[240 + 4 * n4 + m] = static_cast<float>(trit_at(q[48 + m], n4) - 1) * d;
      }
    }
  }
}

void quantize_tq2_0(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / QK; ++b) quantize_tq2_block(src + b * QK, dst + b * kTq2Bytes);
}

void dequantize_tq2_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const auto* q = reinterpret_cast<const uint8_t*>(src + b * kTq2Bytes);
    const float d = half_at(src + b * kTq2Bytes + 64);
    float* y = dst + b * QK;
    for (uint32_t e = 0; e < QK; ++e) {
      const uint32_t h = e >> 7, l = (e >> 5) & 3, m = e & 31;
      const int t = (q[32 * h + m] >> (2 * l)) & 3;
      y[e] = static_cast<float>(t - 1) * d;
    }
  }
}

}  // namespace gauntlet::core::types
