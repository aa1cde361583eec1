// The shared pieces of ggml-quants.c's lattice encoders (iq_scale_search.h says which).
#include "core/types/iq_scale_search.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/half.h"
#include "core/types/k_fit.h"

namespace gauntlet::core::types::iq {

namespace {

// sumqx = sum w x q and sumq2 = sum w q^2 with q = 2l + 1, in ggml's order.
struct Sums {
  float sumqx = 0;
  float sumq2 = 0;
};

template <int n>
Sums level_sums(const float* weight, const float* xval, const int8_t* L) {
  float sumqx = 0, sumq2 = 0;
  for (int i = 0; i < n; ++i) {
    const float w = weight[i];
    const float q = 2 * L[i] + 1;
    sumqx += w * xval[i] * q;
    sumq2 += w * q * q;
  }
  return {sumqx, sumq2};
}

// nearest_int(0.5 (id x - 1)) within 0..max_q-1.
int level_of(float id, float x, int max_q) {
  const int l = nearest_int(0.5f * (id * x - 1));
  return l < 0 ? 0 : l > max_q - 1 ? max_q - 1 : l;
}

}  // namespace

void require_importance(const float* qw, const char* type) {
  if (!qw)
    throw std::invalid_argument(std::string(type) +
                                " needs an importance matrix (imatrix): ggml's quantize_" + type +
                                " asserts on its absence");
}

float block_sigma2(const float* xbl, float factor) {
  float sumx2 = 0;
  for (uint32_t i = 0; i < QK_K; ++i) sumx2 += xbl[i] * xbl[i];
  return factor * sumx2 / QK_K;
}

void importance_weights(const float* xb, const float* qw, float sigma2, int n,
                        NoImportance fallback, float* weight) {
  if (qw) {
    for (int i = 0; i < n; ++i) weight[i] = qw[i] * sqrtf(sigma2 + xb[i] * xb[i]);
    return;
  }
  switch (fallback) {
    case NoImportance::x2:
      for (int i = 0; i < n; ++i) weight[i] = xb[i] * xb[i];
      return;
    case NoImportance::quarter_sigma2_plus_x2:
      for (int i = 0; i < n; ++i) weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
      return;
    case NoImportance::refused:
      break;
  }
  throw std::logic_error("iq encoders: no importance row for a type that needs one");
}

float max_of(const float* v, int n) {
  float max = v[0];
  for (int i = 1; i < n; ++i) max = max > v[i] ? max : v[i];
  return max;
}

float max_magnitude(const float* v, int n) {
  float max = fabsf(v[0]);
  for (int i = 1; i < n; ++i) max = max > fabsf(v[i]) ? max : fabsf(v[i]);
  return max;
}

float group_magnitudes(const float* xb, const float* weight, int n, Signs signs, float* xval,
                       uint8_t* sign_bytes) {
  for (int k = 0; k < n / 8; ++k)
    sign_bytes[k] = signs == Signs::even ? even_signs(xb + 8 * k, weight + 8 * k, xval + 8 * k)
                                         : free_signs(xb + 8 * k, xval + 8 * k);
  return max_of(xval, n);
}

namespace {

// search_scale for n values in groups of dim (constants, for the compiler's sake).
template <int dim, int n>
float search_groups(const Lattice& lat, const ScaleSearch& search, const float* xval,
                    const float* weight, float max, float scale, int8_t* L) {
  const int max_q = search.max_q;
  constexpr int ngroups = n / dim;
  float waux[n];
  int8_t Laux[n];
  bool is_on_grid[ngroups];
  bool is_on_grid_aux[ngroups];
  for (int i = 0; i < n; ++i) waux[i] = sqrtf(weight[i]);
  for (int k = 0; k < ngroups; ++k) is_on_grid[k] = search.start_on_grid;

  float best = 0;
  for (int is = -search.trials; is <= search.trials; ++is) {
    const float id = (2 * max_q - 1 + is * search.step) / max;
    const float this_scale = 1 / id;
    for (int k = 0; k < ngroups; ++k) {
      for (int i = 0; i < dim; ++i)
        Laux[dim * k + i] = static_cast<int8_t>(level_of(id, xval[dim * k + i], max_q));
      const uint32_t u = lat.code(Laux + dim * k);
      is_on_grid_aux[k] = true;
      if (lat.map[u] < 0) {
        is_on_grid_aux[k] = false;
        best_neighbour(lat, u, xval + dim * k, waux + dim * k, this_scale, Laux + dim * k);
      }
    }
    const auto [sumqx, sumq2] = level_sums<n>(weight, xval, Laux);
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      scale = sumqx / sumq2;
      best = scale * sumqx;
      std::memcpy(L, Laux, static_cast<size_t>(n));
      for (int k = 0; k < ngroups; ++k) is_on_grid[k] = is_on_grid_aux[k];
    }
  }

