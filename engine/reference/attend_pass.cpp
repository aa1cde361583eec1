#include "engine/reference/attend_pass.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif
#include <vector>

#include "core/fma_clones.h"
#include "core/half.h"
#include "core/llamafile_dot.h"
#include "engine/reference/kv_rows.h"
#include "engine/reference/layer_ops.h"

// The two loops llama.cpp fuses (ggml_vec_dot_f16's and the weighted sum's multiply-adds) are
// GAUNTLET_FMA_CLONES; this file is built with -ffp-contract=off, so that no clone fuses anything
// else.

namespace gauntlet::engine::reference {

model::TensorType flash_read_type(model::TensorType stored) {
  return stored == model::TensorType::f32 ? model::TensorType::f16 : stored;
}

GAUNTLET_FMA_CLONES float dot_f16_as_ggml(const float* x, const float* y, uint32_t n) {
  const uint32_t whole = n & ~63u;
  double sum = 0;
  if (whole > 0) {
    float acc[4][16] = {};
    for (uint32_t i = 0; i < whole; i += 64) {
      for (uint32_t j = 0; j < 4; ++j) {
        for (uint32_t l = 0; l < 16; ++l) {
          acc[j][l] = std::fma(x[i + 16 * j + l], y[i + 16 * j + l], acc[j][l]);
        }
      }
    }
    sum = core::add_accumulators_as_ggml_f32x16(acc);
  }
  for (uint32_t i = whole; i < n; ++i) sum += static_cast<double>(x[i] * y[i]);
  return static_cast<float>(sum);
}

bool flash_one_chunk(const KvCacheView& kv, uint32_t tokens_per_sequence) {
  constexpr uint32_t kTiledFrom = 64;  // GGML_FA_TILE_Q (ggml-cpu/common.h)
  const bool flash = kv.flash_attention || model::is_quantized(kv.precision.v);
  const model::TensorType k = flash_read_type(kv.precision.k), v = flash_read_type(kv.precision.v);
  return flash && (k != v || (k == model::TensorType::f16 && tokens_per_sequence < kTiledFrom));
}

namespace {

// Rounded to f16 (to nearest even) and back: an F16C instruction each way where the processor
// has them (inlined into the x86-64-v3 clone), else core's conversions; the same bits either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("f16c"))) inline float to_half_f16c(float x) {
  return _cvtsh_ss(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}
const bool kF16c = __builtin_cpu_supports("f16c");
inline float to_half(float x) {
  return kF16c ? to_half_f16c(x) : core::f16_to_f32(core::f32_to_f16(x));
}
#else
inline float to_half(float x) { return core::f16_to_f32(core::f32_to_f16(x)); }
#endif

}  // namespace

GAUNTLET_FMA_CLONES void flash_one_chunk_head(const float* q, model::TensorType k_type,
                                              model::TensorType v_type, const float* k_rows,
                                              const float* v_rows, uint32_t n, uint32_t hd,
                                              float scale, float softcap_cap, const float* sink,
                                              float* out) {
  thread_local std::vector<float> q_dot, acc;
  q_dot.resize(std::max<size_t>(q_dot.size(), hd));
  acc.assign(hd, 0.0f);
  if (model::is_quantized(k_type)) {
    round_query_q8_0(q, q_dot.data(), hd);
  } else if (k_type == model::TensorType::f16) {
    for (uint32_t i = 0; i < hd; ++i) q_dot[i] = to_half(q[i]);
  } else {
    std::copy_n(q, hd, q_dot.data());
  }
  const bool half = v_type == model::TensorType::f16;
  float sum = 0.0f, max = -INFINITY;
  for (uint32_t t = 0; t < n; ++t) {
    const float* k = k_rows + uint64_t{t} * hd;
    const float* v = v_rows + uint64_t{t} * hd;
    float dot = 0.0f;
    if (k_type == model::TensorType::f16) {
      dot = dot_f16_as_ggml(q_dot.data(), k, hd);
    } else {
      for (uint32_t i = 0; i < hd; ++i) dot += q_dot[i] * k[i];
    }
    const float s = softcap_cap > 0 ? softcap(dot * scale, softcap_cap) : dot * scale;
    float ms = 1.0f, vs = 1.0f;
    if (s > max) {
      // A new maximum: the sum so far times expf(Mold - M), this position's weight 1.
      ms = std::exp(max - s);
      max = s;
      for (uint32_t i = 0; i < hd; ++i) acc[i] = half ? to_half(acc[i] * ms) : acc[i] * ms;
    } else {
      vs = std::exp(s - max);
    }
    for (uint32_t i = 0; i < hd; ++i) {
      const float x = std::fma(v[i], vs, acc[i]);
      acc[i] = half ? to_half(x) : x;
    }
    sum = sum * ms + vs;
  }
  if (sink != nullptr) {
    float ms = 1.0f, vs = 1.0f;
    if (*sink > max) {
      ms = std::exp(max - *sink);
      for (uint32_t i = 0; i < hd; ++i) acc[i] *= ms;
    } else {
      vs = std::exp(*sink - max);
    }
    sum = sum * ms + vs;
  }
  const float inv = sum == 0.0f ? 0.0f : 1.0f / sum;
  for (uint32_t i = 0; i < hd; ++i) out[i] = acc[i] * inv;
}

// A sequence's tokens attend this many at a time: each cache row, loaded once, serves them all
// (over the union of their positions, each query's weights zero outside its own).
constexpr uint32_t kQueriesAtOnce = 4;

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
  std::vector<uint32_t> tokens_of(kv.sequences, 0);
  uint32_t most = 0;
  for (const auto& t : tokens) {
    auto& sp = spans[t.seq];
    sp.lo = std::min(sp.lo, first_of(t.pos));
    sp.hi = std::max(sp.hi, t.pos);
    most = std::max(most, sp.hi + 1 - sp.lo);
    ++tokens_of[t.seq];
  }
  const bool quantized_k = model::is_quantized(kv.precision.k);
  const bool one_chunk = flash_one_chunk(kv, *std::max_element(tokens_of.begin(), tokens_of.end()));
  pool.parallel_for(s.heads(l), [&](uint64_t h0, uint64_t h1) {
    // Kept per thread between layers and passes: a fresh allocation of this size is fresh pages
    // from the kernel each time (mmap), zeroed.
    thread_local std::vector<float> k_rows, v_rows, q8, tile;
    k_rows.resize(std::max<size_t>(k_rows.size(), uint64_t{most} * hd));
    v_rows.resize(k_rows.size());
    q8.resize(std::max<size_t>(q8.size(), uint64_t{kQueriesAtOnce} * hd));
    auto gather = [&](const std::byte* c, model::TensorType type, uint64_t base, uint32_t lo,
                      uint32_t hi, uint64_t kv_off, float* dst) {
      for (uint32_t t = lo; t <= hi; ++t) {
        const uint64_t index = base + uint64_t{t % cache.slots[src]} * n_kv + kv_off;
        float* d = dst + uint64_t{t - lo} * hd;
        const std::byte* at = c + kv_byte_offset(type, index);
        if (type == model::TensorType::f32) {
          std::memcpy(d, at, uint64_t{hd} * sizeof(float));
          if (one_chunk) {  // flash attention's cast of an f32 cache to f16
            for (uint32_t i = 0; i < hd; ++i) d[i] = core::f16_to_f32(core::f32_to_f16(d[i]));
          }
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
        size_t batch[kQueriesAtOnce];
        uint32_t queued = 0;
        auto attend_batch = [&] {
          uint32_t lo = UINT32_MAX, hi = 0;
          const float* queries[kQueriesAtOnce];
          float* outs[kQueriesAtOnce];
          for (uint32_t k = 0; k < queued; ++k) {
            float* b = act + batch[k] * a.total;
            lo = std::min(lo, first_of(tokens[batch[k]].pos));
            hi = std::max(hi, tokens[batch[k]].pos);
            queries[k] = b + a.q + h * hd;
            if (quantized_k) {
              round_query_q8_0(queries[k], q8.data() + k * hd, hd);
              queries[k] = q8.data() + k * hd;
            }
            outs[k] = b + a.xb2 + h * hd;
            std::fill(outs[k], outs[k] + hd, 0.0f);
          }
          const uint32_t n = hi + 1 - lo;
          tile.resize(std::max<size_t>(tile.size(), uint64_t{queued} * n));
          fast.dot_rows({queries, queued}, k_rows.data() + uint64_t{lo - sp.lo} * hd, n, hd,
                        tile.data());
          // Each query's own positions of the scores, then its softmax back as its row of
          // weights, zero outside them.
          for (uint32_t k = 0; k < queued; ++k) {
            const uint32_t pos = tokens[batch[k]].pos, first = first_of(pos), m = pos + 1 - first;
            float* row = tile.data() + uint64_t{k} * n;
            float* scores = act + batch[k] * a.total + a.att + h * kv.context + first;
            std::copy_n(row + (first - lo), m, scores);
            float scale_left = scale;
            if (s.attn_softcap > 0) {
              for (uint32_t j = 0; j < m; ++j)
                scores[j] = softcap(scores[j] * scale, s.attn_softcap);
              scale_left = 1.0f;
            }
            fast.softmax(scores, m, scale_left, sinks != nullptr ? sinks + h : nullptr);
            std::fill(row, row + n, 0.0f);
            std::copy_n(scores, m, row + (first - lo));
          }
          fast.add_rows(tile.data(), {outs, queued}, v_rows.data() + uint64_t{lo - sp.lo} * hd, n,
                        hd);
          queued = 0;
        };
        for (size_t i = 0; i < tokens.size(); ++i) {
          if (tokens[i].seq != seq) continue;
          if (one_chunk) {
            float* b = act + i * a.total;
            const uint32_t pos = tokens[i].pos, first = first_of(pos), n = pos + 1 - first;
            flash_one_chunk_head(
                b + a.q + h * hd, flash_read_type(kv.precision.k), flash_read_type(kv.precision.v),
                k_rows.data() + uint64_t{first - sp.lo} * hd,
                v_rows.data() + uint64_t{first - sp.lo} * hd, n, hd, scale, s.attn_softcap,
                sinks != nullptr ? sinks + h : nullptr, b + a.xb2 + h * hd);
            continue;
          }
          batch[queued++] = i;
          if (queued == kQueriesAtOnce) attend_batch();
        }
        if (queued > 0) attend_batch();
      }
    }
  });
}

}  // namespace gauntlet::engine::reference
