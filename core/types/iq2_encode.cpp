// The iq2 encoders, ggml-quants.c's quantize_iq2_xxs (quantize_row_iq2_xxs_impl), quantize_iq2_xs
// (quantize_row_iq2_xs_impl) and quantize_iq2_s (quantize_row_iq2_s_impl), line by line: the same
// float operations in the same order, the same int/float conversions and ties (the first of
// equals wins). Per 32 (iq2_xxs) or 16 (iq2_xs, iq2_s) values: weights qw * sqrt(sigma2 + x^2),
// the magnitudes fitted to the grid under 13 or 19 trial scales, the best least-squares fit kept;
// then the block's step max_scale / 31 and 4-bit levels. The block layouts are in iq2.cpp; the
// search they share is in iq_scale_search.cpp.
#include <cstring>

#include "core/types/iq_encode.h"
#include "core/types/iq_lattice.h"
#include "core/types/iq_scale_search.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types::iq {

namespace {

// ggml's GROUP_MAX_EPS_IQ2_S.
constexpr float kGroupMaxEpsIq2s = 1e-8f;

constexpr int kIq2MaxQ = 3;

// quantize_row_iq2_xxs_impl: 13 trial scales around make_qp_quants' fit, every group refitted.
constexpr ScaleSearch kIq2xxsSearch{kIq2MaxQ, 6, 0.1f, Refit::every_group, true};
// quantize_row_iq2_xs_impl and _iq2_s_impl: 19 trial scales around max / 5.
constexpr ScaleSearch kIq2xsSearch{kIq2MaxQ, 9, 0.1f, Refit::off_grid_groups, true};

}  // namespace

// quantize_iq2_xxs / quantize_row_iq2_xxs_impl (kMaxQ 3, groups of 32, 13 trial scales around
// make_qp_quants' fit).
void encode_iq2_xxs(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  require_importance(quant_weights, "iq2_xxs");
  const Lattice& lat = lattice(LatticeGrid::iq2xxs);
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 32];
  float weight[32];
  float xval[32];
  int8_t L[32];
  uint8_t block_signs[4];
  uint32_t q2[2 * (QK_K / 32)];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    std::byte* block = y + 66 * ibl;
    store_half(block, 0.f);
    std::memset(q2, 0, QK_K / 4);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 1);

    for (uint32_t ib = 0; ib < QK_K / 32; ++ib) {
      const float* xb = xbl + 32 * ib;
      importance_weights(xb, quant_weights + QK_K * ibl + 32 * ib, sigma2, 32,
                         NoImportance::refused, weight);
      const float max = group_magnitudes(xb, weight, 32, Signs::even, xval, block_signs);
      if (max < kGroupMaxEps) {
        scales[ib] = 0;
        std::memset(L, 0, 32);
        continue;
      }
      float scale =
          fit_positive_scale(xval, weight, 32, kIq2MaxQ + 1, reinterpret_cast<uint8_t*>(L));
      const float eff_max = scale * kIq2MaxQ;
      if (eff_max <= 0) {
        scales[ib] = 0;
        std::memset(L, 0, 32);
        continue;
      }
      scale = search_scale(lat, kIq2xxsSearch, 32, xval, weight, eff_max, scale, L);
      make_scale_positive(scale, block_signs, 4, 127);
      for (int k = 0; k < 4; ++k) {
        const int grid_index = grid_index_of(lat, L + 8 * k, "iq2_xxs");
        q2[2 * ib + 0] |= static_cast<uint32_t>(grid_index) << 8 * k;
        q2[2 * ib + 1] |= static_cast<uint32_t>(block_signs[k] << 7 * k);
      }
      check_scale(scale, "iq2_xxs");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (!max_scale) {
      std::memset(block + 2, 0, QK_K / 4);
      continue;
    }

    const float d = max_scale / 31;
    store_half(block, d);
    const float id = 1 / d;
    for (uint32_t ib = 0; ib < QK_K / 32; ++ib)
      q2[2 * ib + 1] |= static_cast<uint32_t>(scale_level(id, scales[ib], 15)) << 28;
    std::memcpy(block + 2, q2, QK_K / 4);
  }
}

