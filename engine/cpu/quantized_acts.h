#pragma once
// A pass's activations rounded to 8-bit integers for the cpu device's integer dot products, as
// llama.cpp's CPU backend rounds them (ggml-cpu.c's vec_dot_type): Q8_0 blocks of 32 against the
// 32-element weight types, Q8_K blocks of 256 against the K-quants.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/reference/thread_pool.h"

namespace gauntlet::engine::cpu {

enum class ActKind { q8_0, q8_K };

// Every token's n activations: token t's codes at qs[t * n], its scales at d[t * scales()], its
// sums at sums[t * sum_count()].
struct QuantizedActs {
  ActKind kind = ActKind::q8_0;
  uint64_t n = 0;
  size_t tokens = 0;
  std::vector<int8_t> qs;
  // q8_0: one scale per 32 (f16-rounded, as block_q8_0 stores it); q8_K: one per 256.
  std::vector<float> d;
  // The sum of the codes per 32 (q8_0) or per 16 (q8_K's bsums).
  std::vector<int16_t> sums;

  uint64_t scales() const { return kind == ActKind::q8_0 ? n / 32 : n / 256; }
  uint64_t sum_count() const { return kind == ActKind::q8_0 ? n / 32 : n / 16; }
  const int8_t* codes(size_t t) const { return qs.data() + t * n; }
  const float* scale(size_t t) const { return d.data() + t * scales(); }
  const int16_t* sum(size_t t) const { return sums.data() + t * sum_count(); }
};

// Rounds n floats of each of `tokens` tokens (token t's at x + t * stride) into `out`, the tokens
// spread over the pool. n must be a multiple of 32 (q8_0) or 256 (q8_K).
void quantize_acts(ActKind kind, const float* x, uint64_t stride, size_t tokens, uint64_t n,
                   reference::ThreadPool& pool, QuantizedActs& out);

}  // namespace gauntlet::engine::cpu
