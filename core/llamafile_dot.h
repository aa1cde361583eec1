#pragma once
// llama.cpp's x86 CPU backend multiplies f32 weights by f32 activations through llamafile's
// tinyBLAS (ggml/src/ggml-cpu/llamafile/sgemm.cpp, its AVX-512 build, which node-llama-cpp 3.22.1
// loads on AVX-512 processors): each output sums its row in 16 lanes, one fused multiply-add per
// element, then adds the lanes as _mm512_reduce_add_ps does (lane i + lane i+8, then i + i+4,
// i + i+2, i + i+1). The host reference sums an f32 row the same way, so that its last bits are
// llama.cpp's: a rounding to f16 or q4_0 further on (a flash-attention K, a quantized V cache)
// would otherwise turn a last-bit difference into a different code.
#include <cstdint>

namespace gauntlet::core {

// tinyBLAS takes rows of whole 16-lane steps only (ggml falls back to its own dot product
// otherwise).
constexpr bool sums_in_llamafile_order(uint64_t n) { return n > 0 && n % 16 == 0; }

// w . x over n floats (sums_in_llamafile_order(n)) in tinyBLAS's order; the same result on every
// processor (AVX-512, AVX2 with FMA, or a portable loop of std::fma).
float dot_f32_as_llamafile(const float* w, const float* x, uint64_t n);

// Sixteen lanes added as _mm512_reduce_add_ps adds them (lane i + lane i+8, then i + i+4, i + i+2,
// i + i+1); `lanes` is overwritten.
float add_lanes_as_mm512_reduce(float* lanes);

// Four accumulators of 16 lanes added as ggml's GGML_F32x16_REDUCE adds them (0 + 2 and 1 + 3,
// then 0 + 1), the lanes then as _mm512_reduce_add_ps; `acc` is overwritten.
float add_accumulators_as_ggml_f32x16(float (&acc)[4][16]);

// The portable loop alone, which the vector ones must equal bit for bit (tests).
float dot_f32_as_llamafile_portable(const float* w, const float* x, uint64_t n);

}  // namespace gauntlet::core
