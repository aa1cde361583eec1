#include "engine/reference/attend_pass.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/reference/kv_rows.h"
#include "engine/reference/layer_ops.h"

namespace gauntlet::engine::reference {

void attend_pass(const model::ModelShape& s, const KvCacheView& kv, const planner::KvLayout& cache,
                 uint32_t l, std::span<const PassToken> tokens, float* act,
                 const planner::ActivationLayout& a, const float* sinks, ThreadPool& pool,
                 const Products& fast) {
  const uint32_t hd = s.head_dim(l), n_kv = s.n_embd_kv(l), group = s.heads(l) / s.heads_kv(l);
  const uint32_t src = s.kv_layer(l);
  const float scale = s.query_scale(l);
  auto first_of = [&](uint32_t pos) {
    return s.sliding(l) && pos + 1 > s.sliding_window ? pos + 1 - s.sliding_window : 0;
  };
  // Each sequence's positions that the pass reads: [lo, hi].
  struct Span {
    uint32_t lo = UINT32_MAX, hi = 0;
  };
  std::vector<Span> spans(kv.sequences);
  uint32_t most = 0;
  for (const auto& t : tokens) {
    auto& sp = spans[t.seq];
    sp.lo = std::min(sp.lo, first_of(t.pos));
    sp.hi = std::max(sp.hi, t.pos);
    most = std::max(most, sp.hi + 1 - sp.lo);
  }
  const bool quantized_k = model::is_quantized(kv.precision.k);
  pool.parallel_for(s.heads(l), [&](uint64_t h0, uint64_t h1) {
    // Kept per thread between layers and passes: a fresh allocation of this size is fresh pages
    // from the kernel each time (mmap), zeroed.
    thread_local std::vector<float> k_rows, v_rows, q8;
    k_rows.resize(std::max<size_t>(k_rows.size(), uint64_t{most} * hd));
    v_rows.resize(k_rows.size());
    q8.resize(std::max<size_t>(q8.size(), hd));
    auto gather = [&](const std::byte* c, model::TensorType type, uint64_t base, uint32_t lo,
                      uint32_t hi, uint64_t kv_off, float* dst) {
      for (uint32_t t = lo; t <= hi; ++t) {
        const uint64_t index = base + uint64_t{t % cache.slots[src]} * n_kv + kv_off;
        float* d = dst + uint64_t{t - lo} * hd;
        const std::byte* at = c + kv_byte_offset(type, index);
        if (type == model::TensorType::f32) {
          std::memcpy(d, at, uint64_t{hd} * sizeof(float));
        } else {
          load_kv_row(type, at, d, hd);
        }
      }
    };
    for (uint64_t h = h0; h < h1; ++h) {
      const uint64_t kv_off = (h / group) * hd;
      for (uint32_t seq = 0; seq < kv.sequences; ++seq) {
        const Span sp = spans[seq];
        if (sp.lo > sp.hi) continue;
        const uint64_t base = uint64_t{seq} * cache.per_sequence + cache.offset[src];
        gather(kv.k, kv.precision.k, base, sp.lo, sp.hi, kv_off, k_rows.data());
        gather(kv.v, kv.precision.v, base, sp.lo, sp.hi, kv_off, v_rows.data());
        for (size_t i = 0; i < tokens.size(); ++i) {
          if (tokens[i].seq != seq) continue;
          float* b = act + i * a.total;
          const uint32_t pos = tokens[i].pos, first = first_of(pos), n = pos + 1 - first;
          const float* qh = b + a.q + h * hd;
          if (quantized_k) {
            round_query_q8_0(qh, q8.data(), hd);
            qh = q8.data();
          }
          float* scores = b + a.att + h * kv.context + first;
          fast.dot_rows(qh, k_rows.data() + uint64_t{first - sp.lo} * hd, n, hd, scores);
          float scale_left = scale;
          if (s.attn_softcap > 0) {
            for (uint32_t j = 0; j < n; ++j) scores[j] = softcap(scores[j] * scale, s.attn_softcap);
            scale_left = 1.0f;
          }
          fast.softmax(scores, n, scale_left, sinks != nullptr ? sinks + h : nullptr);
          float* o = b + a.xb2 + h * hd;
          std::fill(o, o + hd, 0.0f);
          fast.add_rows(scores, v_rows.data() + uint64_t{first - sp.lo} * hd, n, hd, o);
        }
      }
    }
  });
}

}  // namespace gauntlet::engine::reference
