// The iq1 encoders, ggml-quants.c's quantize_iq1_s (quantize_row_iq1_s_impl) and quantize_iq1_m
// (quantize_row_iq1_m_impl), line by line: the same float operations in the same order, the same
// int/float conversions and ties. Per 32 (iq1_s) or 16 (iq1_m) values: the values sorted, every
// split of them into levels -1, 0, 1 (shifted by -+IQ1S_DELTA) scored exactly from prefix sums,
// the best split's groups of 8 looked up on the iq1s grid (or its nearest neighbours); then the
// block's step and 3-bit levels. The block layouts are in iq1.cpp.
#include <cfloat>
#include <cstring>

#include "core/half.h"
#include "core/types/iq_encode.h"
#include "core/types/iq_lattice.h"
#include "core/types/iq_scale_search.h"
#include "core/types/iq_tables.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types::iq {

namespace {

// ggml's GROUP_MAX_EPS_IQ1_S and GROUP_MAX_EPS_IQ1_M.
constexpr float kGroupMaxEpsIq1s = 1e-12f;
constexpr float kGroupMaxEpsIq1m = 1e-7f;

// ggml's x_p and x_m: the values of levels 0, 1, 2 shifted by +IQ1S_DELTA and by -IQ1S_DELTA.
constexpr float kIq1Xp[3] = {-1 + kIq1Delta, kIq1Delta, 1 + kIq1Delta};
constexpr float kIq1Xm[3] = {-1 - kIq1Delta, -kIq1Delta, 1 - kIq1Delta};

// ggml's pairs array: a value and its position (an int stored in the float array there).
struct ValueAt {
  float value;
  int at;
};

// qsort(pairs, n, 2*sizeof(float), iq1_sort_helper): ascending values. Which order equal values
// come out in is the C library's; ggml's results depend on it (the prefix sums add the weights of
// equal values in that order, and a split may fall between them). This is glibc's qsort for
// arrays this small (msort.c, msort_with_tmp: a top-down merge sort, halves of n / 2 and
// n - n / 2, taking from the left while the comparison is <= 0: stable), with ggml's comparator
// (-1, 1 or 0, so a NaN compares equal to everything).
int iq1_compare(const ValueAt& l, const ValueAt& r) {
  return l.value < r.value ? -1 : l.value > r.value ? 1 : 0;
}

void iq1_merge_sort(ValueAt* b, int n, ValueAt* tmp) {
  if (n <= 1) return;
  const int n1 = n / 2;
  const int n2 = n - n1;
  ValueAt* b1 = b;
  ValueAt* b2 = b + n1;
  iq1_merge_sort(b1, n1, tmp);
  iq1_merge_sort(b2, n2, tmp);
  int i1 = 0, i2 = 0, out = 0;
  while (i1 < n1 && i2 < n2) tmp[out++] = iq1_compare(b1[i1], b2[i2]) <= 0 ? b1[i1++] : b2[i2++];
  while (i1 < n1) tmp[out++] = b1[i1++];
  for (int i = 0; i < out; ++i) b[i] = tmp[i];
}

// The values of x (block_size of them) in ggml's sorted order: idx[j] is the position of the j-th.
void iq1_sorted_positions(const float* xb, int block_size, int* idx) {
  ValueAt pairs[32];
  ValueAt tmp[32];
  for (int j = 0; j < block_size; ++j) pairs[j] = {xb[j], j};
  iq1_merge_sort(pairs, block_size, tmp);
  for (int j = 0; j < block_size; ++j) idx[j] = pairs[j].at;
}

// The grid index of 8 levels L (bits 2j), or its best neighbour's (which rewrites L); all_on_grid
// turns false when it is off the grid.
int iq1_index(const Lattice& lat, const float* xb, const float* weight, float scale,
              const float* xx, int8_t* L, bool& all_on_grid) {
  const uint32_t u = lat.code(L);
  int grid_index = lat.map[u];
  if (grid_index < 0) {
    all_on_grid = false;
    grid_index = best_neighbour_valued(lat, u, xb, weight, scale, xx, L);
  }
  return grid_index;
}

// The levels of the best split (the sorted values before i1 at level 0, to i2 at 1, the rest at 2)
// and, when the scale came out negative, the levels mirrored (2 - l) and the scale made positive,
// as quantize_row_iq1_s_impl and _iq1_m_impl do; true when it was (the shifts flip with it).
bool iq1_split_levels(const int* idx, int block_size, int i1, int i2, float& scale, int8_t* L) {
  for (int j = 0; j < i1; ++j) L[idx[j]] = 0;
  for (int j = i1; j < i2; ++j) L[idx[j]] = 1;
  for (int j = i2; j < block_size; ++j) L[idx[j]] = 2;
  if (!(scale < 0)) return false;
  for (int j = 0; j < block_size; ++j) L[j] = static_cast<int8_t>(2 - L[j]);
  scale = -scale;
  return true;
}

// quantize_row_iq1_s_impl's and _iq1_m_impl's refit when a group left the grid: the
// least-squares scale of the groups' grid points, group k's level values xx[k], kept when
// positive.
void iq1_refit(const Lattice& lat, const uint16_t* index, int ngroups, const float* const* xx,
               const float* xb, const float* weight, float& scale) {
  float sumqx = 0, sumq2 = 0;
  for (int k = 0; k < ngroups; ++k) {
    const int8_t* pg = lat.point(index[k]);
    for (int j = 0; j < 8; ++j) {
      const float w = weight[8 * k + j];
      const float q = xx[k][(pg[j] - 1) / 2];
      sumqx += w * q * xb[8 * k + j];
      sumq2 += w * q * q;
    }
  }
  if (sumqx > 0 && sumq2 > 0) scale = sumqx / sumq2;
}

// iq1_m's level values of group k (0 or 1) under the shifts best_k (0 +,+  1 +,-  2 -,+  3 -,-).
const float* iq1m_values(int best_k, int k) {
  if (k == 0) return best_k < 2 ? kIq1Xp : kIq1Xm;
  return best_k % 2 == 0 ? kIq1Xp : kIq1Xm;
}

}  // namespace

