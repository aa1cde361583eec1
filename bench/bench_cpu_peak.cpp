// The cpu device's compute peak (stress/simd_peak.h: Highway's FMA, as its kernels run) beside a
// plain FMA loop written directly in AVX2 intrinsics, in the same run: both on every hardware
// thread, independent accumulator chains, best of several runs. The counter `of_plain` is the
// peak the report gives the cpu device as a share of what the plain loop reaches.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "stress/simd_peak.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

#if defined(__x86_64__)
constexpr int kChains = 12;  // FMA latency times throughput on current x86 cores, and some over

// kChains independent 8-float FMA chains, `iterations` steps each; returns a value that depends
// on every step so the loop cannot be dropped.
__attribute__((target("avx2,fma"))) float plain_fma_loop(uint64_t iterations) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (uint64_t i = 0; i < iterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0] + out[7];
}

// GFLOP/s of the plain loop on every hardware thread at once, best of `reps` runs of about
// `seconds` each.
double plain_peak_gflops(double seconds, int reps) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  uint64_t iterations = 1 << 16;
  double best = 0;
  volatile float sink = 0;
  for (int r = 0; r < reps;) {
    std::vector<std::thread> pool;
    std::vector<float> results(threads);
    const auto start = std::chrono::steady_clock::now();
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] { results[t] = plain_fma_loop(iterations); });
    }
    for (auto& th : pool) th.join();
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (float v : results) sink = sink + v;
    if (s < seconds / 2) {
      iterations *= 2;
      continue;
    }
    best = std::max(best, 2.0 * 8 * kChains * static_cast<double>(iterations) * threads / s / 1e9);
    ++r;
  }
  return best;
}
#endif

void BM_CpuPeakAgainstPlainFma(benchmark::State& state) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("the plain loop needs AVX2 and FMA");
    return;
  }
  double peak = 0, plain = 0;
  const char* target = "";
  for (auto _ : state) {
    const auto simd = gauntlet::stress::measure_simd_f32_peak(0.3, 3);
    peak = simd.gflops;
    target = simd.target;
    plain = plain_peak_gflops(0.3, 3);
  }
  state.counters["peak_GFLOPs"] = peak;
  state.counters["plain_GFLOPs"] = plain;
  state.counters["of_plain"] = plain > 0 ? peak / plain : 0;
  state.SetLabel(std::string("the cpu device's peak (") + target +
                 ") / plain AVX2 FMA, all threads");
#else
  state.SkipWithError("the plain loop is written for x86-64");
#endif
}

}  // namespace

BENCHMARK(BM_CpuPeakAgainstPlainFma)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
