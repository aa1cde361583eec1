// The iq2 encoders, ggml-quants.c's quantize_iq2_xxs (quantize_row_iq2_xxs_impl), quantize_iq2_xs
// (quantize_row_iq2_xs_impl) and quantize_iq2_s (quantize_row_iq2_s_impl), line by line: the same
// float operations in the same order, the same int/float conversions and ties (the first of
// equals wins). Per 32 (iq2_xxs) or 16 (iq2_xs, iq2_s) values: weights qw * sqrt(sigma2 + x^2),
// the magnitudes fitted to the grid under 13 or 19 trial scales, the best least-squares fit kept;
// then the block's step max_scale / 31 and 4-bit levels. The block layouts are in iq2.cpp.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/half.h"
#include "core/types/iq_encode.h"
#include "core/types/iq_lattice.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types::iq {

namespace {

// ggml's GROUP_MAX_EPS_IQ2_S.
constexpr float kGroupMaxEpsIq2s = 1e-8f;

void store_iq2_half(std::byte* p, float value) {
  const uint16_t bits = f32_to_f16(value);
  std::memcpy(p, &bits, 2);
}

// ggml's code of 8 levels (bits 2i) and the check it makes before storing one ("Oops: found
// point not on grid", then GGML_ABORT).
int iq2_on_grid(const Lattice& lat, const int8_t* L, const char* type) {
  uint16_t u = 0;
  for (int i = 0; i < 8; ++i) u |= static_cast<uint16_t>(L[i] << 2 * i);
  const int grid_index = lat.map[u];
  if (grid_index < 0) throw std::logic_error(std::string(type) + ": a group off the grid");
  return grid_index;
}

// GGML_ASSERT(scale >= 0): false only for a NaN scale (a NaN in the row).
void iq2_check_scale(float scale, const char* type) {
  if (!(scale >= 0)) throw std::invalid_argument(std::string(type) + ": a NaN in the row");
}

}  // namespace

// quantize_iq2_xxs / quantize_row_iq2_xxs_impl (kMaxQ 3, groups of 32, 13 trial scales around
// make_qp_quants' fit).
void encode_iq2_xxs(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  if (!quant_weights)
    throw std::invalid_argument(
        "iq2_xxs needs an importance matrix (imatrix): ggml's quantize_iq2_xxs asserts on its "
        "absence");
  const Lattice& lat = lattice(LatticeGrid::iq2xxs);
  constexpr int kMaxQ = 3;
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 32];
  float weight[32];
  float xval[32];
  int8_t L[32];
  int8_t Laux[32];
  float waux[32];
  uint8_t block_signs[4];
  uint32_t q2[2 * (QK_K / 32)];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    std::byte* block = y + 66 * ibl;
    store_iq2_half(block, 0.f);
    std::memset(q2, 0, QK_K / 4);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    float sumx2 = 0;
    for (uint32_t i = 0; i < QK_K; ++i) sumx2 += xbl[i] * xbl[i];
    const float sigma2 = sumx2 / QK_K;

    for (uint32_t ib = 0; ib < QK_K / 32; ++ib) {
      const float* xb = xbl + 32 * ib;
      const float* qw = quant_weights + QK_K * ibl + 32 * ib;
      for (int i = 0; i < 32; ++i) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
      for (int i = 0; i < 32; ++i) waux[i] = sqrtf(weight[i]);
      for (int k = 0; k < 4; ++k)
        block_signs[k] = even_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k);
      float max = xval[0];
      for (int i = 1; i < 32; ++i) max = max > xval[i] ? max : xval[i];
      if (max < kGroupMaxEps) {
        scales[ib] = 0;
        std::memset(L, 0, 32);
        continue;
      }
      float scale = fit_positive_scale(xval, weight, 32, kMaxQ + 1, reinterpret_cast<uint8_t*>(L));
      const float eff_max = scale * kMaxQ;
      if (eff_max <= 0) {
        scales[ib] = 0;
        std::memset(L, 0, 32);
        continue;
      }
      float best = 0;
      for (int is = -6; is <= 6; ++is) {
        const float id = (2 * kMaxQ - 1 + is * 0.1f) / eff_max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 4; ++k) {
          for (int i = 0; i < 8; ++i) {
            const int l = nearest_int(0.5f * (id * xval[8 * k + i] - 1));
            Laux[8 * k + i] = static_cast<int8_t>(l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l);
          }
          uint16_t u = 0;
          for (int i = 0; i < 8; ++i) u |= static_cast<uint16_t>(Laux[8 * k + i] << 2 * i);
          if (lat.map[u] < 0)
            best_neighbour(lat, u, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 32; ++i) {
          const float w = weight[i];
          const float q = 2 * Laux[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
          scale = sumqx / sumq2;
          best = scale * sumqx;
          std::memcpy(L, Laux, 32);
        }
      }
      if (scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 4; ++k) {
          uint16_t u = 0;
          for (int i = 0; i < 8; ++i) {
            int l = nearest_int(0.5f * (id * xval[8 * k + i] - 1));
            l = l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l;
            u |= static_cast<uint16_t>(l << 2 * i);
          }
          int grid_index = lat.map[u];
          if (grid_index < 0)
            grid_index = best_neighbour(lat, u, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
          const int8_t* pg = lat.point(grid_index);
          for (int i = 0; i < 8; ++i) L[8 * k + i] = static_cast<int8_t>((pg[i] - 1) / 2);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 32; ++i) {
          const float w = weight[i];
          const float q = 2 * L[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0) scale = sumqx / sumq2;
      }
      if (scale < 0) {
        // ggml: "This should never happen" (the signs flip with the scale).
        scale = -scale;
        for (int k = 0; k < 4; ++k) block_signs[k] = static_cast<uint8_t>(~block_signs[k] & 127);
      }
      for (int k = 0; k < 4; ++k) {
        const int grid_index = iq2_on_grid(lat, L + 8 * k, "iq2_xxs");
        q2[2 * ib + 0] |= static_cast<uint32_t>(grid_index) << 8 * k;
        q2[2 * ib + 1] |= static_cast<uint32_t>(block_signs[k] << 7 * k);
      }
      iq2_check_scale(scale, "iq2_xxs");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (!max_scale) {
      std::memset(block + 2, 0, QK_K / 4);
      continue;
    }

    const float d = max_scale / 31;
    store_iq2_half(block, d);
    const float id = 1 / d;
    for (uint32_t ib = 0; ib < QK_K / 32; ++ib) {
      int l = nearest_int(0.5f * (id * scales[ib] - 1));
      l = l < 0 ? 0 : l > 15 ? 15 : l;
      q2[2 * ib + 1] |= static_cast<uint32_t>(l) << 28;
    }
    std::memcpy(block + 2, q2, QK_K / 4);
  }
}

