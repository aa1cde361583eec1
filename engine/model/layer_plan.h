#pragma once
// What each layer of a model computes, decided once from its shape: the token mixer (attention
// with its projection kind and head shape, or a recurrent block), the feed-forward kind and the
// per-layer extras. The host reference and the device decoder walk this plan with one switch per
// decision, so that a new architecture is a new case here (and, for a new kind, one piece per
// decoder) rather than a flag read in every loop. Which layer is which comes from llama.cpp's
// graphs (src/models/<arch>.cpp), as ModelShape answers it per layer.
#include <cstdint>
#include <vector>

#include "engine/model/shape.h"

namespace gauntlet::engine::model {

// How an attention layer's Q, K and V come out of its normed input.
enum class QkvProjection : uint8_t {
  separate,    // attn_q, attn_k, attn_v
  fused,       // one attn_qkv whose rows are Q, K, V back to back (phi3)
  query_gate,  // attn_q gives each head [q | gate]; the output is gated (qwen35)
  k_as_v,      // attn_q and attn_k; V is K's projection before K's norm (gemma4's global layers)
  query_only,  // attn_q alone: the layer reads another layer's cache (gemma4's shared layers)
};

// The feed-forward after the mixer.
enum class FeedForward : uint8_t {
  gated,                 // act(ffn_gate x) * ffn_up x, then ffn_down
  fused_gate_up,         // one ffn_up of 2 ff rows, gate first (phi3)
  experts,               // routed experts, with the shared expert where the architecture has one
  dense_beside_experts,  // gemma4's 26B-A4B: the dense branch and the experts, each post-normed
  ungated,               // act(ffn_up x), then ffn_down (nemotron_h's squared ReLU)
  none,                  // a layer that is its mixer alone (nemotron_h's Mamba2 and attention)
};

struct AttentionPlan {
  QkvProjection projection = QkvProjection::separate;
  uint32_t heads = 0, heads_kv = 0, head_dim = 0;
  uint32_t rope_dims = 0;      // the head's dimensions turned; 0 where the layer turns none
  uint32_t n_q = 0, n_kv = 0;  // heads x head_dim, heads_kv x head_dim
  uint32_t window = 0;         // the last positions a sliding layer attends to; 0: all
  uint32_t kv_layer = 0;  // the layer whose cache it stores into and reads (itself unless shared)
  bool stores_kv = true;  // false for a layer that reads another's cache
  // The rotary angle table: 0 the global layers', 1 the sliding layers' (their own base, and in
  // gemma4 their own dimensions; rope_freqs turn only gemma4's global layers).
  uint32_t rope_table = 0;
  bool rope_factors = true;  // rope_freqs.weight's factors apply, where the file has them
  float scale = 0.0f;        // the query scale: 1/sqrt(head_dim), or 1 where Q and K are normed
  // laguna: attn_gate projects the layer's input to one value per head, and each head's output is
  // multiplied by softplus of it before attn_output.
  bool head_gate = false;
};

struct LayerPlan {
  uint32_t index = 0;
  Mixer mixer = Mixer::attention;
  AttentionPlan attention;  // for Mixer::attention
  FeedForward ffn = FeedForward::gated;
  uint32_t ff = 0;               // the dense feed-forward's width
  bool per_layer_input = false;  // gemma4's per-layer embedding after the feed-forward
  bool output_scale = false;     // gemma4's layer_output_scale on the residual stream
};

// One record per layer, in order.
std::vector<LayerPlan> plan_layers(const ModelShape& shape);

}  // namespace gauntlet::engine::model
