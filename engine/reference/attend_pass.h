#pragma once
// A layer's attention for a whole pass through faster row loops (Products::dot_rows and
// add_rows, the cpu device's): head by head, the cache rows the pass's tokens read are gathered
// once into contiguous floats, then each token's scores, softmax and weighted sum of V run over
// them. Each token's sums run in the same order whatever tokens share its pass.
#include <span>

#include "engine/reference/forward.h"
#include "engine/reference/matmuls.h"

namespace gauntlet::engine::reference {

// llama.cpp's CPU flash attention for K and V caches of different types
// (ggml_compute_forward_flash_attn_ext_f16_one_chunk, ggml-cpu/ops.cpp: the tiled and split-KV
// paths need K and V of one type), where it rounds otherwise than the plain attention:
// - under flash attention an f32 K or V is cast to f16 first (build_attn_mha, llama-graph.cpp), so
//   q4_0/f32 reads an f16 V and f32/q4_0 an f16 K;
// - Q is converted to K's vec_dot_type (q_to_vec_dot): q8_0 against a quantized K
//   (round_query_q8_0), f16 (to nearest even) against an f16 K;
// - the softmax is online (M, S, expf(Mold - M), expf(s - M)) and the weighted sum of V runs in
//   f16 when V is f16 (VKQ16: ggml_vec_scale_f16, then ggml_vec_mad_f16 rounding each
//   fma(v, vs, acc) to f16), else in f32 (ggml_vec_mad_f32); the sum times 1 / S at the end.
// Whether a pass takes this path: flash attention (asked for, or implied by a quantized V), and
// either K and V of different types once cast, or a pass of fewer than 64 tokens of each sequence
// (GGML_FA_TILE_Q): llama.cpp's tiled path, which keeps Q and the sum in f32, takes K and V of one
// type (f16, or f32 cast to it) only from 64 tokens of a sequence on. A decode step is one token,
// so llama.cpp's default (flash attention on, f16 K and V) decodes through one_chunk. Under 512
// cache cells it is the whole of it; from 512 cells a one-token pass splits the cells between the
// threads (use_split_kv_path) and adds their partial sums, which this does not follow. K and V of
// one quantized type in a pass of 64 or more keep the plain attention (llama.cpp's logits to
// 2e-13 there; tests/engine/kv_cache_test.cpp).
bool flash_one_chunk(const KvCacheView& kv, uint32_t tokens_per_sequence);
// ggml_vec_dot_f16 (vec.cpp) in the order llama.cpp's x86 AVX-512 build sums it (simd-mappings.h,
// F16 AVX512 without AVX512-FP16: f16 widened to f32): per 64 elements four accumulators of 16
// lanes take fma(x, y, acc); then (acc0 + acc2) + (acc1 + acc3) and _mm512_reduce_add_ps's tree
// (lane i + i+8, i + i+4, i + i+2, i + i+1); the elements past the last 64 are added in double.
// x and y hold f16 values as floats, so each product is exact.
float dot_f16_as_ggml(const float* x, const float* y, uint32_t n);
// The type flash attention reads a cache of `stored` as (f32 cast to f16).
model::TensorType flash_read_type(model::TensorType stored);
// One query head over n positions: k_rows and v_rows hold the cache rows (hd floats each) as
// read in their flash_read_type (an f32 row already rounded to f16); `sink` one more logit or
// nullptr; the head's output into out.
void flash_one_chunk_head(const float* q, model::TensorType k_type, model::TensorType v_type,
                          const float* k_rows, const float* v_rows, uint32_t n, uint32_t hd,
                          float scale, float softcap_cap, const float* sink, float* out);

// As forward.cpp's attend for every token of the pass: Q at a.q of each token's block (already
// turned where the cache is), the scores into a.att, the heads' outputs into a.xb2.
void attend_pass(const model::ModelShape& s, const KvCacheView& kv, const planner::KvLayout& cache,
                 uint32_t l, std::span<const PassToken> tokens, float* act,
                 const planner::ActivationLayout& a, const float* sinks, ThreadPool& pool,
                 const Products& fast);

}  // namespace gauntlet::engine::reference
