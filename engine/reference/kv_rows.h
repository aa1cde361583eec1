#pragma once
// The KV cache's rows as llama.cpp writes and reads them: each K or V row of n_embd_kv elements is
// stored in the cache's type (planner::KvPrecision) and read back dequantized, and a quantized
// cache sees its rows turned by a Walsh-Hadamard matrix first (llama.cpp's attn_rot_k /
// attn_rot_v, src/llama-kv-cache.cpp; applied in build_attn, src/llama-graph.cpp).
#include <cstddef>
#include <cstdint>

#include "engine/model/shape.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::reference {

// Stores n floats as one row of `type` at dst, as llama.cpp's CPU set_rows does (its type's
// from_float, ggml-cpu.c type_traits_cpu): f16 rounds to nearest; q4_0, q4_1, q5_0, q5_1 are
// ggml-quants.c's quantize_row_*_ref; q8_0 is the x86 AVX quantize_row_q8_0
// (ggml-cpu/arch/x86/quants.c: d = amax / 127, codes round(x * (127 / amax)) to nearest even),
// which is what llama.cpp's CPU build runs on the machines gauntlet is checked on; iq4_nl is
// quantize_row_iq4_nl_ref (ggml-quants.c: quantize_row_iq4_nl_impl with ntry -1 and weights x^2:
// one pass at d = max / -127, then d = sum(w q x) / sum(w q q)).
void store_kv_row(model::TensorType type, const float* src, std::byte* dst, uint32_t n);
// Reads n elements of a row of `type` back as floats.
void load_kv_row(model::TensorType type, const std::byte* src, float* dst, uint32_t n);
// The byte offset of element `index` (a multiple of the type's block) of a cache of `type`.
inline uint64_t kv_byte_offset(model::TensorType type, uint64_t index) {
  return model::row_bytes(type, index);
}

// The Walsh-Hadamard rotations llama.cpp applies when a cache type is quantized and the head
// dimension is a multiple of 64 (llama_kv_cache's constructor): K (and Q) in chunks of the largest
// power of two >= 64 dividing head_dim (build_input_k_rot), V (and the attention's output, turned
// back) in chunks of 64 (build_input_v_rot). 0: no rotation.
// `layer`: the layer whose head dimension counts (gemma4's differ by layer).
uint32_t k_rotation(const model::ModelShape& shape, planner::KvPrecision kv, uint32_t layer = 0);
uint32_t v_rotation(const model::ModelShape& shape, planner::KvPrecision kv, uint32_t layer = 0);
// Turns n floats in place, chunk by chunk of `chunk` (a power of two), by the orthonormal
// Sylvester-Hadamard matrix, as ggml-cpu's fast Walsh-Hadamard transform does
// (ggml_compute_forward_fwht, ops.cpp): each element times 1 / sqrtf(chunk) first, then the
// butterflies u + v, u - v for strides 1, 2, 4, ... (exact in any order of the additions' pairs, so
// the result is bit for bit llama.cpp's).
void hadamard_rotate(float* x, uint64_t n, uint32_t chunk);

// Q as llama.cpp's CPU attention sees it against a quantized K: its dot products take Q in the K
// type's vec_dot_type (ggml-cpu.c type_traits_cpu: Q8_0, or Q8_1 for q4_1 and q5_1, whose codes
// and scale are Q8_0's), both in flash attention (ops.cpp flash_attn_ext: q_to_vec_dot) and in
// the plain mul_mat. So n elements of q (whole blocks) are rounded as store_kv_row's q8_0 and read
// back. (llama.cpp's q4_1 / q5_1 dot adds the block sum as an f16, which is not reproduced.)
void round_query_q8_0(const float* q, float* out, uint32_t n);

// Whether a cache of `kv` can hold rows of this shape (a quantized type's block must divide
// head_dim); the error names the type and the figures.
core::Status check_kv_cache(const model::ModelShape& shape, planner::KvPrecision kv);

}  // namespace gauntlet::engine::reference
