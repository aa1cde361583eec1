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
