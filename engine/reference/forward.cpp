#include "engine/reference/forward.h"

#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "core/half.h"
#include "engine/model/rope.h"
#include "engine/reference/layer_ops.h"

namespace gauntlet::engine::reference {

namespace {

using model::TensorView;

const float* floats(const TensorView& t) { return reinterpret_cast<const float*>(t.data); }

struct MatVec {
  const TensorView* w;
  const float* x;
  float* out;
};

// Several products over one input, as one parallel loop over all their rows.
void matvecs(ThreadPool& pool, std::initializer_list<MatVec> list) {
  std::vector<MatVec> ops(list);
  uint64_t total = 0;
  for (const auto& op : ops) total += op.w->n_out;
  pool.parallel_for(total, [&ops](uint64_t begin, uint64_t end) {
    uint64_t base = 0;
    for (const auto& op : ops) {
      const uint64_t lo = std::max(begin, base), hi = std::min(end, base + op.w->n_out);
      for (uint64_t r = lo; r < hi; ++r) {
        op.out[r - base] = model::dot_row(op.w->type, op.w->row(r - base), op.x, op.w->n_in);
      }
      base += op.w->n_out;
    }
  });
}

void store_kv(std::byte* cache, KvPrecision precision, uint64_t index, const float* src,
              uint32_t n) {
  if (precision == KvPrecision::f32) {
    std::memcpy(cache + index * 4, src, n * sizeof(float));
    return;
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint16_t h = core::f32_to_f16(src[i]);
    std::memcpy(cache + (index + i) * 2, &h, 2);
  }
}

float load_kv(const std::byte* cache, KvPrecision precision, uint64_t index) {
  if (precision == KvPrecision::f32) {
    float f;
    std::memcpy(&f, cache + index * 4, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, cache + index * 2, 2);
  return model::f16_lookup(h);
}

}  // namespace

core::Status forward_token(const model::ModelShape& s, const model::ModelWeights& w,
                           const KvCacheView& kv, float* act, int32_t token, uint32_t pos,
                           ThreadPool& pool) {
  if (token < 0 || static_cast<uint32_t>(token) >= s.n_vocab) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "token id " + std::to_string(token) + " is outside the vocabulary 0.." +
                                std::to_string(s.n_vocab - 1));
  }
  if (pos >= kv.context) {
    return core::make_error(core::ErrorKind::invalid_argument, "position " + std::to_string(pos) +
                                                                   " is past the context of " +
                                                                   std::to_string(kv.context));
  }
  const auto layout = planner::activation_layout(s, kv.context);
  float* x = act + layout.x;
  float* xb = act + layout.xb;
  float* xb2 = act + layout.xb2;
  float* q = act + layout.q;
  float* k = act + layout.k;
  float* v = act + layout.v;
  float* att = act + layout.att;
  float* hb = act + layout.hb;
  float* hb2 = act + layout.hb2;
  float* logits = act + layout.logits;
  const model::Architecture& arch = s.traits();
  const uint32_t n_embd = s.n_embd, hd = s.head_dim(), n_kv = s.n_embd_kv();
  const uint32_t group = s.n_head / s.n_head_kv;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  std::vector<float> table(s.rope_dims());
  std::span<const float> factors;
  if (w.rope_freqs.data != nullptr) {
    factors = {floats(w.rope_freqs), w.rope_freqs.n_in};
  }
  model::rope_table(s, factors, pos, table);

  model::dequantize_row(w.token_embd.type, w.token_embd.row(static_cast<uint64_t>(token)), x,
                        n_embd);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const auto& L = w.layers[l];
    rmsnorm(xb, x, floats(L.attn_norm), n_embd, s.rms_eps);
    if (arch.fused_qkv) {
      matvecs(pool, {{&L.wqkv, xb, q}});  // q, k and v are contiguous (activation_layout)
    } else {
      matvecs(pool, {{&L.wq, xb, q}, {&L.wk, xb, k}, {&L.wv, xb, v}});
    }
    if (arch.qkv_bias) {
      add_bias(q, floats(L.bq), s.n_embd_q());
      add_bias(k, floats(L.bk), n_kv);
      add_bias(v, floats(L.bv), n_kv);
    }
    if (arch.qk_norm) {
      rmsnorm_heads(q, s.n_head, hd, floats(L.q_norm), s.rms_eps);
      rmsnorm_heads(k, s.n_head_kv, hd, floats(L.k_norm), s.rms_eps);
    }
    rope_heads(q, s.n_head, hd, s.rope_dims(), arch.rope, table);
    rope_heads(k, s.n_head_kv, hd, s.rope_dims(), arch.rope, table);
    const uint64_t layer_base = static_cast<uint64_t>(l) * kv.context * n_kv;
    store_kv(kv.k, kv.precision, layer_base + static_cast<uint64_t>(pos) * n_kv, k, n_kv);
    store_kv(kv.v, kv.precision, layer_base + static_cast<uint64_t>(pos) * n_kv, v, n_kv);

    pool.parallel_for(s.n_head, [&](uint64_t h0, uint64_t h1) {
      for (uint64_t h = h0; h < h1; ++h) {
        const float* qh = q + h * hd;
        float* scores = att + h * kv.context;
        const uint64_t kv_off = (h / group) * hd;
        float max = -INFINITY;
        for (uint32_t t = 0; t <= pos; ++t) {
          const uint64_t base = layer_base + static_cast<uint64_t>(t) * n_kv + kv_off;
          float dot = 0;
          for (uint32_t i = 0; i < hd; ++i) dot += qh[i] * load_kv(kv.k, kv.precision, base + i);
          scores[t] = dot * scale;
          max = std::max(max, scores[t]);
        }
        float sum = 0;
        for (uint32_t t = 0; t <= pos; ++t) {
          scores[t] = std::exp(scores[t] - max);
          sum += scores[t];
        }
        float* out = xb2 + h * hd;
        std::fill(out, out + hd, 0.0f);
        for (uint32_t t = 0; t <= pos; ++t) {
          const float a = scores[t] / sum;
          const uint64_t base = layer_base + static_cast<uint64_t>(t) * n_kv + kv_off;
          for (uint32_t i = 0; i < hd; ++i) out[i] += a * load_kv(kv.v, kv.precision, base + i);
        }
      }
    });
    matvecs(pool, {{&L.wo, xb2, xb}});
    for (uint32_t i = 0; i < n_embd; ++i) x[i] += xb[i];

    rmsnorm(xb, x, floats(L.ffn_norm), n_embd, s.rms_eps);
    if (arch.fused_gate_up) {
      matvecs(pool, {{&L.w_up, xb, hb}});  // gate into hb, up into hb2 = hb + n_ff
    } else {
      matvecs(pool, {{&L.w_gate, xb, hb}, {&L.w_up, xb, hb2}});
    }
    for (uint32_t i = 0; i < s.n_ff; ++i) hb[i] = hb[i] / (1.0f + std::exp(-hb[i])) * hb2[i];
    matvecs(pool, {{&L.w_down, hb, xb}});
    for (uint32_t i = 0; i < n_embd; ++i) x[i] += xb[i];
  }
  rmsnorm(xb, x, floats(w.output_norm), n_embd, s.rms_eps);
  matvecs(pool, {{&w.output, xb, logits}});
  return core::Status::ok();
}

}  // namespace gauntlet::engine::reference
