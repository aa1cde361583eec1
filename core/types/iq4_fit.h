#pragma once
// What the iq4_nl and iq4_xs encoders share: ggml-quants.c's quantize_row_iq4_nl_impl, the fit of
// blocks of 32 to kvalues_iq4nl times a scale. Internal to core/types/.
#include <cstdint>

namespace gauntlet::core::types {

// ggml best_index_int8 over kvalues_iq4nl: the code of the value nearest x (the upper one on a
// tie), by bisection.
uint8_t iq4_best_index(float x);

// ggml quantize_row_iq4_nl_impl with ntry 7, as quantize_iq4_nl / quantize_iq4_xs (what
// llama.cpp's quantizer runs) call it, over one super-block of n elements (32: iq4_nl, 256:
// iq4_xs) in blocks of 32. The element weights are x^2 without an importance matrix, or given
// the super-block's importance (n values, quant_weights), importance * sqrt(sigma2 + x^2) with
// sigma2 twice the super-block's mean square. Each block's scale is the weighted
// least-squares fit of its codes, the best of 15 trial scales. One block: d is that scale and the
// codes are refit to it. Several: d = -max_scale / 32 and each block's scale is stored as a
// 6-bit level l (offset by 32; value d * (l - 32)), the codes refit to d * l. Writes d (as f32,
// to be stored as f16), the packed nibbles q4 (n / 2 bytes: byte 16 i + j holds element 32 i + j
// low and 32 i + 16 + j high) and, for several blocks, the levels (scales_h: 2 bits each,
// scales_l: 4 bits each, as block_iq4_xs).
struct Iq4Fit {
  float d;
  uint16_t scales_h;
  uint8_t scales_l[4];
};
Iq4Fit fit_iq4(const float* x, const float* importance, uint32_t n, uint8_t* q4);

}  // namespace gauntlet::core::types
