#include "engine/reference/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "core/half.h"
#include "engine/model/layer_plan.h"
#include "engine/model/rope.h"
#include "engine/reference/attend_pass.h"
#include "engine/reference/experts.h"
#include "engine/reference/gated_delta_net.h"
#include "engine/reference/gemma4_layer.h"
#include "engine/reference/kv_rows.h"
#include "engine/reference/layer_ops.h"
#include "engine/reference/mamba2.h"
#include "engine/reference/matmuls.h"
#include "engine/reference/short_conv.h"

namespace gauntlet::engine::reference {

namespace {

using model::TensorView;

// One layer's attention of every query head over the positions the layer keeps: all of them, or
// for a sliding layer the last `sliding_window`; position t sits in slot t % slots. `sinks` (one
// logit per head, or nullptr) join each head's softmax denominator as ggml_soft_max_ext's sinks.
// A layer without KV of its own (gemma4's shared layers) reads the cache of ModelShape::kv_layer.
void attend(const model::ModelShape& s, const KvCacheView& kv, const planner::KvLayout& cache,
            uint32_t l, const PassToken& tok, const float* q, const float* sinks, float* att,
            float* out, ThreadPool& pool) {
  const uint32_t pos = tok.pos;
  const uint64_t seq_base = uint64_t{tok.seq} * cache.per_sequence;
  const uint32_t hd = s.head_dim(l), n_kv = s.n_embd_kv(l), group = s.heads(l) / s.heads_kv(l);
  const uint32_t src = s.kv_layer(l);
  const float scale = s.query_scale(l);
  const uint32_t first =
      s.sliding(l) && pos + 1 > s.sliding_window ? pos + 1 - s.sliding_window : 0;
  auto row = [&](uint32_t t) {
    return seq_base + cache.offset[src] + uint64_t{t % cache.slots[src]} * n_kv;
  };
  // A row of the cache as floats: an f32 row where it lies, any other decoded into `dst`.
  auto kv_row = [&](const std::byte* c, model::TensorType type, uint64_t index,
                    float* dst) -> const float* {
    const std::byte* at = c + kv_byte_offset(type, index);
    if (type == model::TensorType::f32) return reinterpret_cast<const float*>(at);
    load_kv_row(type, at, dst, hd);
    return dst;
  };
  // Scores of kBlock positions at a time: each dot product still sums in order, bit for bit the
  // one-at-a-time sum, but kBlock independent sums keep the multiply-adds in flight.
  constexpr uint32_t kBlock = 8;
  if (flash_one_chunk(kv, 1)) {
    // Flash attention over one token: llama.cpp's one_chunk path, over the rows gathered as it
    // reads them (an f32 cache cast to f16).
    const model::TensorType k_type = flash_read_type(kv.precision.k);
    const model::TensorType v_type = flash_read_type(kv.precision.v);
    const uint32_t n = pos + 1 - first;
    pool.parallel_for(s.heads(l), [&](uint64_t h0, uint64_t h1) {
      std::vector<float> k_rows(uint64_t{n} * hd), v_rows(uint64_t{n} * hd);
      auto gather = [&](const std::byte* c, model::TensorType type, uint64_t kv_off, float* dst) {
        for (uint32_t t = first; t <= pos; ++t) {
          float* d = dst + uint64_t{t - first} * hd;
          const float* r = kv_row(c, type, row(t) + kv_off, d);
          for (uint32_t i = 0; i < hd; ++i) {
            d[i] = type == model::TensorType::f32 ? core::f16_to_f32(core::f32_to_f16(r[i])) : r[i];
          }
        }
      };
      for (uint64_t h = h0; h < h1; ++h) {
        const uint64_t kv_off = (h / group) * hd;
        gather(kv.k, kv.precision.k, kv_off, k_rows.data());
        gather(kv.v, kv.precision.v, kv_off, v_rows.data());
        flash_one_chunk_head(q + h * hd, k_type, v_type, k_rows.data(), v_rows.data(), n, hd, scale,
                             s.attn_softcap, sinks != nullptr ? sinks + h : nullptr, out + h * hd);
      }
    });
    return;
  }
  pool.parallel_for(s.heads(l), [&](uint64_t h0, uint64_t h1) {
    std::vector<float> row_f(uint64_t{hd} * kBlock), q8(hd);
    for (uint64_t h = h0; h < h1; ++h) {
      const float* qh = q + h * hd;
      if (model::is_quantized(kv.precision.k)) {
        round_query_q8_0(qh, q8.data(), hd);
        qh = q8.data();
      }
      float* scores = att + h * kv.context;
      const uint64_t kv_off = (h / group) * hd;
      float max = -INFINITY;
      for (uint32_t t = first; t <= pos;) {
        const uint32_t n = pos + 1 - t >= kBlock ? kBlock : 1;
        const float* k[kBlock];
        for (uint32_t j = 0; j < n; ++j) {
          k[j] = kv_row(kv.k, kv.precision.k, row(t + j) + kv_off, row_f.data() + uint64_t{j} * hd);
        }
        float dot[kBlock] = {};
        if (n == kBlock) {
          for (uint32_t i = 0; i < hd; ++i) {
            for (uint32_t j = 0; j < kBlock; ++j) dot[j] += qh[i] * k[j][i];
          }
        } else {
          for (uint32_t i = 0; i < hd; ++i) dot[0] += qh[i] * k[0][i];
        }
        for (uint32_t j = 0; j < n; ++j, ++t) {
          scores[t] = s.attn_softcap > 0 ? softcap(dot[j] * scale, s.attn_softcap) : dot[j] * scale;
          max = std::max(max, scores[t]);
        }
      }
      if (sinks != nullptr) max = std::max(max, sinks[h]);
      float sum = 0;
      for (uint32_t t = first; t <= pos; ++t) {
        scores[t] = std::exp(scores[t] - max);
        sum += scores[t];
      }
      if (sinks != nullptr) sum += std::exp(sinks[h] - max);
      float* o = out + h * hd;
      std::fill(o, o + hd, 0.0f);
      for (uint32_t t = first; t <= pos; ++t) {
        const float a = scores[t] / sum;
        const float* v = kv_row(kv.v, kv.precision.v, row(t) + kv_off, row_f.data());
        for (uint32_t i = 0; i < hd; ++i) o[i] += a * v[i];
      }
    }
  });
}

// x += branch, through the architecture's post-norm of the branch where it has one (gemma), times
// granite's residual_scale where the file gives one.
void add_residual(const model::ModelShape& s, float* x, float* branch,
                  const TensorView& post_norm) {
  if (s.traits().post_norms) rmsnorm(branch, branch, floats(post_norm), s.n_embd, s.rms_eps);
  if (s.residual_scale != 0.0f) {
    for (uint32_t i = 0; i < s.n_embd; ++i) branch[i] *= s.residual_scale;
  }
  for (uint32_t i = 0; i < s.n_embd; ++i) x[i] += branch[i];
}

// qwen35's Q projection holds each head's [q | gate] (build_layer_attn's views of Qcur_full).
void split_query_gate(const model::ModelShape& s, const float* q_gate, float* q, float* gate) {
  const uint32_t hd = s.head_dim();
  for (uint32_t h = 0; h < s.n_head; ++h) {
    std::copy_n(q_gate + uint64_t{2} * h * hd, hd, q + uint64_t{h} * hd);
    std::copy_n(q_gate + uint64_t{2} * h * hd + hd, hd, gate + uint64_t{h} * hd);
  }
}

// laguna's per-head gate: each head's attention output times softplus of its gate value (ggml's
// softplus, then ggml_mul broadcasting one value per head over head_dim).
void apply_head_gate(float* out, const float* gate, uint32_t heads, uint32_t head_dim) {
  for (uint32_t h = 0; h < heads; ++h) {
    const float g = softplus(gate[h]);
    for (uint32_t d = 0; d < head_dim; ++d) out[uint64_t{h} * head_dim + d] *= g;
  }
}

core::Status check_token(const model::ModelShape& s, const KvCacheView& kv, const PassToken& t) {
  if (t.token < 0 || static_cast<uint32_t>(t.token) >= s.n_vocab) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "token id " + std::to_string(t.token) +
                                " is outside the vocabulary 0.." + std::to_string(s.n_vocab - 1));
  }
  if (t.pos >= kv.context) {
    return core::make_error(core::ErrorKind::invalid_argument, "position " + std::to_string(t.pos) +
                                                                   " is past the context of " +
                                                                   std::to_string(kv.context));
  }
  if (t.seq >= kv.sequences) {
    return core::make_error(core::ErrorKind::invalid_argument, "sequence " + std::to_string(t.seq) +
                                                                   " is past the cache's " +
                                                                   std::to_string(kv.sequences));
  }
  return core::Status::ok();
}

}  // namespace

