#include "engine/model/layer_plan.h"

#include <cmath>

namespace gauntlet::engine::model {

namespace {

QkvProjection projection(const ModelShape& s, uint32_t l) {
  const Architecture& arch = s.traits();
  if (arch.fused_qkv) return QkvProjection::fused;
  if (arch.attn_output_gate) return QkvProjection::query_gate;
  if (!s.has_kv(l)) return QkvProjection::query_only;
  if (!s.has_v(l)) return QkvProjection::k_as_v;
  return QkvProjection::separate;
}

AttentionPlan attention(const ModelShape& s, uint32_t l) {
  const Architecture& arch = s.traits();
  AttentionPlan a;
  a.projection = projection(s, l);
  a.heads = s.heads(l);
  a.heads_kv = s.heads_kv(l);
  a.head_dim = s.head_dim(l);
  a.rope_dims = arch.no_rope || !s.rope ? 0 : s.rope_dims(l);
  a.n_q = s.n_embd_q(l);
  a.n_kv = s.n_embd_kv(l);
  a.window = s.sliding(l) ? s.sliding_window : 0;
  a.kv_layer = s.kv_layer(l);
  a.stores_kv = s.has_kv(l);
  a.rope_table = s.sliding(l) || (arch.per_layer_attention && s.swa_layer(l)) ? 1 : 0;
  a.rope_factors = !(arch.rope_freqs_global_only && s.swa_layer(l));
  a.scale = s.query_scale(l);
  a.head_gate = arch.attn_head_gate;
  return a;
}

FeedForward feed_forward(const ModelShape& s, uint32_t l) {
  if (s.traits().one_branch_layers && s.mixer(l) != Mixer::none) return FeedForward::none;
  if (s.dense_beside_experts()) return FeedForward::dense_beside_experts;
  if (s.moe_layer(l)) return FeedForward::experts;
  if (s.traits().ungated_ffn) return FeedForward::ungated;
  return s.traits().fused_gate_up ? FeedForward::fused_gate_up : FeedForward::gated;
}

}  // namespace

std::vector<LayerPlan> plan_layers(const ModelShape& s) {
  std::vector<LayerPlan> plan(s.n_layer);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    LayerPlan& p = plan[l];
    p.index = l;
    p.mixer = s.mixer(l);
    if (p.mixer == Mixer::attention) p.attention = attention(s, l);
    p.ffn = feed_forward(s, l);
    p.ff = s.ff(l);
    p.per_layer_input = s.per_layer_embeddings();
    p.output_scale = s.traits().layer_output_scale;
  }
  return plan;
}

}  // namespace gauntlet::engine::model
