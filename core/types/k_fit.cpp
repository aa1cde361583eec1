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

// ggml make_qx_quants, rmse_type 1 (the weight of element i: qw[i], or x[i]^2 without qw).
float fit_symmetric_scale(const float* x, const float* w, uint32_t n, int nmax, int8_t* q) {
  auto weight = [x, w](uint32_t i) { return w ? w[i] : x[i] * x[i]; };
  auto code = [nmax](float scaled) { return std::clamp(nearest_int(scaled), -nmax, nmax - 1); };
  float max = 0, amax = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    std::fill(q, q + n, int8_t{0});
    return 0.0f;
  }
  float iscale = -nmax / max;
  float sum_lx = 0, sum_l2 = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int l = code(iscale * x[i]);
    q[i] = static_cast<int8_t>(l + nmax);
    const float wi = weight(i);
    sum_lx += wi * x[i] * l;
    sum_l2 += wi * l * l;
  }
  float scale = sum_l2 != 0 ? sum_lx / sum_l2 : 0.0f;
  float best = scale * sum_lx;
  for (int step = -9; step <= 9; ++step) {
    if (step == 0) continue;
    iscale = -(nmax + 0.1f * step) / max;
    sum_lx = sum_l2 = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const int l = code(iscale * x[i]);
      const float wi = weight(i);
      sum_lx += wi * x[i] * l;
      sum_l2 += wi * l * l;
    }
    if (sum_l2 > 0 && sum_lx * sum_lx > best * sum_l2) {
      for (uint32_t i = 0; i < n; ++i) q[i] = static_cast<int8_t>(nmax + code(iscale * x[i]));
      scale = sum_lx / sum_l2;
      best = scale * sum_lx;
    }
  }
  return scale;
}

// ggml make_qp_quants.
float fit_positive_scale(const float* x, const float* w, uint32_t n, int nmax, uint8_t* q) {
  float max = 0;
  for (uint32_t i = 0; i < n; ++i) max = max > x[i] ? max : x[i];
  if (max < kGroupMaxEps) {
    std::fill(q, q + n, uint8_t{0});
    return 0.0f;
  }
  // The first codes are not capped at nmax (ggml's are not either).
  float iscale = nmax / max;
  for (uint32_t i = 0; i < n; ++i) q[i] = static_cast<uint8_t>(nearest_int(iscale * x[i]));
  const float scale = 1 / iscale;
  float best_mse = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const float diff = x[i] - scale * q[i];
    best_mse += w[i] * diff * diff;
  }
  for (int step = -4; step <= 4; ++step) {
    if (step == 0) continue;
    const float iscale_step = (0.1f * step + nmax) / max;
    const float scale_step = 1 / iscale_step;
    float mse = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const int l = std::min(nmax, nearest_int(iscale_step * x[i]));
      const float diff = x[i] - scale_step * l;
      mse += w[i] * diff * diff;
    }
    if (mse < best_mse) {
      best_mse = mse;
      iscale = iscale_step;
    }
  }
  float sum_lx = 0, sum_l2 = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int l = std::min(nmax, nearest_int(iscale * x[i]));
    q[i] = static_cast<uint8_t>(l);
    sum_lx += w[i] * x[i] * l;
    sum_l2 += w[i] * l * l;
  }
  for (int pass = 0; pass < 5; ++pass) {
    int changed = 0;
    for (uint32_t i = 0; i < n; ++i) {
      float slx = sum_lx - w[i] * x[i] * q[i];
      float sl2 = sum_l2 - w[i] * q[i] * q[i];
      if (!(slx > 0 && sl2 > 0)) continue;
      const int l = std::min(nmax, nearest_int(x[i] * sl2 / slx));
      if (l == q[i]) continue;
      slx += w[i] * x[i] * l;
      sl2 += w[i] * l * l;
      if (slx * slx * sum_l2 > sum_lx * sum_lx * sl2) {
        q[i] = static_cast<uint8_t>(l);
        sum_lx = slx;
        sum_l2 = sl2;
        ++changed;
      }
    }
    if (changed == 0) break;
  }
  return sum_l2 > 0.0f ? sum_lx / sum_l2 : 0.0f;
}

}  // namespace gauntlet::core::types
