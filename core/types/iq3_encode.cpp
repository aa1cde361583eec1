// The iq3 encoders, ggml-quants.c's quantize_iq3_xxs (quantize_row_iq3_xxs_impl with grid_size
// 256) and quantize_iq3_s (quantize_row_iq3_s_impl with block_size 32), line by line: the same
// float operations in the same order, the same int/float conversions and ties. Per 32 values:
// weights qw * sqrt(sigma2 + x^2), or x^2 without an importance row as in ggml; groups of 4
// magnitudes fitted to the grid under 31 (iq3_xxs) or 19 (iq3_s) trial scales, the best
// least-squares fit kept; then the block's step max_scale / 31 (times ggml's fudge factor) and
// 4-bit levels. The block layouts are in iq3.cpp; the search they share is in
// iq_scale_search.cpp.
#include <cstring>

#include "core/types/iq_encode.h"
#include "core/types/iq_lattice.h"
#include "core/types/iq_scale_search.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types::iq {

namespace {

// ggml's GROUP_MAX_EPS_IQ3_XXS.
constexpr float kGroupMaxEpsIq3xxs = 1e-8f;

constexpr int kIq3MaxQ = 8;

// quantize_row_iq3_xxs_impl: 31 trial scales around max / 15, the off-grid groups refitted.
constexpr ScaleSearch kIq3xxsSearch{kIq3MaxQ, 15, 0.2f, Refit::off_grid_groups, true};
// quantize_row_iq3_s_impl: 19 trial scales, all groups refitted when any was off the grid.
constexpr ScaleSearch kIq3sSearch{kIq3MaxQ, 9, 0.2f, Refit::all_if_any_off_grid, false};

}  // namespace

// quantize_iq3_xxs / quantize_row_iq3_xxs_impl(256, ...): kMaxQ 8, 31 trial scales, signs as
// iq2_xxs (7 bits and their parity per 8 values).
void encode_iq3_xxs(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  const Lattice& lat = lattice(LatticeGrid::iq3xxs);
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 32];
  float weight[32];
  float xval[32];
  int8_t L[32];
  uint8_t block_signs[8];
  // ggml's q3: the grid indices (QK_K/4 bytes), then scales_and_signs (a uint32_t per 32).
  uint8_t q3[QK_K / 4];
  uint32_t scales_and_signs[QK_K / 32];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    std::byte* block = y + 98 * ibl;
    store_half(block, 0.f);
    std::memset(q3, 0, sizeof q3);
    std::memset(scales_and_signs, 0, sizeof scales_and_signs);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 2);

    for (uint32_t ib = 0; ib < QK_K / 32; ++ib) {
      const float* xb = xbl + 32 * ib;
      importance_weights(xb, quant_weights ? quant_weights + QK_K * ibl + 32 * ib : nullptr, sigma2,
                         32, NoImportance::x2, weight);
      const float max = group_magnitudes(xb, weight, 32, Signs::even, xval, block_signs);
      std::memset(L, 0, 32);
      if (max < kGroupMaxEpsIq3xxs) {
        scales[ib] = 0;
        continue;
      }
      float scale =
          search_scale(lat, kIq3xxsSearch, 32, xval, weight, max, max / (2 * kIq3MaxQ - 1), L);
      // ggml flips the signs of the first 4 of its 8 entries (all there are for 32 values).
      make_scale_positive(scale, block_signs, 4, 127);
      for (int k = 0; k < 8; ++k)
        q3[8 * ib + k] = static_cast<uint8_t>(grid_index_of(lat, L + 4 * k, "iq3_xxs"));
      scales_and_signs[ib] = static_cast<uint32_t>(block_signs[0] | (block_signs[1] << 7) |
                                                   (block_signs[2] << 14) | (block_signs[3] << 21));
      check_scale(scale, "iq3_xxs");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (!max_scale) {
      std::memset(block + 2, 0, 96);
      continue;
    }

    const float d = max_scale / 31;
    store_half(block, d * 1.0125f);  // ggml: "small improvement via this fudge factor"
    const float id = 1 / d;
    for (uint32_t ib = 0; ib < QK_K / 32; ++ib)
      scales_and_signs[ib] |= static_cast<uint32_t>(scale_level(id, scales[ib], 15)) << 28;
    std::memcpy(block + 2, q3, sizeof q3);
    std::memcpy(block + 2 + sizeof q3, scales_and_signs, sizeof scales_and_signs);
  }
}

// quantize_iq3_s / quantize_row_iq3_s_impl(32, ...): kMaxQ 8, 19 trial scales, 8 free signs per 8
// values, a 9th index bit in qh.
void encode_iq3_s(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  const Lattice& lat = lattice(LatticeGrid::iq3s);
  constexpr int block_size = 32;
  constexpr int bs4 = block_size / 4;
  constexpr int bs8 = block_size / 8;
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / block_size];
  float weight[block_size];
  float xval[block_size];
  int8_t L[block_size];
  uint8_t block_signs[bs8];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    // block_iq3_s: d, qs[QK_K/4], qh[QK_K/32], signs[QK_K/8], scales[QK_K/64].
    std::byte* block = y + 110 * ibl;
    uint8_t qs[QK_K / 4] = {};
    uint8_t qh[QK_K / 32] = {};
    uint8_t signs[QK_K / 8] = {};
    uint8_t block_scales[QK_K / 64] = {};
    store_half(block, 0.f);
    // ggml advances its qs and signs pointers only past the sub-blocks it stores (not past those
    // it skips as all zero), so what follows a skipped sub-block lands in its place.
    uint32_t qs_at = 0, signs_at = 0;

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 2);

    for (uint32_t ib = 0; ib < QK_K / block_size; ++ib) {
      const float* xb = xbl + block_size * ib;
      importance_weights(xb, quant_weights ? quant_weights + QK_K * ibl + block_size * ib : nullptr,
                         sigma2, block_size, NoImportance::x2, weight);
      const float max = group_magnitudes(xb, weight, block_size, Signs::free, xval, block_signs);
      std::memset(L, 0, block_size);
      if (!max) {
        scales[ib] = 0;
        continue;
      }
      float scale = search_scale(lat, kIq3sSearch, block_size, xval, weight, max,
                                 max / (2 * kIq3MaxQ - 1), L);
      make_scale_positive(scale, block_signs, bs8, 255);
      for (int k = 0; k < bs4; ++k) {
        const int grid_index = grid_index_of(lat, L + 4 * k, "iq3_s");
        qs[qs_at + static_cast<uint32_t>(k)] = static_cast<uint8_t>(grid_index & 255);
        const uint32_t at = ib * bs4 + static_cast<uint32_t>(k);
        qh[at / 8] |= static_cast<uint8_t>((grid_index >> 8) << (at % 8));
      }
      qs_at += bs4;
      for (int k = 0; k < bs8; ++k) signs[signs_at + static_cast<uint32_t>(k)] = block_signs[k];
      signs_at += bs8;
      check_scale(scale, "iq3_s");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (max_scale) {
      const float d = max_scale / 31;
      store_half(block, d * 1.033f);
      const float id = 1 / d;
      for (uint32_t ib = 0; ib < QK_K / block_size; ib += 2) {
        const int l1 = scale_level(id, scales[ib + 0], 15);
        const int l2 = scale_level(id, scales[ib + 1], 15);
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