  bool refit = scale > 0;
  if (search.refit != Refit::every_group) {
    int n_not_ongrid = 0;
    for (int k = 0; k < ngroups; ++k)
      if (!is_on_grid[k]) ++n_not_ongrid;
    refit = n_not_ongrid > 0 && scale > 0;
  }
  if (refit) {
    const float id = 1 / scale;
    for (int k = 0; k < ngroups; ++k) {
      if (search.refit == Refit::off_grid_groups && is_on_grid[k]) continue;
      int8_t levels[dim];
      for (int i = 0; i < dim; ++i)
        levels[i] = static_cast<int8_t>(level_of(id, xval[dim * k + i], max_q));
      const uint32_t u = lat.code(levels);
      int grid_index = lat.map[u];
      if (grid_index < 0)
        grid_index = best_neighbour(lat, u, xval + dim * k, waux + dim * k, scale, L + dim * k);
      const int8_t* pg = lat.point(grid_index);
      for (int i = 0; i < dim; ++i) L[dim * k + i] = static_cast<int8_t>((pg[i] - 1) / 2);
    }
    const auto [sumqx, sumq2] = level_sums<n>(weight, xval, L);
    if (sumq2 > 0) scale = sumqx / sumq2;
  }
  return scale;
}

}  // namespace

float search_scale(const Lattice& lat, const ScaleSearch& search, int n, const float* xval,
                   const float* weight, float max, float scale, int8_t* L) {
  if (lat.dim == 8 && n == 32)
    return search_groups<8, 32>(lat, search, xval, weight, max, scale, L);
  if (lat.dim == 8 && n == 16)
    return search_groups<8, 16>(lat, search, xval, weight, max, scale, L);
  if (lat.dim == 4 && n == 32)
    return search_groups<4, 32>(lat, search, xval, weight, max, scale, L);
  throw std::logic_error("iq scale search: groups of " + std::to_string(lat.dim) + " in " +
                         std::to_string(n) + " values");
}

void make_scale_positive(float& scale, uint8_t* signs, int nsigns, uint8_t mask) {
  if (scale < 0) {
    // ggml: "This should never happen" (the signs flip with the scale).
    scale = -scale;
    for (int k = 0; k < nsigns; ++k) signs[k] = static_cast<uint8_t>(~signs[k] & mask);
  }
}

int grid_index_of(const Lattice& lat, const int8_t* L, const char* type) {
  const int grid_index = lat.map[lat.code(L)];
  if (grid_index < 0) throw std::logic_error(std::string(type) + ": a group off the grid");
  return grid_index;
}

void check_scale(float scale, const char* type) {
  if (!(scale >= 0)) throw std::invalid_argument(std::string(type) + ": a NaN in the row");
}

void store_half(std::byte* p, float value) {
  const uint16_t bits = f32_to_f16(value);
  std::memcpy(p, &bits, 2);
}

int scale_level(float id, float scale, int max_level) {
  const int l = nearest_int(0.5f * (id * scale - 1));
  return l < 0 ? 0 : l > max_level ? max_level : l;
}

}  // namespace gauntlet::core::types::iq
