#include "stress/simd_peak.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "stress/simd_peak.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// foreach_target.h must come first.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gauntlet::stress {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Independent chains: more than the FMA latency times the FMA ports (4 x 2 on AVX2 cores).
constexpr int kChains = 12;

// kChains chains of x = x * m + a, unrolled 4 times per iteration; returns a sum so that nothing
// is optimised away.
float FmaChains(uint64_t iterations, float seed) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, 0.999999f), a = hn::Set(d, 1e-7f);
  hn::Vec<decltype(d)> x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = hn::Set(d, seed + static_cast<float>(c));
  for (uint64_t i = 0; i < iterations; ++i) {
    for (int u = 0; u < 4; ++u) {
      for (int c = 0; c < kChains; ++c) x[c] = hn::MulAdd(x[c], m, a);
    }
  }
  auto sum = x[0];
  for (int c = 1; c < kChains; ++c) sum = hn::Add(sum, x[c]);
  return hn::GetLane(hn::SumOfLanes(d, sum));
}

uint32_t F32Lanes() { return static_cast<uint32_t>(hn::Lanes(hn::ScalableTag<float>())); }
const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::stress
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gauntlet::stress {

HWY_EXPORT(FmaChains);
HWY_EXPORT(F32Lanes);
HWY_EXPORT(TargetName);

namespace {

// Seconds for every thread to run `iterations` at once.
double run_all(unsigned threads, uint64_t iterations) {
  std::vector<std::thread> pool;
  std::vector<float> sink(threads);
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back(
        [&, t] { sink[t] = HWY_DYNAMIC_DISPATCH(FmaChains)(iterations, static_cast<float>(t)); });
  }
  for (auto& th : pool) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SimdPeak measure_simd_f32_peak(double target_seconds, int reps) {
  SimdPeak peak;
  peak.threads = std::max(1u, std::thread::hardware_concurrency());
  peak.lanes = HWY_DYNAMIC_DISPATCH(F32Lanes)();
  peak.target = HWY_DYNAMIC_DISPATCH(TargetName)();
  uint64_t iterations = 1024;
  double seconds = run_all(peak.threads, iterations);  // warm-up
  while (seconds < target_seconds / 2 && iterations < (uint64_t{1} << 34)) {
    iterations *= 2;
    seconds = run_all(peak.threads, iterations);
  }
  double best = seconds;
  for (int r = 0; r < reps; ++r) best = std::min(best, run_all(peak.threads, iterations));
  const double flops =
      static_cast<double>(iterations) * 4 * HWY_NAMESPACE::kChains * peak.lanes * 2 * peak.threads;
  peak.gflops = best > 0 ? flops / best / 1e9 : 0;
  return peak;
}

}  // namespace gauntlet::stress
#endif
