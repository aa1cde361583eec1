// The iq3 encoders, ggml-quants.c's quantize_iq3_xxs (quantize_row_iq3_xxs_impl with grid_size
// 256) and quantize_iq3_s (quantize_row_iq3_s_impl with block_size 32), line by line: the same
// float operations in the same order, the same int/float conversions and ties. Per 32 values:
// weights qw * sqrt(sigma2 + x^2), or x^2 without an importance row as in ggml; groups of 4
// magnitudes fitted to the grid under 31 (iq3_xxs) or 19 (iq3_s) trial scales, the best
// least-squares fit kept; then the block's step max_scale / 31 (times ggml's fudge factor) and
// 4-bit levels. The block layouts are in iq3.cpp.
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

// ggml's GROUP_MAX_EPS_IQ3_XXS.
constexpr float kGroupMaxEpsIq3xxs = 1e-8f;

void store_iq3_half(std::byte* p, float value) {
  const uint16_t bits = f32_to_f16(value);
  std::memcpy(p, &bits, 2);
}

// ggml's code of 4 levels (bits 3i) and the check it makes before storing one (GGML_ABORT).
int iq3_on_grid(const Lattice& lat, const int8_t* L, const char* type) {
  uint16_t u = 0;
  for (int i = 0; i < 4; ++i) u |= static_cast<uint16_t>(L[i] << 3 * i);
  const int grid_index = lat.map[u];
  if (grid_index < 0) throw std::logic_error(std::string(type) + ": a group off the grid");
  return grid_index;
}

void iq3_check_scale(float scale, const char* type) {
  if (!(scale >= 0)) throw std::invalid_argument(std::string(type) + ": a NaN in the row");
}

// The weights of 32 values: qw * sqrt(sigma2 + x^2), or x^2 without an importance row.
void iq3_weights(const float* xb, const float* qw, float sigma2, float* weight) {
  if (qw) {
    for (int i = 0; i < 32; ++i) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
  } else {
    for (int i = 0; i < 32; ++i) weight[i] = xb[i] * xb[i];
  }
}

}  // namespace

// quantize_iq3_xxs / quantize_row_iq3_xxs_impl(256, ...): kMaxQ 8, 31 trial scales, signs as
// iq2_xxs (7 bits and their parity per 8 values).
void encode_iq3_xxs(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  const Lattice& lat = lattice(LatticeGrid::iq3xxs);
  constexpr int kMaxQ = 8;
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 32];
  float weight[32];
  float xval[32];
  int8_t L[32];
  int8_t Laux[32];
  float waux[32];
  bool is_on_grid[8];
  bool is_on_grid_aux[8];
  uint8_t block_signs[8];
  // ggml's q3: the grid indices (QK_K/4 bytes), then scales_and_signs (a uint32_t per 32).
  uint8_t q3[QK_K / 4];
  uint32_t scales_and_signs[QK_K / 32];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    std::byte* block = y + 98 * ibl;
    store_iq3_half(block, 0.f);
    std::memset(q3, 0, sizeof q3);
    std::memset(scales_and_signs, 0, sizeof scales_and_signs);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    float sumx2 = 0;
    for (uint32_t i = 0; i < QK_K; ++i) sumx2 += xbl[i] * xbl[i];
    const float sigma2 = 2 * sumx2 / QK_K;

    for (uint32_t ib = 0; ib < QK_K / 32; ++ib) {
      const float* xb = xbl + 32 * ib;
      iq3_weights(xb, quant_weights ? quant_weights + QK_K * ibl + 32 * ib : nullptr, sigma2,
                  weight);
      for (int i = 0; i < 32; ++i) waux[i] = sqrtf(weight[i]);
      for (int k = 0; k < 4; ++k)
        block_signs[k] = even_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k);
      float max = xval[0];
      for (int i = 1; i < 32; ++i) max = max > xval[i] ? max : xval[i];
      std::memset(L, 0, 32);
      if (max < kGroupMaxEpsIq3xxs) {
        scales[ib] = 0;
        continue;
      }
      float best = 0;
      float scale = max / (2 * kMaxQ - 1);
      for (int k = 0; k < 8; ++k) is_on_grid[k] = true;
      for (int is = -15; is <= 15; ++is) {
        const float id = (2 * kMaxQ - 1 + is * 0.2f) / max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 8; ++k) {
          for (int i = 0; i < 4; ++i) {
            const int l = nearest_int(0.5f * (id * xval[4 * k + i] - 1));
            Laux[4 * k + i] = static_cast<int8_t>(l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l);
          }
          uint16_t u = 0;
          for (int i = 0; i < 4; ++i) u |= static_cast<uint16_t>(Laux[4 * k + i] << 3 * i);
          is_on_grid_aux[k] = true;
          if (lat.map[u] < 0) {
            is_on_grid_aux[k] = false;
            best_neighbour(lat, u, xval + 4 * k, waux + 4 * k, this_scale, Laux + 4 * k);
          }
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
          for (int i = 0; i < 32; ++i) L[i] = Laux[i];
          for (int k = 0; k < 8; ++k) is_on_grid[k] = is_on_grid_aux[k];
        }
      }
      int n_not_ongrid = 0;
      for (int k = 0; k < 8; ++k)
        if (!is_on_grid[k]) ++n_not_ongrid;
      if (n_not_ongrid > 0 && scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 8; ++k) {
          if (is_on_grid[k]) continue;
          uint16_t u = 0;
          for (int i = 0; i < 4; ++i) {
            int l = nearest_int(0.5f * (id * xval[4 * k + i] - 1));
            l = l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l;
            u |= static_cast<uint16_t>(l << 3 * i);
          }
          int grid_index = lat.map[u];
          if (grid_index < 0)
            grid_index = best_neighbour(lat, u, xval + 4 * k, waux + 4 * k, scale, L + 4 * k);
          const int8_t* pg = lat.point(grid_index);
          for (int i = 0; i < 4; ++i) L[4 * k + i] = static_cast<int8_t>((pg[i] - 1) / 2);
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
        // ggml: "This should never happen"; it flips the signs of the first 4 of its 8 entries
        // (all there are for 32 values).
        scale = -scale;
        for (int k = 0; k < 4; ++k) block_signs[k] = static_cast<uint8_t>(~block_signs[k] & 127);
      }
      for (int k = 0; k < 8; ++k) {
        q3[8 * ib + k] = static_cast<uint8_t>(iq3_on_grid(lat, L + 4 * k, "iq3_xxs"));
      }
      scales_and_signs[ib] = static_cast<uint32_t>(block_signs[0] | (block_signs[1] << 7) |
                                                   (block_signs[2] << 14) | (block_signs[3] << 21));
      iq3_check_scale(scale, "iq3_xxs");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (!max_scale) {
      std::memset(block + 2, 0, 96);
      continue;
    }

    const float d = max_scale / 31;
    store_iq3_half(block, d * 1.0125f);  // ggml: "small improvement via this fudge factor"
    const float id = 1 / d;
    for (uint32_t ib = 0; ib < QK_K / 32; ++ib) {
      int l = nearest_int(0.5f * (id * scales[ib] - 1));
      l = l < 0 ? 0 : l > 15 ? 15 : l;
      scales_and_signs[ib] |= static_cast<uint32_t>(l) << 28;
    }
    std::memcpy(block + 2, q3, sizeof q3);
    std::memcpy(block + 2 + sizeof q3, scales_and_signs, sizeof scales_and_signs);
  }
}