// quantize_iq1_s / quantize_row_iq1_s_impl (IQ1S_BLOCK_SIZE 32).
void encode_iq1_s(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  require_importance(quant_weights, "iq1_s");
  const Lattice& lat = lattice(LatticeGrid::iq1s);
  constexpr int block_size = 32;
  const uint64_t nbl = n / QK_K;

  const float* x_p = kIq1Xp;
  const float* x_m = kIq1Xm;

  float scales[QK_K / block_size];
  float weight[block_size];
  int8_t L[block_size];
  float sumx[block_size + 1];
  float sumw[block_size + 1];
  int idx[block_size];
  uint16_t index[block_size / 8];
  int8_t shifts[QK_K / block_size];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    // block_iq1_s: d, qs[QK_K/8], qh[QK_K/32] (uint16_t).
    std::byte* block = y + 50 * ibl;
    uint8_t qs[QK_K / 8] = {};
    uint16_t qh[QK_K / 32] = {};
    uint16_t d_bits = f32_to_f16(0.f);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 2);

    for (uint32_t ib = 0; ib < QK_K / block_size; ++ib) {
      const float* xb = xbl + block_size * ib;
      importance_weights(xb, quant_weights + QK_K * ibl + block_size * ib, sigma2, block_size,
                         NoImportance::refused, weight);
      const float max = max_magnitude(xb, block_size);
      if (max < kGroupMaxEpsIq1s) {
        scales[ib] = 0;
        shifts[ib] = 1;
        std::memset(L, 1, block_size);
        continue;
      }
      iq1_sorted_positions(xb, block_size, idx);
      sumx[0] = sumw[0] = 0;
      for (int j = 0; j < block_size; ++j) {
        const int i = idx[j];
        sumx[j + 1] = sumx[j] + weight[i] * xb[i];
        sumw[j + 1] = sumw[j] + weight[i];
      }
      float best_score = -FLT_MAX, scale = max;
      int besti1 = -1, besti2 = -1, best_shift = 0;
      for (int i1 = 0; i1 <= block_size; ++i1) {
        for (int i2 = i1; i2 <= block_size; ++i2) {
          float sumqx = (sumx[i1] - sumx[0]) * x_p[0] + (sumx[i2] - sumx[i1]) * x_p[1] +
                        (sumx[block_size] - sumx[i2]) * x_p[2];
          float sumq2 = (sumw[i1] - sumw[0]) * x_p[0] * x_p[0] +
                        (sumw[i2] - sumw[i1]) * x_p[1] * x_p[1] +
                        (sumw[block_size] - sumw[i2]) * x_p[2] * x_p[2];
          if (sumq2 > 0 && sumqx * sumqx > best_score * sumq2) {
            scale = sumqx / sumq2;
            best_score = scale * sumqx;
            besti1 = i1;
            besti2 = i2;
            best_shift = 1;
          }
          sumqx = (sumx[i1] - sumx[0]) * x_m[0] + (sumx[i2] - sumx[i1]) * x_m[1] +
                  (sumx[block_size] - sumx[i2]) * x_m[2];
          sumq2 = (sumw[i1] - sumw[0]) * x_m[0] * x_m[0] + (sumw[i2] - sumw[i1]) * x_m[1] * x_m[1] +
                  (sumw[block_size] - sumw[i2]) * x_m[2] * x_m[2];
          if (sumq2 > 0 && sumqx * sumqx > best_score * sumq2) {
            scale = sumqx / sumq2;
            best_score = scale * sumqx;
            besti1 = i1;
            besti2 = i2;
            best_shift = -1;
          }
        }
      }
      if (besti1 < 0 || besti2 < 0 || best_shift == 0) {
        scales[ib] = 0;
        shifts[ib] = 1;
        std::memset(L, 1, block_size);
        continue;
      }
      if (iq1_split_levels(idx, block_size, besti1, besti2, scale, L)) best_shift = -best_shift;
      bool all_on_grid = true;
      const float* xx = best_shift == 1 ? x_p : x_m;
      for (int k = 0; k < block_size / 8; ++k) {
        index[k] = static_cast<uint16_t>(
            iq1_index(lat, xb + 8 * k, weight + 8 * k, scale, xx, L + 8 * k, all_on_grid));
      }
      if (!all_on_grid) {
        const float* const xxs[block_size / 8] = {xx, xx, xx, xx};
        iq1_refit(lat, index, block_size / 8, xxs, xb, weight, scale);
      }
      uint16_t h = 0;
      for (int k = 0; k < block_size / 8; ++k) {
        qs[(block_size / 8) * ib + static_cast<uint32_t>(k)] = static_cast<uint8_t>(index[k] & 255);
        h |= static_cast<uint16_t>((index[k] >> 8) << 3 * k);
      }
      qh[ib] = h;
      check_scale(scale, "iq1_s");
      scales[ib] = scale;
      shifts[ib] = static_cast<int8_t>(best_shift);
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (max_scale) {
      const float d = max_scale / 15;
      // ggml: "1.125f is another fudge factor. Don't ask me why it is needed."
      d_bits = f32_to_f16(d * 1.125f);
      const float id = 1 / d;
      for (uint32_t ib = 0; ib < QK_K / block_size; ++ib) {
        int l = scale_level(id, scales[ib], 7);
        if (shifts[ib] == -1) l |= 8;
        qh[ib] |= static_cast<uint16_t>(l << 12);
      }
    }
    std::memcpy(block, &d_bits, 2);
    std::memcpy(block + 2, qs, sizeof qs);
    std::memcpy(block + 2 + sizeof qs, qh, sizeof qh);
  }
}

