#include "core/llamafile_dot.h"

#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GAUNTLET_X86_INTRINSICS 1
#endif

namespace gauntlet::core {

float add_lanes_as_mm512_reduce(float* lanes) {
  for (int width = 8; width >= 1; width /= 2) {
    for (int i = 0; i < width; ++i) lanes[i] += lanes[i + width];
  }
  return lanes[0];
}

float add_accumulators_as_ggml_f32x16(float (&acc)[4][16]) {
  for (int l = 0; l < 16; ++l) {
    acc[0][l] += acc[2][l];
    acc[1][l] += acc[3][l];
  }
  for (int l = 0; l < 16; ++l) acc[0][l] += acc[1][l];
  return add_lanes_as_mm512_reduce(acc[0]);
}

float dot_f32_as_llamafile_portable(const float* w, const float* x, uint64_t n) {
  float lanes[16] = {};
  for (uint64_t l = 0; l < n; l += 16) {
    for (int i = 0; i < 16; ++i) lanes[i] = std::fma(w[l + i], x[l + i], lanes[i]);
  }
  return add_lanes_as_mm512_reduce(lanes);
}

namespace {

#ifdef GAUNTLET_X86_INTRINSICS
__attribute__((target("avx512f"))) float dot_avx512(const float* w, const float* x, uint64_t n) {
  __m512 acc = _mm512_setzero_ps();
  for (uint64_t l = 0; l < n; l += 16) {
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(w + l), _mm512_loadu_ps(x + l), acc);
  }
  float lanes[16];
  _mm512_storeu_ps(lanes, acc);
  return add_lanes_as_mm512_reduce(lanes);
}

// The 16 lanes as two registers of eight.
__attribute__((target("avx2,fma"))) float dot_fma(const float* w, const float* x, uint64_t n) {
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
  for (uint64_t l = 0; l < n; l += 16) {
    lo = _mm256_fmadd_ps(_mm256_loadu_ps(w + l), _mm256_loadu_ps(x + l), lo);
    hi = _mm256_fmadd_ps(_mm256_loadu_ps(w + l + 8), _mm256_loadu_ps(x + l + 8), hi);
  }
  float lanes[16];
  _mm256_storeu_ps(lanes, lo);
  _mm256_storeu_ps(lanes + 8, hi);
  return add_lanes_as_mm512_reduce(lanes);
}
#endif

using DotFn = float (*)(const float*, const float*, uint64_t);

DotFn fastest_dot() {
#ifdef GAUNTLET_X86_INTRINSICS
  if (__builtin_cpu_supports("avx512f")) return dot_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return dot_fma;
#endif
  return dot_f32_as_llamafile_portable;
}

}  // namespace

float dot_f32_as_llamafile(const float* w, const float* x, uint64_t n) {
  static const DotFn dot = fastest_dot();
  return dot(w, x, n);
}

}  // namespace gauntlet::core
