// Highway compiles this file once per instruction set and picks the best at run time.
#include "engine/cpu/swiglu.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "engine/cpu/swiglu.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// foreach_target.h must come first.
#include "hwy/highway.h"
//
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gauntlet::engine::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void Swiglu(float* gate, const float* up, uint32_t n) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const auto one = hn::Set(df, 1.0f);
  // Highway's Exp is defined up to 88; silu below -88 is -0 either way.
  const auto most = hn::Set(df, 88.0f);
  uint32_t i = 0;
  for (; i + N <= n; i += static_cast<uint32_t>(N)) {
    const auto g = hn::LoadU(df, gate + i);
    const auto silu = hn::Div(g, hn::Add(one, hn::Exp(df, hn::Min(hn::Neg(g), most))));
    hn::StoreU(hn::Mul(silu, hn::LoadU(df, up + i)), df, gate + i);
  }
  for (; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::engine::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gauntlet::engine::cpu {

HWY_EXPORT(Swiglu);

void swiglu(float* gate, const float* up, uint32_t n) { HWY_DYNAMIC_DISPATCH(Swiglu)(gate, up, n); }

}  // namespace gauntlet::engine::cpu
#endif