// quantize_iq1_m / quantize_row_iq1_m_impl (IQ1M_BLOCK_SIZE 16; each group of 8 its own shift;
// without weights ggml weighs each value by x^2).
void encode_iq1_m(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  const Lattice& lat = lattice(LatticeGrid::iq1s);
  constexpr int block_size = 16;
  const uint64_t nbl = n / QK_K;

  const float* x_p = kIq1Xp;
  const float* x_m = kIq1Xm;
  const uint8_t masks[4] = {0x00, 0x80, 0x08, 0x88};

  float scales[QK_K / block_size];
  float weight[block_size];
  int8_t L[block_size];
  int idx[block_size];
  uint16_t index[block_size / 8];
  int8_t shifts[QK_K / block_size];
  float sumqx[4], sumq2[4];

  const auto weigh = [&](const float* xb, uint64_t ibl, uint32_t ib, float sigma2) {
    importance_weights(xb, quant_weights ? quant_weights + QK_K * ibl + block_size * ib : nullptr,
                       sigma2, block_size, NoImportance::x2, weight);
  };

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    // block_iq1_m: qs[QK_K/8], qh[QK_K/16], scales[QK_K/32] (read as 4 uint16_t).
    std::byte* block = y + 56 * ibl;
    uint8_t qs[QK_K / 8] = {};
    uint8_t qh[QK_K / 16] = {};
    uint16_t sc[QK_K / 64] = {};

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 2);

    for (uint32_t ib = 0; ib < QK_K / block_size; ++ib) {
      const float* xb = xbl + block_size * ib;
      weigh(xb, ibl, ib, sigma2);
      const float max = max_magnitude(xb, block_size);
      if (max < kGroupMaxEpsIq1m) {
        scales[ib] = 0;
        shifts[ib] = 0;
        std::memset(L, 1, block_size);
        continue;
      }
      iq1_sorted_positions(xb, block_size, idx);
      float best_score = -FLT_MAX, scale = max;
      int besti1 = -1, besti2 = -1, best_k = -1;
      // best_k: 0 +,+  1 +,-  2 -,+  3 -,- (the shifts of the two groups of 8). Prefix sums per
      // half, as ggml keeps them.
      {
        float px[2][block_size + 1];
        float pw[2][block_size + 1];
        px[0][0] = px[1][0] = 0;
        pw[0][0] = pw[1][0] = 0;
        for (int j = 0; j < block_size; ++j) {
          const int i = idx[j];
          const int h = i < block_size / 2 ? 0 : 1;
          px[h][j + 1] = px[h][j] + weight[i] * xb[i];
          px[1 - h][j + 1] = px[1 - h][j];
          pw[h][j + 1] = pw[h][j] + weight[i];
          pw[1 - h][j + 1] = pw[1 - h][j];
        }
        const float txs[2] = {px[0][block_size], px[1][block_size]};
        const float tws[2] = {pw[0][block_size], pw[1][block_size]};
        const float p2 = x_p[2], m2 = x_m[2];
        const float cp1 = x_p[0] * x_p[0] - x_p[1] * x_p[1];
        const float cp2 = x_p[1] * x_p[1] - x_p[2] * x_p[2];
        const float cm1 = x_m[0] * x_m[0] - x_m[1] * x_m[1];
        const float cm2 = x_m[1] * x_m[1] - x_m[2] * x_m[2];
        for (int i1 = 0; i1 <= block_size; ++i1) {
          for (int i2 = i1; i2 <= block_size; ++i2) {
            float qx_p[2], qx_m[2], q2_p[2], q2_m[2];
            for (int h = 0; h < 2; ++h) {
              const float sx = px[h][i1] + px[h][i2];
              qx_p[h] = txs[h] * p2 - sx;
              qx_m[h] = txs[h] * m2 - sx;
              q2_p[h] = tws[h] * p2 * p2 + pw[h][i1] * cp1 + pw[h][i2] * cp2;
              q2_m[h] = tws[h] * m2 * m2 + pw[h][i1] * cm1 + pw[h][i2] * cm2;
            }
            sumqx[0] = qx_p[0] + qx_p[1];
            sumqx[1] = qx_p[0] + qx_m[1];
            sumqx[2] = qx_m[0] + qx_p[1];
            sumqx[3] = qx_m[0] + qx_m[1];
            sumq2[0] = q2_p[0] + q2_p[1];
            sumq2[1] = q2_p[0] + q2_m[1];
            sumq2[2] = q2_m[0] + q2_p[1];
            sumq2[3] = q2_m[0] + q2_m[1];
            for (int k = 0; k < 4; ++k) {
              if (sumq2[k] > 0 && sumqx[k] * sumqx[k] > best_score * sumq2[k]) {
                scale = sumqx[k] / sumq2[k];
                best_score = scale * sumqx[k];
                besti1 = i1;
                besti2 = i2;
                best_k = k;
              }
            }
          }
        }
      }
      if (besti1 < 0 || besti2 < 0 || best_k < 0) {
        scales[ib] = 0;
        shifts[ib] = 0;
        std::memset(L, 1, block_size);
        continue;
      }
      if (iq1_split_levels(idx, block_size, besti1, besti2, scale, L))
        best_k = best_k == 0 ? 3 : best_k == 1 ? 2 : best_k == 2 ? 1 : 0;
      bool all_on_grid = true;
      const float* const xxs[block_size / 8] = {iq1m_values(best_k, 0), iq1m_values(best_k, 1)};
      for (int k = 0; k < block_size / 8; ++k) {
        index[k] = static_cast<uint16_t>(
            iq1_index(lat, xb + 8 * k, weight + 8 * k, scale, xxs[k], L + 8 * k, all_on_grid));
      }
      if (!all_on_grid) iq1_refit(lat, index, block_size / 8, xxs, xb, weight, scale);
      qs[2 * ib + 0] = static_cast<uint8_t>(index[0] & 255);
      qs[2 * ib + 1] = static_cast<uint8_t>(index[1] & 255);
      qh[ib] = static_cast<uint8_t>((index[0] >> 8) | ((index[1] >> 8) << 4));
      check_scale(scale, "iq1_m");
      scales[ib] = scale;
      shifts[ib] = static_cast<int8_t>(best_k);
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (max_scale) {
      float d = max_scale / 15;
      const float id = 1 / d;
      float sumqx_f = 0, sumq2_f = 0;
      for (uint32_t ib = 0; ib < QK_K / block_size; ++ib) {
        const int l = scale_level(id, scales[ib + 0], 7);
        sc[ib / 4] |= static_cast<uint16_t>(l << 3 * (ib % 4));
        qh[ib] |= masks[shifts[ib]];
        const float* xb = xbl + block_size * ib;
        weigh(xb, ibl, ib, sigma2);
        for (int k = 0; k < block_size / 8; ++k) {
          const float* xx = iq1m_values(shifts[ib], k);
          const int8_t* pg =
              lat.point(qs[2 * ib + static_cast<uint32_t>(k)] + ((qh[ib] << (8 - 4 * k)) & 0x700));
          for (int j = 0; j < 8; ++j) {
            const float w = weight[8 * k + j];
            const float q = xx[(pg[j] - 1) / 2] * (2 * l + 1);
            sumqx_f += w * q * xb[8 * k + j];
            sumq2_f += w * q * q;
          }
        }
      }
      if (sumq2_f > 0) d = sumqx_f / sumq2_f;
      // ggml: "1.1125f is another fudge factor. Don't ask me why it is needed."
      const uint16_t s = f32_to_f16(d * 1.1125f);
      sc[0] |= static_cast<uint16_t>((s & 0x000f) << 12);
      sc[1] |= static_cast<uint16_t>((s & 0x00f0) << 8);
      sc[2] |= static_cast<uint16_t>((s & 0x0f00) << 4);
      sc[3] |= static_cast<uint16_t>((s & 0xf000) << 0);
    }
    std::memcpy(block, qs, sizeof qs);
    std::memcpy(block + sizeof qs, qh, sizeof qh);
    std::memcpy(block + sizeof qs + sizeof qh, sc, sizeof sc);
  }
}

}  // namespace gauntlet::core::types::iq
