#pragma once
// What ggml-quants.c's lattice encoders repeat nearly verbatim, once: the weights and sigma2 of
// quantize_row_iq2_xxs_impl, _iq2_xs_impl, _iq2_s_impl, _iq3_xxs_impl, _iq3_s_impl, _iq1_s_impl and
// _iq1_m_impl; the per-block scale search of the iq2 and iq3 ones (trial scales, rounding each
// group to the lattice levels, the map and iq2/iq3_find_best_neighbour, the best sumqx^2 / sumq2,
// the refit at the chosen scale); the sign flip of a negative scale; the checks before storing
// (GGML_ABORT on a group off the grid, GGML_ASSERT(scale >= 0)); the 4- or 3-bit block scales.
// Each keeps ggml's float operations in ggml's order. Internal to core/types/.
#include <cstddef>
#include <cstdint>

#include "core/types/iq_lattice.h"

namespace gauntlet::core::types::iq {

// ggml's quantize_iq2_xxs, _iq2_xs and _iq1_s GGML_ASSERT(quant_weights): std::invalid_argument
// naming the type and the importance matrix when qw is null.
void require_importance(const float* qw, const char* type);

// sigma2 of a super-block of QK_K values xbl: factor * sum x^2 / QK_K (factor 1 in
// quantize_row_iq2_xxs_impl and _iq2_xs_impl, 2 in the others).
float block_sigma2(const float* xbl, float factor);

// What ggml weighs a value by without an importance row.
enum class NoImportance {
  refused,                 // iq2_xxs, iq2_xs, iq1_s: the encoder refuses before (ggml asserts)
  x2,                      // iq3_xxs, iq3_s, iq1_m: x^2
  quarter_sigma2_plus_x2,  // iq2_s: 0.25 sigma2 + x^2
};

// The weights of n values xb: qw * sqrt(sigma2 + x^2), or without qw the fallback's.
void importance_weights(const float* xb, const float* qw, float sigma2, int n,
                        NoImportance fallback, float* weight);

// The largest of n values, and of their magnitudes, as ggml's loops take them.
float max_of(const float* v, int n);
float max_magnitude(const float* v, int n);

// How an encoder signs its groups of 8: 7 bits and their parity (even_signs: iq2_xxs, iq2_xs,
// iq3_xxs) or 8 free bits (free_signs: iq2_s, iq3_s).
enum class Signs { even, free };

// A sub-block's n / 8 groups of 8 values xb as the iq2 and iq3 encoders take them: the magnitudes
// xval, a sign byte a group, and the largest magnitude, which it returns.
float group_magnitudes(const float* xb, const float* weight, int n, Signs signs, float* xval,
                       uint8_t* sign_bytes);

// Which groups ggml refits to the grid at the scale the trials chose.
enum class Refit {
  // _iq2_xxs_impl: all of them, whenever the scale is positive.
  every_group,
  // _iq2_xs_impl, _iq2_s_impl, _iq3_xxs_impl: those off the grid in the best trial.
  off_grid_groups,
  // _iq3_s_impl: all of them ("//if (is_on_grid[k]) continue;"), when any was off the grid.
  all_if_any_off_grid,
};

// One encoder's trials: ids (2 max_q - 1 + is * step) / max for is in -trials..trials, levels
// 0..max_q-1 (values 2l + 1), groups of the lattice's dim values.
struct ScaleSearch {
  int max_q;
  int trials;
  float step;
  Refit refit;
  bool start_on_grid;  // is_on_grid before the trials: true, but false in _iq3_s_impl
};

// The per-block search of quantize_row_iq2_xxs_impl, _iq2_xs_impl, _iq2_s_impl, _iq3_xxs_impl and
// _iq3_s_impl over n magnitudes xval (n / dim groups) weighted by weight (the neighbour search by
// sqrt(weight)): starting from scale, each trial rounds the groups to levels, replaces an
// off-grid group by its best neighbour and keeps the levels of the largest sumqx^2 / sumq2 (the
// first of equals) in L; then the refit, and the least-squares scale of the levels, which it
// returns (negative, NaN or the start scale as ggml leaves it). L holds the start levels on entry.
// n is 32 or 16 for the 8-value lattices, 32 for the 4-value ones (std::logic_error otherwise).
float search_scale(const Lattice& lat, const ScaleSearch& search, int n, const float* xval,
                   const float* weight, float max, float scale, int8_t* L);

// ggml's "if (scale < 0)" after the search: the scale made positive and each of the nsigns sign
// bytes flipped within mask (127 for the 7 bits of the even-parity signs, 255 for free signs).
void make_scale_positive(float& scale, uint8_t* signs, int nsigns, uint8_t mask);

// The grid index of the levels L, and ggml's abort ("Oops: found point not on grid") when off it.
int grid_index_of(const Lattice& lat, const int8_t* L, const char* type);

// GGML_ASSERT(scale >= 0): false only for a NaN scale (a NaN in the row).
void check_scale(float scale, const char* type);

// A block's f16 step at p.
void store_half(std::byte* p, float value);

// A sub-block's scale as a level of the block step 1 / id: nearest_int(0.5 (id scale - 1)) in
// 0..max_level (15 for iq2 and iq3, 7 for iq1).
int scale_level(float id, float scale, int max_level);

}  // namespace gauntlet::core::types::iq