// quantize_iq2_xs / quantize_row_iq2_xs_impl (kMaxQ 3, groups of 16, 19 trial scales).
void encode_iq2_xs(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  if (!quant_weights)
    throw std::invalid_argument(
        "iq2_xs needs an importance matrix (imatrix): ggml's quantize_iq2_xs asserts on its "
        "absence");
  const Lattice& lat = lattice(LatticeGrid::iq2xs);
  constexpr int kMaxQ = 3;
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 16];
  float weight[16];
  float xval[16];
  int8_t L[16];
  int8_t Laux[16];
  float waux[16];
  bool is_on_grid[2];
  bool is_on_grid_aux[2];
  uint8_t block_signs[2];
  uint16_t q2[2 * (QK_K / 16)];
  uint8_t block_scales[QK_K / 32];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    std::byte* block = y + 74 * ibl;
    store_iq2_half(block, 0.f);
    std::memset(q2, 0, QK_K / 4);
    std::memset(block_scales, 0, QK_K / 32);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    float sumx2 = 0;
    for (uint32_t i = 0; i < QK_K; ++i) sumx2 += xbl[i] * xbl[i];
    const float sigma2 = sumx2 / QK_K;

    for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
      const float* xb = xbl + 16 * ib;
      const float* qw = quant_weights + QK_K * ibl + 16 * ib;
      for (int i = 0; i < 16; ++i) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
      for (int i = 0; i < 16; ++i) waux[i] = sqrtf(weight[i]);
      for (int k = 0; k < 2; ++k)
        block_signs[k] = even_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k);
      float max = xval[0];
      for (int i = 1; i < 16; ++i) max = max > xval[i] ? max : xval[i];
      std::memset(L, 0, 16);
      if (max < kGroupMaxEps) {
        scales[ib] = 0;
        continue;
      }
      float best = 0;
      float scale = max / (2 * kMaxQ - 1);
      is_on_grid[0] = is_on_grid[1] = true;
      for (int is = -9; is <= 9; ++is) {
        const float id = (2 * kMaxQ - 1 + is * 0.1f) / max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 2; ++k) {
          for (int i = 0; i < 8; ++i) {
            const int l = nearest_int(0.5f * (id * xval[8 * k + i] - 1));
            Laux[8 * k + i] = static_cast<int8_t>(l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l);
          }
          uint16_t u = 0;
          for (int i = 0; i < 8; ++i) u |= static_cast<uint16_t>(Laux[8 * k + i] << 2 * i);
          is_on_grid_aux[k] = true;
          if (lat.map[u] < 0) {
            is_on_grid_aux[k] = false;
            best_neighbour(lat, u, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
          }
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 16; ++i) {
          const float w = weight[i];
          const float q = 2 * Laux[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
          scale = sumqx / sumq2;
          best = scale * sumqx;
          for (int i = 0; i < 16; ++i) L[i] = Laux[i];
          for (int k = 0; k < 2; ++k) is_on_grid[k] = is_on_grid_aux[k];
        }
      }
      int n_not_ongrid = 0;
      for (int k = 0; k < 2; ++k)
        if (!is_on_grid[k]) ++n_not_ongrid;
      if (n_not_ongrid > 0 && scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 2; ++k) {
          if (is_on_grid[k]) continue;
          uint16_t u = 0;
          for (int i = 0; i < 8; ++i) {
            int l = nearest_int(0.5f * (id * xval[8 * k + i] - 1));
            l = l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l;
            u |= static_cast<uint16_t>(l << 2 * i);
            L[8 * k + i] = static_cast<int8_t>(l);
          }
          if (lat.map[u] < 0) best_neighbour(lat, u, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 16; ++i) {
          const float w = weight[i];
          const float q = 2 * L[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0) scale = sumqx / sumq2;
      }
      if (scale < 0) {
        scale = -scale;
        for (int k = 0; k < 2; ++k) block_signs[k] = static_cast<uint8_t>(~block_signs[k] & 127);
      }
      for (int k = 0; k < 2; ++k) {
        const int grid_index = iq2_on_grid(lat, L + 8 * k, "iq2_xs");
        q2[2 * ib + k] = static_cast<uint16_t>(grid_index | (block_signs[k] << 9));
      }
      iq2_check_scale(scale, "iq2_xs");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (!max_scale) {
      std::memset(block + 2, 0, QK_K / 4);
      std::memcpy(block + 2 + QK_K / 4, block_scales, QK_K / 32);
      continue;
    }

    const float d = max_scale / 31;
    store_iq2_half(block, d);
    const float id = 1 / d;
    for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
      int l = nearest_int(0.5f * (id * scales[ib] - 1));
      l = l < 0 ? 0 : l > 15 ? 15 : l;
      if (ib % 2 == 0)
        block_scales[ib / 2] = static_cast<uint8_t>(l);
      else
        block_scales[ib / 2] |= static_cast<uint8_t>(l << 4);
    }
    std::memcpy(block + 2, q2, QK_K / 4);
    std::memcpy(block + 2 + QK_K / 4, block_scales, QK_K / 32);
  }
}

