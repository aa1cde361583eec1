// ggml's nvfp4 (ggml-common.h block_nvfp4): 64 elements in 36 bytes {u8 d[4], u8 qs[32]}: four
// sub-blocks of 16, each with a UE4M3 scale d[s] (unsigned, 4 exponent bits of bias 7, 3 mantissa
// bits) and its 16 E2M1 codes in qs[8s .. 8s + 7], element 16s + j in the low nibble of byte
// 8s + j and element 16s + 8 + j in its high nibble; value = kvalues_fp4[code] * (UE4M3 value /
// 2) (the E2M1 values doubled, as mxfp4's, and the scale halved). The decoder follows
// ggml-quants.c's dequantize_row_nvfp4 and ggml-impl.h's ggml_ue4m3_to_fp32 (which reads the
// exponent from bits 3..6 only, so a set top bit is ignored, but for 0x7f, E4M3's NaN, which is
// 0; 0xff is 240), the encoder quantize_row_nvfp4_ref with ggml_fp32_to_ue4m3 (which llama.cpp's
// quantizer calls with or without an importance matrix). Every scale and every value is exact
// in a float (at most 4 significant bits times 2 for the code; no subnormals). Blocks are
// 4-byte aligned.
#include <cmath>
#include <cstring>

#include "core/types/codecs.h"
#include "core/types/nonlinear_values.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 64;
constexpr uint32_t kSub = 16;
constexpr uint32_t kBytes = 36;

// ggml_fp32_to_ue4m3: the nearest UE4M3 (a tie in the mantissa's fourth bit rounds up); 448
// (0x7e) at most; 0 for x <= 0, NaN, or under 2^-10.
uint8_t f32_to_ue4m3(float x) {
  if (!(x > 0.0f)) return 0;
  if (x > 448.0f) x = 448.0f;
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const int f32_exp = static_cast<int>((bits >> 23) & 0xff) - 127;
  const int f32_man = static_cast<int>((bits >> 20) & 0x7);
  int exp = f32_exp + 7;
  if (exp <= 0) {
    // Subnormal: man * 2^-9 with man = round(x * 2^9).
    int man = static_cast<int>(x * 512.0f + 0.5f);
    if (man > 7) man = 7;
    if (man < 1) return 0;
    return static_cast<uint8_t>(man);
  }
  if (exp >= 15) return 0x7e;
  int man = f32_man + static_cast<int>((bits >> 19) & 1);
  if (man > 7) {
    man = 0;
    ++exp;
    if (exp >= 15) return 0x7e;
  }
  return static_cast<uint8_t>((exp << 3) | man);
}

void quantize_block(const float* x, std::byte* out) {
  for (uint32_t s = 0; s < QK / kSub; ++s) {
    const float* xb = x + s * kSub;
    float amax = 0.0f;
    for (uint32_t j = 0; j < kSub; ++j) {
      if (amax < std::fabs(xb[j])) amax = std::fabs(xb[j]);
    }
    // amax / 6 maps the largest E2M1 value (6) to amax.
    const uint8_t ue = f32_to_ue4m3(amax / 6.0f);
    out[s] = std::byte{ue};
    const float d = ue4m3_to_f32_half(ue);
    for (uint32_t j = 0; j < kSub / 2; ++j) {
      const uint8_t lo = e2m1_best_index(xb[j], d);
      const uint8_t hi = e2m1_best_index(xb[kSub / 2 + j], d);
      out[4 + s * (kSub / 2) + j] = static_cast<std::byte>(lo | (hi << 4));
    }
  }
}

}  // namespace

void quantize_nvfp4(const float* src, std::byte* dst, uint64_t n, const float* /*importance*/) {
  for (uint64_t b = 0; b < n / QK; ++b) quantize_block(src + b * QK, dst + b * kBytes);
}

void dequantize_nvfp4(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b) {
    const auto* in = reinterpret_cast<const uint8_t*>(src + b * kBytes);
    for (uint32_t s = 0; s < QK / kSub; ++s) {
      const float d = ue4m3_to_f32_half(in[s]);
      float* y = dst + b * QK + s * kSub;
      for (uint32_t j = 0; j < kSub / 2; ++j) {
        const uint8_t q = in[4 + s * (kSub / 2) + j];
        y[j] = static_cast<float>(kMxfp4Values[q & 0x0f]) * d;
        y[j + kSub / 2] = static_cast<float>(kMxfp4Values[q >> 4]) * d;
      }
    }
  }
}

}  // namespace gauntlet::core::types
