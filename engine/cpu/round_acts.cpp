// Highway compiles this file once per instruction set and picks the best at run time. Each
// product and rounding is the scalar one's (x * inv rounded to nearest even), so the codes are
// bit for bit those of llama.cpp's rules that quantized_acts.cpp names.
#include "engine/cpu/round_acts.h"

#include <cmath>

#include "core/half.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "engine/cpu/round_acts.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// foreach_target.h must come first.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gauntlet::engine::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 8>;
using D32 = hn::RebindToSigned<DF>;
using D8 = hn::Rebind<int8_t, DF>;

// Codes of `count` floats (a multiple of the lanes) times inv, rounded to nearest even and capped
// at `cap`; the codes' sum per `group` floats into sums.
HWY_INLINE void Codes(const float* x, size_t count, float inv, int32_t cap, size_t group, int8_t* q,
                      int16_t* sums) {
  const DF df;
  const D32 d32;
  const D8 d8;
  const size_t N = hn::Lanes(df);
  const auto vinv = hn::Set(df, inv);
  const auto vcap = hn::Set(d32, cap);
  for (size_t g = 0; g < count; g += group) {
    auto sum = hn::Zero(d32);
    for (size_t i = g; i < g + group; i += N) {
      const auto c = hn::Min(hn::NearestInt(hn::Mul(hn::LoadU(df, x + i), vinv)), vcap);
      hn::StoreU(hn::DemoteTo(d8, c), d8, q + i);
      sum = hn::Add(sum, c);
    }
    sums[g / group] = static_cast<int16_t>(hn::GetLane(hn::SumOfLanes(d32, sum)));
  }
}

HWY_INLINE float AbsMax(const float* x, size_t count) {
  const DF df;
  const size_t N = hn::Lanes(df);
  auto m = hn::Zero(df);
  for (size_t i = 0; i < count; i += N) m = hn::Max(m, hn::Abs(hn::LoadU(df, x + i)));
  return hn::GetLane(hn::MaxOfLanes(df, m));
}

void RoundQ8_0(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  for (uint64_t b = 0; b < n / 32; ++b) {
    const float scale = AbsMax(x + b * 32, 32) / 127.0f;
    const float inv = scale != 0 ? 1.0f / scale : 0.0f;
    Codes(x + b * 32, 32, inv, 127, 32, qs + b * 32, sums + b);
    d[b] = core::f16_to_f32(core::f32_to_f16(scale));
  }
}

void RoundQ8_K(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  for (uint64_t b = 0; b < n / 256; ++b) {
    const float* xb = x + b * 256;
    const float amax = AbsMax(xb, 256);
    if (amax == 0) {
      d[b] = 0;
      for (int j = 0; j < 256; ++j) qs[b * 256 + j] = 0;
      for (int j = 0; j < 16; ++j) sums[b * 16 + j] = 0;
      continue;
    }
    // The first element of largest magnitude gives the scale its sign.
    int j = 0;
    while (j < 255 && std::fabs(xb[j]) != amax) ++j;
    const float iscale = -127.0f / xb[j];
    Codes(xb, 256, iscale, 127, 16, qs + b * 256, sums + b * 16);
    d[b] = 1 / iscale;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::engine::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gauntlet::engine::cpu {

HWY_EXPORT(RoundQ8_0);
HWY_EXPORT(RoundQ8_K);

void round_q8_0(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  HWY_DYNAMIC_DISPATCH(RoundQ8_0)(x, n, qs, d, sums);
}

void round_q8_K(const float* x, uint64_t n, int8_t* qs, float* d, int16_t* sums) {
  HWY_DYNAMIC_DISPATCH(RoundQ8_K)(x, n, qs, d, sums);
}

}  // namespace gauntlet::engine::cpu
#endif