core::Status forward_pass(const model::ModelShape& s, const model::ModelWeights& w,
                          const KvCacheView& kv, float* act, std::span<const PassToken> tokens,
                          ThreadPool& pool, const planner::LayerRange& range) {
  if (tokens.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "a pass needs a token");
  }
  std::vector<uint32_t> per_sequence(kv.sequences);
  for (const auto& t : tokens) {
    GAUNTLET_TRY(check_token(s, kv, t));
    if (++per_sequence[t.seq] > kv.micro_batch) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "a pass holds more than " + std::to_string(kv.micro_batch) +
                                  " tokens of sequence " + std::to_string(t.seq) +
                                  " (the micro-batch its cache's ring was sized for)");
    }
  }
  const auto a = planner::activation_layout(s, kv.context);
  const auto cache = planner::kv_layout(s, kv.context, kv.micro_batch, range);
  const auto states = planner::state_layout(s, range);
  if (states.per_sequence > 0 && kv.state == nullptr) {
    return core::make_error(core::ErrorKind::internal, "a hybrid's pass without its state");
  }
  const uint64_t seq_stride = cache.per_sequence;
  const size_t n = tokens.size();
  const model::Architecture& arch = s.traits();
  const uint32_t n_embd = s.n_embd;
  std::span<const float> factors;
  if (w.rope_freqs.data != nullptr) {
    factors = {floats(w.rope_freqs), w.rope_freqs.n_in};
  }
  // A quantized cache stores its rows turned by a Walsh-Hadamard matrix, as llama.cpp does; Q is
  // turned with K (the scores are unchanged but for the cache's rounding) and the output turned
  // back. Against a quantized K, Q is also rounded to Q8_0 as llama.cpp's CPU attention rounds it
  // (attend, round_query_q8_0); the devices do the same in engine_kv_store. With both, the
  // reference's logits are llama.cpp's to an NMSE of 2e-13 on an F32 file with q8_0 or q4_0 caches
  // (tests/engine/kv_cache_test.cpp).

  auto block = [&](size_t t) { return act + t * a.total; };
  auto each = [&](auto&& fn) {
    for (size_t t = 0; t < n; ++t) fn(block(t), tokens[t]);
  };
  // Work that reads nothing of the other tokens (norms, activations, residual adds), shared
  // between the threads in a long pass; a short one is not worth waking them.
  auto each_alone = [&](auto&& fn) {
    constexpr size_t kSharedFrom = 16;
    if (n < kSharedFrom) return each(fn);
    pool.parallel_for(n, [&](uint64_t t0, uint64_t t1) {
      for (uint64_t t = t0; t < t1; ++t) fn(block(t), tokens[t]);
    });
  };
  auto mm = [&](std::initializer_list<MatMul> ops) { matmuls(pool, act, a.total, n, ops); };

  // An attention layer: its Q/K/V projections, biases, Q/K norm, rotary, the cache, attention
  // (times sigmoid(gate) where the architecture gates it), the output projection into xb.
  auto attention = [&](const model::AttentionPlan& A, uint32_t l, const model::LayerWeights& L) {
    switch (A.projection) {
      case model::QkvProjection::fused:
        mm({{&L.wqkv, a.xb, a.q}});  // q, k and v are contiguous (activation_layout)
        break;
      case model::QkvProjection::query_gate:
        mm({{&L.wq, a.xb, a.q_gate}, {&L.wk, a.xb, a.k}, {&L.wv, a.xb, a.v}});
        each([&](float* b, const PassToken&) {
          split_query_gate(s, b + a.q_gate, b + a.q, b + a.gate);
        });
        break;
      case model::QkvProjection::query_only:
        mm({{&L.wq, a.xb, a.q}});
        break;
      case model::QkvProjection::k_as_v:
        mm({{&L.wq, a.xb, a.q}, {&L.wk, a.xb, a.k}});
        break;
      case model::QkvProjection::separate:
        mm({{&L.wq, a.xb, a.q}, {&L.wk, a.xb, a.k}, {&L.wv, a.xb, a.v}});
        break;
    }
    // laguna's gate is projected from the same input as Q, K and V (llama_model_laguna::graph).
    if (A.head_gate) mm({{&L.attn_gate, a.xb, a.gate}});
    const uint32_t hd = A.head_dim, n_kv = A.n_kv, n_q = A.n_q;
    const uint32_t rot_k = k_rotation(s, kv.precision, l), rot_v = v_rotation(s, kv.precision, l);
    std::vector<float> layer_table(A.rope_dims);
    each([&](float* b, const PassToken& t) {
      float *q = b + a.q, *k = b + a.k, *v = b + a.v;
      if (arch.qkv_bias) {
        add_bias(q, floats(L.bq), n_q);
        add_bias(k, floats(L.bk), n_kv);
        add_bias(v, floats(L.bv), n_kv);
      }
      if (arch.qk_norm) rmsnorm_heads(q, A.heads, hd, floats(L.q_norm), s.rms_eps);
      model::rope_table(s, l, A.rope_factors ? factors : std::span<const float>{}, t.pos,
                        layer_table);
      rope_heads(q, A.heads, hd, A.rope_dims, arch.rope, layer_table);
      // mistral3's temperature: Q times the position's factor after RoPE, before attention.
      if (const float temp = model::attention_temperature(s, t.pos); temp != 1.0f) {
        for (uint32_t i = 0; i < n_q; ++i) q[i] *= temp;
      }
      if (rot_k > 0) hadamard_rotate(q, n_q, rot_k);
      if (!A.stores_kv) return;
      // V as K: K's projection before K's norm, normed per head without a weight (ggml_rms_norm)
      // like every gemma4 V.
      if (A.projection == model::QkvProjection::k_as_v) std::copy_n(k, n_kv, v);
      if (arch.qk_norm) rmsnorm_heads(k, A.heads_kv, hd, floats(L.k_norm), s.rms_eps);
      if (arch.v_norm) rmsnorm_heads(v, A.heads_kv, hd, nullptr, s.rms_eps);
      rope_heads(k, A.heads_kv, hd, A.rope_dims, arch.rope, layer_table);
      const uint64_t slot =
          t.seq * seq_stride + cache.offset[l] + uint64_t{t.pos % cache.slots[l]} * n_kv;
      if (rot_k > 0) hadamard_rotate(k, n_kv, rot_k);
      if (rot_v > 0) hadamard_rotate(v, n_kv, rot_v);
      store_kv_row(kv.precision.k, k, kv.k + kv_byte_offset(kv.precision.k, slot), n_kv);
      store_kv_row(kv.precision.v, v, kv.v + kv_byte_offset(kv.precision.v, slot), n_kv);
    });
    // Every token's K and V is in the cache before any token attends: causal order inside the
    // pass comes from each token attending only up to its own position.
    const float* sinks = arch.attn_sinks ? floats(L.sinks) : nullptr;
    const Products* fast = pool.products();
    const bool by_rows = fast != nullptr && fast->has_attention_rows();
    if (by_rows) attend_pass(s, kv, cache, l, tokens, act, a, sinks, pool, *fast);
    each([&](float* b, const PassToken& t) {
      if (!by_rows) attend(s, kv, cache, l, t, b + a.q, sinks, b + a.att, b + a.xb2, pool);
      if (rot_v > 0) hadamard_rotate(b + a.xb2, n_q, rot_v);  // turned back
      if (A.projection == model::QkvProjection::query_gate) {
        float* out = b + a.xb2;
        const float* gate = b + a.gate;
        for (uint32_t i = 0; i < n_q; ++i) out[i] *= sigmoid(gate[i]);
      }
      if (A.head_gate) apply_head_gate(b + a.xb2, b + a.gate, A.heads, hd);
    });
    mm({{&L.wo, a.xb2, a.xb}});
  };

  // qwen35's recurrent layer: its projections, then token by token in pass order (each token's
  // conv and delta rule read the state its sequence's previous token left), then the output.
  auto delta_net = [&](uint32_t l, const model::LayerWeights& L) {
    const uint32_t heads = s.ssm_heads;
    mm({{&L.ssm_qkv, a.xb, a.ssm_qkv},
        {&L.ssm_gate, a.xb, a.ssm_z},
        {&L.ssm_beta, a.xb, a.ssm_ba},
        {&L.ssm_alpha, a.xb, a.ssm_ba + heads}});
    each([&](float* b, const PassToken& t) {
      float* state = kv.state + t.seq * states.per_sequence + states.offset[l];
      gated_delta_net_token(s, L, b + a.ssm_qkv, b + a.ssm_z, b + a.ssm_ba, state,
                            state + s.ssm_conv_floats(), t.pos == 0, b + a.ssm_conv, b + a.ssm_o);
    });
    mm({{&L.ssm_out, a.ssm_o, a.xb}});
  };

  // lfm2's short convolution: in_proj into B, C and x, the gated conv token by token in pass order
  // (each reads the state its sequence's previous token left), out_proj.
  auto short_conv = [&](uint32_t l, const model::LayerWeights& L) {
    mm({{&L.ssm_qkv, a.xb, a.ssm_qkv}});
    each([&](float* b, const PassToken& t) {
      float* state = kv.state + t.seq * states.per_sequence + states.offset[l];
      short_conv_token(s, L, b + a.ssm_qkv, state, t.pos == 0, b + a.ssm_o);
    });
    mm({{&L.ssm_out, a.ssm_o, a.xb}});
  };

  // nemotron_h's Mamba2 block: ssm_in into z, x, B, C and dt, the conv and scan token by token in
  // pass order (each reads the states its sequence's previous token left), ssm_out.
  auto mamba2 = [&](uint32_t l, const model::LayerWeights& L) {
    mm({{&L.ssm_qkv, a.xb, a.ssm_qkv}});
    each([&](float* b, const PassToken& t) {
      float* state = kv.state + t.seq * states.per_sequence + states.offset[l];
      mamba2_token(s, L, b + a.ssm_qkv, state, state + s.ssm_conv_floats(), t.pos == 0,
                   b + a.ssm_conv, b + a.ssm_o);
    });
    mm({{&L.ssm_out, a.ssm_o, a.xb}});
  };

  // nemotron_h's ungated feed-forward: act(ffn_up x), then ffn_down.
  auto ungated_ffn = [&](const model::LayerPlan& P, const model::LayerWeights& L) {
    mm({{&L.w_up, a.xb, a.hb}});
    each_alone([&](float* b, const PassToken&) { activation(arch.activation, b + a.hb, P.ff); });
    mm({{&L.w_down, a.hb, a.xb}});
  };

  auto dense_ffn = [&](const model::LayerPlan& P, const model::LayerWeights& L) {
    if (P.ffn == model::FeedForward::fused_gate_up) {
      mm({{&L.w_up, a.xb, a.hb}});  // gate into hb, up into hb2 = hb + n_ff
    } else {
      mm({{&L.w_gate, a.xb, a.hb}, {&L.w_up, a.xb, a.hb2}});
    }
    const Products* fast = pool.products();
    each_alone([&](float* b, const PassToken&) {
      if (fast != nullptr && arch.activation == model::Activation::silu) {
        fast->swiglu(b + a.hb, b + a.hb2, P.ff);
      } else {
        gated_activation(arch.activation, b + a.hb, b + a.hb2, P.ff);
      }
    });
    mm({{&L.w_down, a.hb, a.xb}});
  };

  // The layer's mixer between its norm and its residual add.
  auto mix = [&](const model::LayerPlan& P, const model::LayerWeights& L) {
    each_alone([&](float* b, const PassToken&) {
      rmsnorm(b + a.xb, b + a.x, floats(L.attn_norm), n_embd, s.rms_eps);
    });
    switch (P.mixer) {
      case model::Mixer::attention:
        attention(P.attention, P.index, L);
        break;
      case model::Mixer::gated_delta_net:
        delta_net(P.index, L);
        break;
      case model::Mixer::short_conv:
        short_conv(P.index, L);
        break;
      case model::Mixer::mamba2:
        mamba2(P.index, L);
        break;
      case model::Mixer::none:
        return;
    }
    each_alone([&](float* b, const PassToken&) {
      if (arch.out_bias) add_bias(b + a.xb, floats(L.bo), n_embd);
      add_residual(s, b + a.x, b + a.xb, L.post_attn_norm);
    });
  };

  // The layer's feed-forward between its norm and its residual add.
  auto feed_forward = [&](const model::LayerPlan& P, const model::LayerWeights& L) {
    each_alone([&](float* b, const PassToken&) {
      rmsnorm(b + a.xb, b + a.x, floats(L.ffn_norm), n_embd, s.rms_eps);
    });
    switch (P.ffn) {
      case model::FeedForward::dense_beside_experts:
        dense_beside_experts_ffn(s, L, act, n, a, pool);
        break;
      case model::FeedForward::experts:
        experts_ffn(s, L, act, n, a, pool);
        break;
      case model::FeedForward::gated:
      case model::FeedForward::fused_gate_up:
        dense_ffn(P, L);
        break;
      case model::FeedForward::ungated:
        ungated_ffn(P, L);
        break;
      case model::FeedForward::none:
        return;
    }
    each_alone(
        [&](float* b, const PassToken&) { add_residual(s, b + a.x, b + a.xb, L.post_ffn_norm); });
  };

  if (range.embed) {
    each_alone(
        [&](float* b, const PassToken& t) { embed_token(s, w.token_embd, t.token, b + a.x); });
  }
  const auto plan = model::plan_layers(s);
  for (uint32_t l = range.first; l < std::min(range.last, s.n_layer); ++l) {
    const model::LayerPlan& P = plan[l];
    const auto& L = w.layers[l];
    // nemotron_h's layers are one branch each: a mixer or a feed-forward.
    if (P.mixer != model::Mixer::none) mix(P, L);
    if (P.ffn != model::FeedForward::none) feed_forward(P, L);
    if (P.per_layer_input) per_layer_embedding(s, w, l, act, tokens, a, pool);
    // gemma4's layer_output_scale multiplies the whole residual stream (llama.cpp's loader takes
    // the tensor as optional).
    if (P.output_scale && L.out_scale.data != nullptr) {
      const float scale = floats(L.out_scale)[0];
      each([&](float* b, const PassToken&) {
        for (uint32_t i = 0; i < n_embd; ++i) b[a.x + i] *= scale;
      });
    }
  }
  // The logits of the tokens that want them (a prompt's last token, each decoded sequence's).
  for (size_t t = 0; t < n && range.output; ++t) {
    if (!tokens[t].logits) continue;
    float* b = block(t);
    rmsnorm(b + a.xb, b + a.x, floats(w.output_norm), n_embd, s.rms_eps);
    matmuls(pool, b, a.total, 1, {{&w.output, a.xb, a.logits}});
    if (s.logit_scale != 0.0f) {
      float* logits = b + a.logits;
      for (uint32_t i = 0; i < s.n_vocab; ++i) logits[i] *= 1.0f / s.logit_scale;
    }
    if (s.final_softcap > 0) {
      float* logits = b + a.logits;
      for (uint32_t i = 0; i < s.n_vocab; ++i) logits[i] = softcap(logits[i], s.final_softcap);
    }
  }
  return core::Status::ok();
}

core::Status forward_token(const model::ModelShape& s, const model::ModelWeights& w,
                           const KvCacheView& kv, float* act, int32_t token, uint32_t pos,
                           ThreadPool& pool) {
  const PassToken one{token, pos, 0, true};
  return forward_pass(s, w, kv, act, std::span<const PassToken>(&one, 1), pool);
}

}  // namespace gauntlet::engine::reference