// quantize_iq3_s / quantize_row_iq3_s_impl(32, ...): kMaxQ 8, 19 trial scales, 8 free signs per 8
// values, a 9th index bit in qh.
void encode_iq3_s(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  const Lattice& lat = lattice(LatticeGrid::iq3s);
  constexpr int kMaxQ = 8;
  constexpr int block_size = 32;
  constexpr int bs4 = block_size / 4;
  constexpr int bs8 = block_size / 8;
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / block_size];
  float weight[block_size];
  float xval[block_size];
  int8_t L[block_size];
  int8_t Laux[block_size];
  float waux[block_size];
  bool is_on_grid[bs4];
  bool is_on_grid_aux[bs4];
  uint8_t block_signs[bs8];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    // block_iq3_s: d, qs[QK_K/4], qh[QK_K/32], signs[QK_K/8], scales[QK_K/64].
    std::byte* block = y + 110 * ibl;
    uint8_t qs[QK_K / 4] = {};
    uint8_t qh[QK_K / 32] = {};
    uint8_t signs[QK_K / 8] = {};
    uint8_t block_scales[QK_K / 64] = {};
    store_iq3_half(block, 0.f);
    // ggml advances its qs and signs pointers only past the sub-blocks it stores (not past those
    // it skips as all zero), so what follows a skipped sub-block lands in its place.
    uint32_t qs_at = 0, signs_at = 0;

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    float sumx2 = 0;
    for (uint32_t i = 0; i < QK_K; ++i) sumx2 += xbl[i] * xbl[i];
    const float sigma2 = 2 * sumx2 / QK_K;

    for (uint32_t ib = 0; ib < QK_K / block_size; ++ib) {
      const float* xb = xbl + block_size * ib;
      iq3_weights(xb, quant_weights ? quant_weights + QK_K * ibl + block_size * ib : nullptr,
                  sigma2, weight);
      for (int i = 0; i < block_size; ++i) waux[i] = sqrtf(weight[i]);
      for (int k = 0; k < bs8; ++k) {
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
      for (int i = 1; i < block_size; ++i) max = max > xval[i] ? max : xval[i];
      std::memset(L, 0, block_size);
      if (!max) {
        scales[ib] = 0;
        continue;
      }
      float best = 0;
      float scale = max / (2 * kMaxQ - 1);
      for (int k = 0; k < bs4; ++k) is_on_grid[k] = false;
      for (int is = -9; is <= 9; ++is) {
        const float id = (2 * kMaxQ - 1 + is * 0.2f) / max;
        const float this_scale = 1 / id;
        for (int k = 0; k < bs4; ++k) {
          for (int i = 0; i < 4; ++i) {
            const int l = nearest_int(0.5f * (id * xval[4 * k + i] - 1));
            Laux[4 * k + i] = static_cast<int8_t>(l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l);
          }
          uint16_t u = 0;
          for (int i = 0; i < 4; ++i) u |= static_cast<uint16_t>(Laux[4 * k + i] << 3 * i);
          is_on_grid_aux[k] = true;
          if (lat.map[u] < 0) {
            is_on_grid_aux[k] = false;
            best_neighbour(lat, u, xval + 4 * k, waux + 4 * k, this_scale, Laux + 4 * k);
          }
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < block_size; ++i) {
          const float w = weight[i];
          const float q = 2 * Laux[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
          scale = sumqx / sumq2;
          best = scale * sumqx;
          for (int i = 0; i < block_size; ++i) L[i] = Laux[i];
          for (int k = 0; k < bs4; ++k) is_on_grid[k] = is_on_grid_aux[k];
        }
      }
      int n_not_ongrid = 0;
      for (int k = 0; k < bs4; ++k)
        if (!is_on_grid[k]) ++n_not_ongrid;
      if (n_not_ongrid > 0 && scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < bs4; ++k) {
          // ggml refits every group here, on the grid or not ("//if (is_on_grid[k]) continue;").
          uint16_t u = 0;
          for (int i = 0; i < 4; ++i) {
            int l = nearest_int(0.5f * (id * xval[4 * k + i] - 1));
            l = l < 0 ? 0 : l > kMaxQ - 1 ? kMaxQ - 1 : l;
            u |= static_cast<uint16_t>(l << 3 * i);
          }
          int grid_index = lat.map[u];
          if (grid_index < 0)
            grid_index = best_neighbour(lat, u, xval + 4 * k, waux + 4 * k, scale, L + 4 * k);
          const int8_t* pg = lat.point(grid_index);
          for (int i = 0; i < 4; ++i) L[4 * k + i] = static_cast<int8_t>((pg[i] - 1) / 2);
        }
        float sumqx = 0, sumq2 = 0;
        for (int i = 0; i < block_size; ++i) {
          const float w = weight[i];
          const float q = 2 * L[i] + 1;
          sumqx += w * xval[i] * q;
          sumq2 += w * q * q;
        }
        if (sumq2 > 0) scale = sumqx / sumq2;
      }
      if (scale < 0) {
        scale = -scale;
        for (int k = 0; k < bs8; ++k) block_signs[k] = static_cast<uint8_t>(~block_signs[k]);
      }
      for (int k = 0; k < bs4; ++k) {
        const int grid_index = iq3_on_grid(lat, L + 4 * k, "iq3_s");
        qs[qs_at + static_cast<uint32_t>(k)] = static_cast<uint8_t>(grid_index & 255);
        const uint32_t at = ib * bs4 + static_cast<uint32_t>(k);
        qh[at / 8] |= static_cast<uint8_t>((grid_index >> 8) << (at % 8));
      }
      qs_at += bs4;
      for (int k = 0; k < bs8; ++k) signs[signs_at + static_cast<uint32_t>(k)] = block_signs[k];
      signs_at += bs8;
      iq3_check_scale(scale, "iq3_s");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (max_scale) {
      const float d = max_scale / 31;
      store_iq3_half(block, d * 1.033f);
      const float id = 1 / d;
      for (uint32_t ib = 0; ib < QK_K / block_size; ib += 2) {
        int l1 = nearest_int(0.5f * (id * scales[ib + 0] - 1));
        l1 = l1 < 0 ? 0 : l1 > 15 ? 15 : l1;
        int l2 = nearest_int(0.5f * (id * scales[ib + 1] - 1));
        l2 = l2 < 0 ? 0 : l2 > 15 ? 15 : l2;
        block_scales[ib / 2] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
    }
    std::memcpy(block + 2, qs, sizeof qs);
    std::memcpy(block + 2 + sizeof qs, qh, sizeof qh);
    std::memcpy(block + 2 + sizeof qs + sizeof qh, signs, sizeof signs);
    std::memcpy(block + 2 + sizeof qs + sizeof qh + sizeof signs, block_scales,
                sizeof block_scales);
  }
}

}  // namespace gauntlet::core::types::iq
