// ggml's 1- and 2-bit block types (ggml-common.h block_q1_0, block_q2_0), one f16 scale d each:
//   q1_0: 128 elements in 18 bytes {f16 d, u8 qs[16]}: element j is bit j % 8 of qs[j / 8];
//         value = d where it is set, -d where not; d is the block's mean magnitude.
//   q2_0: 64 elements in 18 bytes {f16 d, u8 qs[16]}: element j is the 2-bit code q at bits
//         2 (j % 4) of qs[j / 4]; value = (q - 1) * d (-d, 0, d, 2d); d is the largest magnitude.
// The decoders follow ggml-quants.c's dequantize_row_q1_0 and _q2_0, the encoders its
// quantize_row_q1_0_ref and _q2_0_ref, which its quantize_q1_0 and quantize_q2_0 run with or
// without an importance matrix. Blocks are 2-byte aligned.
#include <cmath>
#include <cstring>

#include "core/half.h"
#include "core/types/codecs.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t kQ1 = 128;
constexpr uint32_t kQ2 = 64;
constexpr uint32_t kBytes = 18;

void put_half(std::byte* p, float v) {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
}

float half_at(const std::byte* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_to_f32(h);
}

}  // namespace

void quantize_q1_0(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / kQ1; ++b, src += kQ1, dst += kBytes) {
    float sum_abs = 0.0f;
    for (uint32_t j = 0; j < kQ1; ++j) sum_abs += std::fabs(src[j]);
    put_half(dst, sum_abs / kQ1);
    uint8_t qs[kQ1 / 8] = {};
    for (uint32_t j = 0; j < kQ1; ++j) {
      if (src[j] >= 0.0f) qs[j / 8] |= static_cast<uint8_t>(1u << (j % 8));
    }
    std::memcpy(dst + 2, qs, sizeof qs);
  }
}

void dequantize_q1_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / kQ1; ++b, src += kBytes, dst += kQ1) {
    const float d = half_at(src);
    for (uint32_t j = 0; j < kQ1; ++j) {
      const bool set = (static_cast<uint8_t>(src[2 + j / 8]) >> (j % 8)) & 1;
      dst[j] = set ? d : -d;
    }
  }
}

void quantize_q2_0(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / kQ2; ++b, src += kQ2, dst += kBytes) {
    float amax = 0.0f;
    for (uint32_t j = 0; j < kQ2; ++j) {
      const float a = std::fabs(src[j]);
      if (a > amax) amax = a;
    }
    const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
    put_half(dst, amax);
    uint8_t qs[kQ2 / 4] = {};
    for (uint32_t j = 0; j < kQ2; ++j) {
      int q = static_cast<int>(std::round(src[j] * id)) + 1;  // roundf: half away from zero
      q = q < 0 ? 0 : q > 3 ? 3 : q;
      qs[j / 4] |= static_cast<uint8_t>(q << (2 * (j % 4)));
    }
    std::memcpy(dst + 2, qs, sizeof qs);
  }
}

void dequantize_q2_0(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / kQ2; ++b, src += kBytes, dst += kQ2) {
    const float d = half_at(src);
    for (uint32_t j = 0; j < kQ2; ++j) {
      const int q = (static_cast<uint8_t>(src[2 + j / 4]) >> (2 * (j % 4))) & 3;
      dst[j] = static_cast<float>(q - 1) * d;
    }
  }
}

}  // namespace gauntlet::core::types
