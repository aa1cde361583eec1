#include "engine/cpu/quantized_acts.h"

#include <algorithm>
#include <cmath>

#include "core/half.h"

namespace gauntlet::engine::cpu {

namespace {

// llama.cpp's quantize_row_q8_0 (ggml-quants.c, and the x86 version in ggml-cpu/arch/x86/quants.c
// that the CPU backend runs, which rounds to nearest even).
void q8_0_token(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  for (uint64_t b = 0; b < n / 32; ++b) {
    const float* xb = x + b * 32;
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(xb[j]));
    const float scale = amax / 127.0f;
    const float inv = scale != 0 ? 1.0f / scale : 0.0f;
    int sum = 0;
    for (int j = 0; j < 32; ++j) {
      const auto q = static_cast<int8_t>(std::nearbyint(xb[j] * inv));
      qs[b * 32 + j] = q;
      sum += q;
    }
    d[b] = core::f16_to_f32(core::f32_to_f16(scale));
    sums[b] = static_cast<int16_t>(sum);
  }
}

// llama.cpp's quantize_row_q8_K_ref (ggml-quants.c): the scale from the element of largest
// magnitude, codes capped at 127, bsums per 16.
void q8_K_token(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  for (uint64_t b = 0; b < n / 256; ++b) {
    const float* xb = x + b * 256;
    int8_t* q = qs + b * 256;
    float max = 0, amax = 0;
    for (int j = 0; j < 256; ++j) {
      const float ax = std::fabs(xb[j]);
      if (ax > amax) {
        amax = ax;
        max = xb[j];
      }
    }
    if (amax == 0) {
      d[b] = 0;
      std::fill(q, q + 256, int8_t{0});
      std::fill(sums + b * 16, sums + b * 16 + 16, int16_t{0});
      continue;
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < 256; ++j) {
      q[j] = static_cast<int8_t>(std::min(127, static_cast<int>(std::nearbyint(iscale * xb[j]))));
    }
    for (int j = 0; j < 16; ++j) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += q[j * 16 + i];
      sums[b * 16 + j] = static_cast<int16_t>(sum);
    }
    d[b] = 1 / iscale;
  }
}

}  // namespace

void quantize_acts(ActKind kind, const float* x, uint64_t stride, size_t tokens, uint64_t n,
                   reference::ThreadPool& pool, QuantizedActs& out) {
  out.kind = kind;
  out.n = n;
  out.tokens = tokens;
  out.qs.resize(tokens * n);
  out.d.resize(tokens * out.scales());
  out.sums.resize(tokens * out.sum_count());
  auto one = kind == ActKind::q8_0 ? q8_0_token : q8_K_token;
  pool.parallel_for(tokens, [&](uint64_t t0, uint64_t t1) {
    for (uint64_t t = t0; t < t1; ++t) {
      one(x + t * stride, n, out.qs.data() + t * n, out.d.data() + t * out.scales(),
          out.sums.data() + t * out.sum_count());
    }
  });
}

}  // namespace gauntlet::engine::cpu
