#include "core/types/k_fit.h"

#include <algorithm>
#include <cmath>

namespace gauntlet::core::types {

namespace {

// Weighted error of x against scale * q + offset: squared, or absolute (make_qkx2_quants'
// use_mad, which q2_K's quantizer asks for).
float affine_error(const float* x, const float* w, const uint8_t* q, uint32_t n, float scale,
                   float offset, bool absolute) {
  float error = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float diff = scale * q[i] + offset - x[i];
    error += w[i] * (absolute ? std::fabs(diff) : diff * diff);
  }
  return error;
}

// Codes for x in [0, nmax] under iscale, x measured from offset.
void affine_codes(const float* x, uint32_t n, int nmax, float iscale, float offset, uint8_t* q) {
  for (uint32_t i = 0; i < n; ++i) {
    q[i] = static_cast<uint8_t>(std::clamp(nearest_int(iscale * (x[i] - offset)), 0, nmax));
  }
}

}  // namespace

AffineFit fit_scale_and_min(const float* x, const float* w, uint32_t n, int nmax, SearchRange range,
                            uint8_t* q) {
  float min = x[0], max = x[0];
  float sum_w = w[0];
  float sum_x = sum_w * x[0];
  for (uint32_t i = 1; i < n; ++i) {
    min = std::min(min, x[i]);
    max = std::max(max, x[i]);
    sum_w += w[i];
    sum_x += w[i] * x[i];
  }
  min = std::min(min, 0.0f);
  if (max == min) {
    std::fill(q, q + n, uint8_t{0});
    return {0.0f, -min};
  }
  const bool absolute = range.absolute_error;
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  affine_codes(x, n, nmax, iscale, min, q);
  float best_error = affine_error(x, w, q, n, scale, min, absolute);

  uint8_t trial[32];
  for (int step = 0; step <= range.nstep; ++step) {
    iscale = (range.rmin + range.rdelta * step + nmax) / (max - min);
    affine_codes(x, n, nmax, iscale, min, trial);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const float l = trial[i];
      sum_l += w[i] * l;
      sum_l2 += w[i] * l * l;
      sum_xl += w[i] * l * x[i];
    }
    const float det = sum_w * sum_l2 - sum_l * sum_l;
    if (!(det > 0)) continue;
    float this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
    float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
    if (this_min > 0) {
      this_min = 0;
      this_scale = sum_xl / sum_l2;
    }
    const float error = affine_error(x, w, trial, n, this_scale, this_min, absolute);
    if (error < best_error) {
      std::copy(trial, trial + n, q);
      best_error = error;
      scale = this_scale;
      min = this_min;
    }
  }
  return {scale, -min};
}

}  // namespace gauntlet::core::types
