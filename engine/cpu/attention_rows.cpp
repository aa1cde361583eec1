// Highway compiles this file once per instruction set and picks the best at run time.
#include "engine/cpu/attention_rows.h"

#include <algorithm>
#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "engine/cpu/attention_rows.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// foreach_target.h must come first.
#include "hwy/highway.h"
//
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gauntlet::engine::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D>
HWY_INLINE float Sum(D d, hn::Vec<D> v) {
  return hn::GetLane(hn::SumOfLanes(d, v));
}

void DotRows(const float* q, const float* rows, uint32_t n, uint32_t hd, float* dots) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const uint32_t full = static_cast<uint32_t>(hd / N * N);
  uint32_t j = 0;
  // Four rows at a time: each load of q serves four independent sums.
  for (; j + 4 <= n; j += 4) {
    const float* r = rows + uint64_t{j} * hd;
    auto a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
    for (uint32_t i = 0; i < full; i += N) {
      const auto qv = hn::LoadU(df, q + i);
      a0 = hn::MulAdd(qv, hn::LoadU(df, r + i), a0);
      a1 = hn::MulAdd(qv, hn::LoadU(df, r + hd + i), a1);
      a2 = hn::MulAdd(qv, hn::LoadU(df, r + 2 * hd + i), a2);
      a3 = hn::MulAdd(qv, hn::LoadU(df, r + 3 * hd + i), a3);
    }
    float d[4] = {Sum(df, a0), Sum(df, a1), Sum(df, a2), Sum(df, a3)};
    for (uint32_t i = full; i < hd; ++i) {
      for (uint32_t k = 0; k < 4; ++k) d[k] += q[i] * r[k * hd + i];
    }
    for (uint32_t k = 0; k < 4; ++k) dots[j + k] = d[k];
  }
  for (; j < n; ++j) {
    const float* r = rows + uint64_t{j} * hd;
    auto acc = hn::Zero(df);
    for (uint32_t i = 0; i < full; i += N) {
      acc = hn::MulAdd(hn::LoadU(df, q + i), hn::LoadU(df, r + i), acc);
    }
    float d = Sum(df, acc);
    for (uint32_t i = full; i < hd; ++i) d += q[i] * r[i];
    dots[j] = d;
  }
}

void AddRows(const float* weights, const float* rows, uint32_t n, uint32_t hd, float* out) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const uint32_t full = static_cast<uint32_t>(hd / N * N);
  uint32_t i = 0;
  // Four vectors of the output stay in registers while every row adds into them.
  for (; i + 4 * N <= full; i += static_cast<uint32_t>(4 * N)) {
    auto o0 = hn::LoadU(df, out + i), o1 = hn::LoadU(df, out + i + N);
    auto o2 = hn::LoadU(df, out + i + 2 * N), o3 = hn::LoadU(df, out + i + 3 * N);
    for (uint32_t j = 0; j < n; ++j) {
      const float* r = rows + uint64_t{j} * hd + i;
      const auto w = hn::Set(df, weights[j]);
      o0 = hn::MulAdd(w, hn::LoadU(df, r), o0);
      o1 = hn::MulAdd(w, hn::LoadU(df, r + N), o1);
      o2 = hn::MulAdd(w, hn::LoadU(df, r + 2 * N), o2);
      o3 = hn::MulAdd(w, hn::LoadU(df, r + 3 * N), o3);
    }
    hn::StoreU(o0, df, out + i);
    hn::StoreU(o1, df, out + i + N);
    hn::StoreU(o2, df, out + i + 2 * N);
    hn::StoreU(o3, df, out + i + 3 * N);
  }
  for (; i < full; i += static_cast<uint32_t>(N)) {
    auto o = hn::LoadU(df, out + i);
    for (uint32_t j = 0; j < n; ++j) {
      o = hn::MulAdd(hn::Set(df, weights[j]), hn::LoadU(df, rows + uint64_t{j} * hd + i), o);
    }
    hn::StoreU(o, df, out + i);
  }
  for (; i < hd; ++i) {
    for (uint32_t j = 0; j < n; ++j) out[i] += weights[j] * rows[uint64_t{j} * hd + i];
  }
}

void Softmax(float* scores, uint32_t n, float scale, const float* sink) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const uint32_t full = static_cast<uint32_t>(n / N * N);
  const auto vscale = hn::Set(df, scale);
  auto vmax = hn::Set(df, -INFINITY);
  for (uint32_t j = 0; j < full; j += static_cast<uint32_t>(N)) {
    const auto x = hn::Mul(hn::LoadU(df, scores + j), vscale);
    hn::StoreU(x, df, scores + j);
    vmax = hn::Max(vmax, x);
  }
  float max = hn::GetLane(hn::MaxOfLanes(df, vmax));
  for (uint32_t j = full; j < n; ++j) {
    scores[j] *= scale;
    max = std::max(max, scores[j]);
  }
  if (sink != nullptr) max = std::max(max, *sink);
  const auto vm = hn::Set(df, max);
  auto vsum = hn::Zero(df);
  for (uint32_t j = 0; j < full; j += static_cast<uint32_t>(N)) {
    const auto e = hn::Exp(df, hn::Sub(hn::LoadU(df, scores + j), vm));
    hn::StoreU(e, df, scores + j);
    vsum = hn::Add(vsum, e);
  }
  float sum = hn::GetLane(hn::SumOfLanes(df, vsum));
  for (uint32_t j = full; j < n; ++j) {
    scores[j] = std::exp(scores[j] - max);
    sum += scores[j];
  }
  if (sink != nullptr) sum += std::exp(*sink - max);
  const float inv = 1.0f / sum;
  const auto vinv = hn::Set(df, inv);
  for (uint32_t j = 0; j < full; j += static_cast<uint32_t>(N)) {
    hn::StoreU(hn::Mul(hn::LoadU(df, scores + j), vinv), df, scores + j);
  }
  for (uint32_t j = full; j < n; ++j) scores[j] *= inv;
}

}  // namespace HWY_NAMESPACE
}  // namespace gauntlet::engine::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gauntlet::engine::cpu {

HWY_EXPORT(DotRows);
HWY_EXPORT(AddRows);
HWY_EXPORT(Softmax);

void softmax(float* scores, uint32_t n, float scale, const float* sink) {
  HWY_DYNAMIC_DISPATCH(Softmax)(scores, n, scale, sink);
}

void dot_rows(const float* q, const float* rows, uint32_t n, uint32_t hd, float* dots) {
  HWY_DYNAMIC_DISPATCH(DotRows)(q, rows, n, hd, dots);
}

void add_rows(const float* weights, const float* rows, uint32_t n, uint32_t hd, float* out) {
  HWY_DYNAMIC_DISPATCH(AddRows)(weights, rows, n, hd, out);
}

}  // namespace gauntlet::engine::cpu
#endif
