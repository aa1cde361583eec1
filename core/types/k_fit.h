#pragma once
// What the super-block (k-quant) encoders share: ggml's rounding and its least-squares fit of a
// scale and a min (ggml-quants.c nearest_int, make_qkx2_quants). Internal to core/types/.
#include <bit>
#include <cstdint>

namespace gauntlet::core::types {

constexpr uint32_t QK_K = 256;

// ggml's GROUP_MAX_EPS: below this a group's largest magnitude counts as zero.
constexpr float kGroupMaxEps = 1e-15f;

// Rounds to nearest, ties to even, by adding 1.5 * 2^23 so that the sum's last mantissa bits
// hold the integer (ggml nearest_int; valid for |x| < 2^22).
inline int nearest_int(float x) {
  const auto bits = std::bit_cast<int32_t>(x + 12582912.0f);
  return (bits & 0x007fffff) - 0x00400000;
}

struct AffineFit {
  float scale;
  float min;  // subtracted: value = scale * q - min, min >= 0
};

// The make_qkx2_quants arguments of a type's reference quantizer.
struct SearchRange {
  float rmin;
  float rdelta;
  int nstep;
  bool absolute_error = false;  // use_mad: weighted |error| instead of weighted error^2
};

// ggml make_qkx2_quants: starts from the codes spanning [min(x, 0), max(x)], then tries nstep + 1
// wider or narrower spans; for each, the weighted least-squares scale and offset for its codes,
// kept when they lower the error. The offset is never positive. n is at most 32.
AffineFit fit_scale_and_min(const float* x, const float* w, uint32_t n, int nmax, SearchRange range,
                            uint8_t* q);

}  // namespace gauntlet::core::types
