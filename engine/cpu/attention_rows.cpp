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

// NQ queries against every row: each row, loaded once, serves all of them. Each (query, row) sum
// runs over the row in the same order whatever the queries beside it.
template <size_t NQ>
void DotRowsTile(const float* const* q, const float* rows, uint32_t n, uint32_t hd, float* dots) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const uint32_t full = static_cast<uint32_t>(hd / N * N);
  auto tail = [&](size_t k, const float* r, float d) {
    for (uint32_t i = full; i < hd; ++i) d += q[k][i] * r[i];
    return d;
  };
  uint32_t j = 0;
  for (; j + 2 <= n; j += 2) {
    const float* r0 = rows + uint64_t{j} * hd;
    const float* r1 = r0 + hd;
    hn::Vec<decltype(df)> a0[NQ], a1[NQ];
    for (size_t k = 0; k < NQ; ++k) a0[k] = a1[k] = hn::Zero(df);
    for (uint32_t i = 0; i < full; i += N) {
      const auto v0 = hn::LoadU(df, r0 + i), v1 = hn::LoadU(df, r1 + i);
      for (size_t k = 0; k < NQ; ++k) {
        const auto qv = hn::LoadU(df, q[k] + i);
        a0[k] = hn::MulAdd(qv, v0, a0[k]);
        a1[k] = hn::MulAdd(qv, v1, a1[k]);
      }
    }
    for (size_t k = 0; k < NQ; ++k) {
      dots[k * n + j] = tail(k, r0, Sum(df, a0[k]));
      dots[k * n + j + 1] = tail(k, r1, Sum(df, a1[k]));
    }
  }
  for (; j < n; ++j) {
    const float* r = rows + uint64_t{j} * hd;
    for (size_t k = 0; k < NQ; ++k) {
      auto acc = hn::Zero(df);
      for (uint32_t i = 0; i < full; i += N) {
        acc = hn::MulAdd(hn::LoadU(df, q[k] + i), hn::LoadU(df, r + i), acc);
      }
      dots[k * n + j] = tail(k, r, Sum(df, acc));
    }
  }
}

// out[k] += the rows by query k's weights: each row, loaded once, serves all NQ outputs; each
// output element takes its rows in order, whatever the queries beside it.
template <size_t NQ>
void AddRowsTile(const float* weights, float* const* out, const float* rows, uint32_t n,
                 uint32_t hd) {
  const hn::ScalableTag<float> df;
  const size_t N = hn::Lanes(df);
  const uint32_t full = static_cast<uint32_t>(hd / N * N);
  uint32_t i = 0;
  for (; i + 2 * N <= full; i += static_cast<uint32_t>(2 * N)) {
    hn::Vec<decltype(df)> o0[NQ], o1[NQ];
    for (size_t k = 0; k < NQ; ++k) {
      o0[k] = hn::LoadU(df, out[k] + i);
      o1[k] = hn::LoadU(df, out[k] + i + N);
    }
    for (uint32_t j = 0; j < n; ++j) {
      const float* r = rows + uint64_t{j} * hd + i;
      const auto v0 = hn::LoadU(df, r), v1 = hn::LoadU(df, r + N);
      for (size_t k = 0; k < NQ; ++k) {
        const auto w = hn::Set(df, weights[k * n + j]);
        o0[k] = hn::MulAdd(w, v0, o0[k]);
        o1[k] = hn::MulAdd(w, v1, o1[k]);
      }
    }
    for (size_t k = 0; k < NQ; ++k) {
      hn::StoreU(o0[k], df, out[k] + i);
      hn::StoreU(o1[k], df, out[k] + i + N);
    }
  }
  for (; i < full; i += static_cast<uint32_t>(N)) {
    for (size_t k = 0; k < NQ; ++k) {
      auto o = hn::LoadU(df, out[k] + i);
      for (uint32_t j = 0; j < n; ++j) {
        o = hn::MulAdd(hn::Set(df, weights[k * n + j]), hn::LoadU(df, rows + uint64_t{j} * hd + i),
                       o);
      }
      hn::StoreU(o, df, out[k] + i);
    }
  }
  for (; i < hd; ++i) {
    for (size_t k = 0; k < NQ; ++k) {
      for (uint32_t j = 0; j < n; ++j) out[k][i] += weights[k * n + j] * rows[uint64_t{j} * hd + i];
    }
  }
}

// Four queries at a time: more would not keep their sums in registers.
void DotRows(const float* const* q, uint32_t nq, const float* rows, uint32_t n, uint32_t hd,
             float* dots) {
  for (uint32_t k = 0; k < nq; k += 4) {
    float* d = dots + uint64_t{k} * n;
    switch (std::min(nq - k, 4u)) {
      case 1:
        DotRowsTile<1>(q + k, rows, n, hd, d);
        break;
      case 2:
        DotRowsTile<2>(q + k, rows, n, hd, d);
        break;
      case 3:
        DotRowsTile<3>(q + k, rows, n, hd, d);
        break;
      default:
        DotRowsTile<4>(q + k, rows, n, hd, d);
        break;
    }
  }
}

void AddRows(const float* weights, float* const* out, uint32_t nq, const float* rows, uint32_t n,
             uint32_t hd) {
  for (uint32_t k = 0; k < nq; k += 4) {
    const float* w = weights + uint64_t{k} * n;
    switch (std::min(nq - k, 4u)) {
      case 1:
        AddRowsTile<1>(w, out + k, rows, n, hd);
        break;
      case 2:
        AddRowsTile<2>(w, out + k, rows, n, hd);
        break;
      case 3:
        AddRowsTile<3>(w, out + k, rows, n, hd);
        break;
      default:
        AddRowsTile<4>(w, out + k, rows, n, hd);
        break;
    }
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

void dot_rows(std::span<const float* const> queries, const float* rows, uint32_t n, uint32_t hd,
              float* dots) {
  HWY_DYNAMIC_DISPATCH(DotRows)
  (queries.data(), static_cast<uint32_t>(queries.size()), rows, n, hd, dots);
}

void add_rows(const float* weights, std::span<float* const> outs, const float* rows, uint32_t n,
              uint32_t hd) {
  HWY_DYNAMIC_DISPATCH(AddRows)
  (weights, outs.data(), static_cast<uint32_t>(outs.size()), rows, n, hd);
}

}  // namespace gauntlet::engine::cpu
#endif
