#pragma once
// The value tables of ggml's 4-bit non-linear codes (ggml-common.h): mxfp4's E2M1 values doubled
// (kvalues_mxfp4, which nvfp4 shares as kvalues_fp4) with its E8M0 scale halved (ggml-impl.h
// ggml_e8m0_to_fp32_half), and iq4_nl's and iq4_xs's (kvalues_iq4nl). Internal to core/types/ and
// the cpu device's kernels (engine/cpu/dot_kernels.cpp).
#include <bit>
#include <cmath>
#include <cstdint>

namespace gauntlet::core::types {

inline constexpr int8_t kMxfp4Values[16] = {0, 1,  2,  3,  4,  6,  8,  12,
                                            0, -1, -2, -3, -4, -6, -8, -12};

inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// 2^(e - 128): the subnormals 2^-128 and 2^-127 for e 0 and 1, else exponent field e - 1
// (ggml_e8m0_to_fp32_half; e 255 gives 2^127, not a NaN).
// ggml-impl.h's ggml_ue4m3_to_fp32 (nvfp4's sub-block scales): the UE4M3 value, halved; the
// exponent is bits 3..6 only, and 0 and 0x7f (E4M3's NaN) are 0.
inline float ue4m3_to_f32_half(uint8_t x) {
  if (x == 0 || x == 0x7f) return 0.0f;
  const int exp = (x >> 3) & 0xf;
  const int man = x & 0x7;
  const float raw = exp == 0 ? std::ldexp(static_cast<float>(man), -9)
                             : std::ldexp(1.0f + static_cast<float>(man) / 8.0f, exp - 7);
  return raw * 0.5f;
}

inline float e8m0_to_f32_half(uint8_t e) {
  const uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
  return std::bit_cast<float>(bits);
}

// ggml-quants.c best_index_mxfp4 (mxfp4's and nvfp4's encoders): the code whose value times d is
// nearest x, the first one on a tie.
inline uint8_t e2m1_best_index(float x, float d) {
  uint8_t best = 0;
  float best_err = std::fabs(kMxfp4Values[0] * d - x);
  for (uint8_t i = 1; i < 16; ++i) {
    const float err = std::fabs(kMxfp4Values[i] * d - x);
    if (err < best_err) {
      best = i;
      best_err = err;
    }
  }
  return best;
}

}  // namespace gauntlet::core::types
