// ggml-cpu's ssm_scan, Mamba-2 branch (ggml_compute_forward_ssm_scan_f32 in
// ggml/src/ggml-cpu/ops.cpp), in the order of its AVX-512 build, which node-llama-cpp 3.22.1
// loads on AVX-512 processors (simd-mappings.h: GGML_F32_STEP 64, GGML_F32_EPR 16): the state
// row in steps of 64 values held as four accumulators of 16 lanes. Each new state value is
// s dA + round(B x_dt), fused (GCC 11 contracts the source's (s dA) + (B x_dt): vmulps, then
// vfmadd231ps, in that library's ggml_compute_forward_ssm_scan); its product with C is fused into
// its lane. The four accumulators are added as GGML_F32x16_REDUCE adds them (0 + 2 and 1 + 3,
// then 0 + 1), the lanes as _mm512_reduce_add_ps. The same bits on every processor; the vector
// forms make the Mamba2 hybrids' decode on the cpu device as fast as their weights allow (a serial
// sum cost it about 6 ms a token).
#include "engine/reference/scan_step.h"

#include <cmath>

#include "core/llamafile_dot.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GAUNTLET_X86_INTRINSICS 1
#endif

namespace gauntlet::engine::reference {
namespace {

constexpr uint32_t kStep = 64, kLanes = 16;

uint32_t whole_steps(uint32_t d_state) { return d_state & ~(kStep - 1); }

// The values past the last whole 64 one at a time, fused as that library's scalar tail fuses them
// (vmulss, then vfmadd231ss for the state and again for the sum).
float scan_tail(float* s, const float* b, const float* c, float decay, float x_dt, uint32_t from,
                uint32_t d_state, float sum) {
  for (uint32_t i = from; i < d_state; ++i) {
    s[i] = std::fma(s[i], decay, b[i] * x_dt);
    sum = std::fma(s[i], c[i], sum);
  }
  return sum;
}

float scan_steps_portable(float* s, const float* b, const float* c, float decay, float x_dt,
                          uint32_t n) {
  float acc[4][kLanes] = {};
  for (uint32_t i = 0; i < n; i += kStep) {
    for (uint32_t j = 0; j < 4; ++j) {
      for (uint32_t l = 0; l < kLanes; ++l) {
        const uint32_t k = i + j * kLanes + l;
        const float input = b[k] * x_dt;
        s[k] = std::fma(s[k], decay, input);
        acc[j][l] = std::fma(s[k], c[k], acc[j][l]);
      }
    }
  }
  return core::add_accumulators_as_ggml_f32x16(acc);
}

#ifdef GAUNTLET_X86_INTRINSICS
__attribute__((target("avx512f"))) float scan_steps_avx512(float* s, const float* b, const float* c,
                                                           float decay, float x_dt, uint32_t n) {
  const __m512 vdecay = _mm512_set1_ps(decay), vx_dt = _mm512_set1_ps(x_dt);
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps()};
  for (uint32_t i = 0; i < n; i += kStep) {
    for (uint32_t j = 0; j < 4; ++j) {
      const uint32_t k = i + j * kLanes;
      const __m512 state = _mm512_fmadd_ps(_mm512_loadu_ps(s + k), vdecay,
                                           _mm512_mul_ps(_mm512_loadu_ps(b + k), vx_dt));
      _mm512_storeu_ps(s + k, state);
      acc[j] = _mm512_fmadd_ps(state, _mm512_loadu_ps(c + k), acc[j]);
    }
  }
  float lanes[4][kLanes];
  for (uint32_t j = 0; j < 4; ++j) _mm512_storeu_ps(lanes[j], acc[j]);
  return core::add_accumulators_as_ggml_f32x16(lanes);
}

// Each 16-lane accumulator as two registers of eight.
__attribute__((target("avx2,fma"))) float scan_steps_fma(float* s, const float* b, const float* c,
                                                         float decay, float x_dt, uint32_t n) {
  const __m256 vdecay = _mm256_set1_ps(decay), vx_dt = _mm256_set1_ps(x_dt);
  __m256 acc[8];
  for (auto& a : acc) a = _mm256_setzero_ps();
  for (uint32_t i = 0; i < n; i += kStep) {
    for (uint32_t h = 0; h < 8; ++h) {
      const uint32_t k = i + h * 8;
      const __m256 state = _mm256_fmadd_ps(_mm256_loadu_ps(s + k), vdecay,
                                           _mm256_mul_ps(_mm256_loadu_ps(b + k), vx_dt));
      _mm256_storeu_ps(s + k, state);
      acc[h] = _mm256_fmadd_ps(state, _mm256_loadu_ps(c + k), acc[h]);
    }
  }
  float lanes[4][kLanes];
  for (uint32_t h = 0; h < 8; ++h) _mm256_storeu_ps(&lanes[h / 2][(h % 2) * 8], acc[h]);
  return core::add_accumulators_as_ggml_f32x16(lanes);
}
#endif

using StepsFn = float (*)(float*, const float*, const float*, float, float, uint32_t);

StepsFn fastest_steps() {
#ifdef GAUNTLET_X86_INTRINSICS
  if (__builtin_cpu_supports("avx512f")) return scan_steps_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return scan_steps_fma;
#endif
  return scan_steps_portable;
}

float scan_row_with(StepsFn steps, float* s, const float* b, const float* c, float decay,
                    float x_dt, uint32_t d_state) {
  const uint32_t n = whole_steps(d_state);
  const float sum = n > 0 ? steps(s, b, c, decay, x_dt, n) : 0.0f;
  return scan_tail(s, b, c, decay, x_dt, n, d_state, sum);
}

}  // namespace

float scan_row(float* s, const float* b, const float* c, float decay, float x_dt,
               uint32_t d_state) {
  static const StepsFn steps = fastest_steps();
  return scan_row_with(steps, s, b, c, decay, x_dt, d_state);
}

float scan_row_portable(float* s, const float* b, const float* c, float decay, float x_dt,
                        uint32_t d_state) {
  return scan_row_with(scan_steps_portable, s, b, c, decay, x_dt, d_state);
}

}  // namespace gauntlet::engine::reference
