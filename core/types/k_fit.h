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
// kept when they lower the error. The offset is never positive. n is at most 32. With weights
// given and use_mad false it is also ggml's make_qkx3_quants, which differs only in taking x^2
// when weights is NULL (never, in the importance-weighted encoders that call it) and in testing
// max <= min where make_qkx2_quants tests max == min (the same, min being at most max).
AffineFit fit_scale_and_min(const float* x, const float* w, uint32_t n, int nmax, SearchRange range,
                            uint8_t* q);

// make_qkx3_quants' search range as the importance-weighted encoders (quantize_row_q2_K_impl,
// q4_K_impl, q5_K_impl, q4_1_impl, q5_1_impl) pass it.
constexpr SearchRange kWeightedAffineSearch{-0.9f, 0.05f, 36};

// ggml make_qx_quants with rmse_type 1: the value of largest magnitude maps to -nmax, then 18
// nearby inverse scales -(nmax + 0.1 is) / max (is = -9..9, not 0) are tried, keeping the one
// with the best w-weighted least-squares fit (sum w l x)^2 / (sum w l^2). w is the importance
// (qw) or, when NULL, x^2. Codes are stored offset by nmax; returns the least-squares scale (an
// all-zero group: scale 0, codes 0, not offset).
float fit_symmetric_scale(const float* x, const float* w, uint32_t n, int nmax, int8_t* q);

// ggml make_qp_quants: codes l in [0, nmax] for non-negative x (a super-block's sub-block scales or
// mins) under one scale, chosen by the weighted squared error among 9 inverse scales
// (0.1 is + nmax) / max, then up to five passes moving single codes where that raises the
// w-weighted fit (sum w l x)^2 / (sum w l^2). Returns the least-squares scale. Codes are uint8_t
// as in ggml (a negative x would wrap, as it does there).
float fit_positive_scale(const float* x, const float* w, uint32_t n, int nmax, uint8_t* q);

}  // namespace gauntlet::core::types
