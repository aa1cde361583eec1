#pragma once
// The cpu device's integer dot products of the lattice weight types (iq2_xxs, iq2_xs, iq2_s,
// iq3_xxs, iq3_s, iq1_s, iq1_m) with Q8_K activations (quantized_acts.h), of the non-linear
// iq4_xs (Q8_K) and iq4_nl (Q8_0), of the ternary tq1_0 and tq2_0 (Q8_K), and of nvfp4, q1_0 and
// q2_0 (Q8_0), each following llama.cpp's ggml_vec_dot_<type>_q8_K_generic or
// ggml_vec_dot_<type>_q8_0_generic (ggml-cpu/quants.c): the grid entries, their signs and the
// activation codes summed in integers per 32 elements, times the block's levels, then one float
// scale per 256 (and iq1's delta through the activations' sums per 16). Plain C++, no Highway:
// the grids are lookups, and the small integer loops vectorise.
#include <cstddef>
#include <cstdint>

#include "core/tensor_type.h"
#include "engine/cpu/quantized_acts.h"

namespace gauntlet::engine::cpu {

// One row of n elements against one token's codes q, scales d (one per 256 for Q8_K, per 32 for
// Q8_0) and sums (per 16 for Q8_K, per 32 for Q8_0).
using LatticeDot = float (*)(const uint8_t* row, const int8_t* q, const float* d,
                             const int16_t* sums, uint64_t n);

// A type's kernel and the activations it takes.
struct LatticeKernel {
  core::TensorType type;
  ActKind acts;
  LatticeDot dot;
};

// The kernel of a type this file has one for, or nullptr.
const LatticeKernel* lattice_kernel(core::TensorType type);

// Row `row` of `type` against token t of `acts` (of the kind its kernel takes).
float lattice_row_dot(core::TensorType type, const uint8_t* row, const QuantizedActs& acts,
                      size_t t);

// Rows [r0, r1) of a lattice matrix (row r at w + r * row_bytes) against every token of `acts`:
// token t's result for row r into out[t * out_stride + r].
void lattice_rows(core::TensorType type, const std::byte* w, uint64_t row_bytes, uint64_t r0,
                  uint64_t r1, const QuantizedActs& acts, float* out, uint64_t out_stride);

}  // namespace gauntlet::engine::cpu
