#pragma once
// The cpu device's integer dot products of weight rows in their own types with activations
// rounded to 8 bits (quantized_acts.h), in SIMD through Google Highway, dispatched at run time to
// the best instruction set the processor has. Each follows llama.cpp's ggml_vec_dot_<type>_q8_*
// (ggml-cpu/quants.c, and arch/x86/quants.c for the AVX2 forms): q8_0, q4_0, mxfp4, q4_K and
// q6_K here; the lattice types and iq4_nl / iq4_xs in lattice_dots.h.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/tensor_type.h"
#include "engine/cpu/interleaved.h"
#include "engine/cpu/quantized_acts.h"

namespace gauntlet::engine::cpu {

// The activations a type's kernel takes, or none where it has no fast kernel.
std::optional<ActKind> fast_kernel_acts(core::TensorType type);

// Rows [r0, r1) of a matrix of `type` (row r at w + r * row_bytes, n = acts.n elements) against
// every token of `acts`: token t's result for row r into out[t * out_stride + r].
void fast_rows(core::TensorType type, const std::byte* w, uint64_t row_bytes, uint64_t r0,
               uint64_t r1, const QuantizedActs& acts, float* out, uint64_t out_stride);

// Whether this processor runs the interleaved kernels (vectors of eight floats: AVX2, AVX-512);
// elsewhere q4_0, q8_0 and mxfp4 stay in their file's layout.
bool interleaved_kernels();
// Groups [g0, g1) of eight rows of an interleaved matrix against every token of `acts`: token t's
// result for row r into out[t * out_stride + r].
void interleaved_rows(const InterleavedMatrix& m, uint64_t g0, uint64_t g1,
                      const QuantizedActs& acts, float* out, uint64_t out_stride);
// The instruction set the kernels run with here (Highway's target name: "AVX2", "SSE4", ...).
const char* simd_target();

}  // namespace gauntlet::engine::cpu