// quantize_iq2_xs / quantize_row_iq2_xs_impl (kMaxQ 3, groups of 16, 19 trial scales).
void encode_iq2_xs(const float* x, std::byte* y, uint64_t n, const float* quant_weights) {
  require_importance(quant_weights, "iq2_xs");
  const Lattice& lat = lattice(LatticeGrid::iq2xs);
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 16];
  float weight[16];
  float xval[16];
  int8_t L[16];
  uint8_t block_signs[2];
  uint16_t q2[2 * (QK_K / 16)];
  uint8_t block_scales[QK_K / 32];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    std::byte* block = y + 74 * ibl;
    store_half(block, 0.f);
    std::memset(q2, 0, QK_K / 4);
    std::memset(block_scales, 0, QK_K / 32);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 1);

    for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
      const float* xb = xbl + 16 * ib;
      importance_weights(xb, quant_weights + QK_K * ibl + 16 * ib, sigma2, 16,
                         NoImportance::refused, weight);
      const float max = group_magnitudes(xb, weight, 16, Signs::even, xval, block_signs);
      std::memset(L, 0, 16);
      if (max < kGroupMaxEps) {
        scales[ib] = 0;
        continue;
      }
      float scale =
          search_scale(lat, kIq2xsSearch, 16, xval, weight, max, max / (2 * kIq2MaxQ - 1), L);
      make_scale_positive(scale, block_signs, 2, 127);
      for (int k = 0; k < 2; ++k) {
        const int grid_index = grid_index_of(lat, L + 8 * k, "iq2_xs");
        q2[2 * ib + k] = static_cast<uint16_t>(grid_index | (block_signs[k] << 9));
      }
      check_scale(scale, "iq2_xs");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (!max_scale) {
      std::memset(block + 2, 0, QK_K / 4);
      std::memcpy(block + 2 + QK_K / 4, block_scales, QK_K / 32);
      continue;
    }

    const float d = max_scale / 31;
    store_half(block, d);
    const float id = 1 / d;
    for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
      const int l = scale_level(id, scales[ib], 15);
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
  const uint64_t nbl = n / QK_K;

  float scales[QK_K / 16];
  float weight[16];
  float xval[16];
  int8_t L[16];
  uint8_t block_signs[2];

  for (uint64_t ibl = 0; ibl < nbl; ++ibl) {
    // block_iq2_s: d, qs[QK_K/4] (indices' low bytes, then the signs), qh[QK_K/32], scales.
    std::byte* block = y + 82 * ibl;
    uint8_t qs[QK_K / 4] = {};
    uint8_t qh[QK_K / 32] = {};
    uint8_t block_scales[QK_K / 32] = {};
    store_half(block, 0.f);

    float max_scale = 0;

    const float* xbl = x + QK_K * ibl;
    const float sigma2 = block_sigma2(xbl, 2);

    for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
      const float* xb = xbl + 16 * ib;
      importance_weights(xb, quant_weights ? quant_weights + QK_K * ibl + 16 * ib : nullptr, sigma2,
                         16, NoImportance::quarter_sigma2_plus_x2, weight);
      const float max = group_magnitudes(xb, weight, 16, Signs::free, xval, block_signs);
      std::memset(L, 0, 16);
      if (max < kGroupMaxEpsIq2s) {
        scales[ib] = 0;
        continue;
      }
      float scale =
          search_scale(lat, kIq2xsSearch, 16, xval, weight, max, max / (2 * kIq2MaxQ - 1), L);
      make_scale_positive(scale, block_signs, 2, 255);
      for (int k = 0; k < 2; ++k) {
        const int grid_index = grid_index_of(lat, L + 8 * k, "iq2_s");
        const uint32_t i8 = 2 * ib + k;
        qs[i8] = static_cast<uint8_t>(grid_index & 255);
        qh[i8 / 4] |= static_cast<uint8_t>((grid_index >> 8) << 2 * (i8 % 4));
        qs[QK_K / 8 + i8] = block_signs[k];
      }
      check_scale(scale, "iq2_s");
      scales[ib] = scale;
      max_scale = max_scale > scale ? max_scale : scale;
    }

    if (max_scale) {
      const float d = max_scale / 31;
      store_half(block, d * 0.9875f);
      const float id = 1 / d;
      for (uint32_t ib = 0; ib < QK_K / 16; ++ib) {
        const int l = scale_level(id, scales[ib], 15);
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