// quantize_iq2_s / quantize_row_iq2_s_impl (kMaxQ 3, groups of 16, 19 trial scales, 8 free signs
// per 8 values; without weights ggml weighs each value by 0.25 sigma2 + x^2).
void encode_iq2_s(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  const Lattice& lat = lattice(LatticeGrid::iq2s);
  constexpr int kMaxQ = 3;
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 16];
  float weight[16];
  float xval[16];
  int8_t L[16];
  int8_t Laux[16];
  float waux[16];
  bool is_on_grid[2];
  bool is_on_grid_aux[2];
  uint8_t block_signs[2];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    // block_iq2_s: d, qs[QK_K/4] (indices' low bytes, then the signs), qh[QK_K/32], scales.
    std::byte* block = y + 82 * ibl;
    uint8_t qs[QK_K / 4] = {};
    uint8_t qh[QK_K / 32] = {};
    uint8_t block_scales[QK_K / 32] = {};
    store_iq2_half(block, 0.f);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    float sumx2 = 0;
    for (uint32_t i = 0; i < QK_K; ++i) sumx2 += xbl[i] * xbl[i];
    const float sigma2 = 2 * sumx2 / QK_K;

    for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
      const float* xb = xbl + 16 * ib;
      if (quant_weights) {
        const float* qw = quant_weights + QK_K * ibl + 16 * ib;
        for (int i = 0; i < 16; ++i) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
      } else {
        for (int i = 0; i < 16; ++i) weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
      }
      for (int i = 0; i < 16; ++i) waux[i] = sqrtf(weight[i]);
      for (int k = 0; k < 2; ++k) {
        uint8_t s = 0;
        for (int i = 0; i < 8; ++i) {
          if (xb[8 * k + i] >= 0) {
            xval[8 * k + i] = xb[8 * k + i];
          } else {
            xval[8 * k + i] = -xb[8 * k + i];
            s |= static_cast<uint8_t>(1 << i);
          }
        }
        block_signs[k] = s;
      }
      float max = xval[0];
      for (int i = 1; i < 16; ++i) max = max > xval[i] ? max : xval[i];
      std::memset(L, 0, 16);
      if (max < kGroupMaxEpsIq2s) {
        scales[ib] = 0;
        continue;
      }
      float best = 0;
      float scale = max / (2 * kMaxQ - 1);
      is_on_grid[0] = is_on_grid[1] = true;
      for (int is = -9; is <= 9; ++is) {
        const float id = (2 * kMaxQ - 1 + is * 0.1f) / max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 2; ++k) {
          for (int i = 0; i < 8; ++i) {
            const int l = nearest_int(0.5f * (id * xval[8 * k + i] - 1));
            Laux[8 * k + i] = static_cast<int8_t>(l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l);
          }
          uint16_t u = 0;
          for (int i = 0; i < 8; ++i) u |= static_cast<uint16_t>(Laux[8 * k + i] << 2 * i);
          is_on_grid_aux[k] = true;
          if (lat.map[u] < 0) {
            is_on_grid_aux[k] = false;
            best_neighbour(lat, u, xval + 8 * k, waux + 8 * k, this_scale, Laux + 8 * k);
          }
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 16; ++i) {
          const float w = weight[i];
          const float q = 2 * Laux[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
          scale = sumqx / sumq2;
          best = scale * sumqx;
          for (int i = 0; i < 16; ++i) L[i] = Laux[i];
          for (int k = 0; k < 2; ++k) is_on_grid[k] = is_on_grid_aux[k];
        }
      }
      int n_not_ongrid = 0;
      for (int k = 0; k < 2; ++k)
        if (!is_on_grid[k]) ++n_not_ongrid;
      if (n_not_ongrid > 0 && scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 2; ++k) {
          if (is_on_grid[k]) continue;
          uint16_t u = 0;
          for (int i = 0; i < 8; ++i) {
            int l = nearest_int(0.5f * (id * xval[8 * k + i] - 1));
            l = l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l;
            u |= static_cast<uint16_t>(l << 2 * i);
            L[8 * k + i] = static_cast<int8_t>(l);
          }
          if (lat.map[u] < 0) best_neighbour(lat, u, xval + 8 * k, waux + 8 * k, scale, L + 8 * k);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < 16; ++i) {
          const float w = weight[i];
          const float q = 2 * L[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0) scale = sumqx / sumq2;
      }
      if (scale < 0) {
        scale = -scale;
        for (int k = 0; k < 2; ++k) block_signs[k] = static_cast<uint8_t>(~block_signs[k]);
      }
      for (int k = 0; k < 2; ++k) {
        const int grid_index = iq2_on_grid(lat, L + 8 * k, "iq2_s");
        const uint32_t i8 = 2 * ib + k;
        qs[i8] = static_cast<uint8_t>(grid_index & 255);
        qh[i8 / 4] |= static_cast<uint8_t>((grid_index >> 8) << 2 * (i8 % 4));
        qs[QK_K / 8 + i8] = block_signs[k];
      }
      iq2_check_scale(scale, "iq2_s");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (max_scale) {
      const float d = max_scale / 31;
      store_iq2_half(block, d * 0.9875f);
      const float id = 1 / d;
      for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
        int l = nearest_int(0.5f * (id * scales[ib] - 1));
        l = l < 0 ? 0 : l > 15 ? 15 : l;
        if (ib % 2 == 0)
          block_scales[ib / 2] = static_cast<uint8_t>(l);
        else
          block_scales[ib / 2] |= static_cast<uint8_t>(l << 4);
      }
    }
    std::memcpy(block + 2, qs, sizeof qs);
    std::memcpy(block + 2 + sizeof qs, qh, sizeof qh);
    std::memcpy(block + 2 + sizeof qs + sizeof qh, block_scales, sizeof block_scales);
  }
}

}  // namespace gauntlet::core::types::iq
