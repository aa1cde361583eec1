// A model shape's own rules: the architecture's defaults, the largest per-layer widths, and which
// way a command line's shape is read. The presets are in shape_presets.cpp, the checks in
// shape_validate.cpp, the --dims parser in shape_dims.cpp.
#include "engine/model/shape.h"

#include <algorithm>
#include <cmath>

namespace gauntlet::engine::model {

float ModelShape::query_scale(uint32_t layer) const {
  if (attention_scale != 0.0f) return attention_scale;
  if (traits().attn_scale_one) return 1.0f;
  return 1.0f / std::sqrt(static_cast<float>(head_dim(layer)));
}

float ModelShape::embedding_multiplier() const {
  if (traits().embed_scale) return std::sqrt(static_cast<float>(n_embd));
  return embedding_scale != 0.0f ? embedding_scale : 1.0f;
}

void apply_architecture_defaults(ModelShape& s) {
  const Architecture& a = s.traits();
  if (s.sliding_window == 0) s.sliding_window = a.default_window;
  if (s.attn_softcap == 0) s.attn_softcap = a.attn_softcap;
  if (s.final_softcap == 0) s.final_softcap = a.final_softcap;
  if (!a.per_layer_attention) return;
  // gemma4's files carry the pattern; a shape without one takes the architecture's period.
  if (s.swa_layers.empty()) {
    const uint32_t pattern = a.swa_pattern;
    for (uint32_t l = 0; l < s.n_layer; ++l) s.swa_layers.push_back(l % pattern < pattern - 1);
  }
  // Its global layers always take rope_freqs (src/models/gemma4.cpp creates it for the first
  // global layer without TENSOR_NOT_REQUIRED).
  for (uint32_t l = 0; l < s.n_layer; ++l) s.rope_freqs = s.rope_freqs || !s.swa_layer(l);
}

uint32_t ModelShape::max_n_embd_q() const {
  uint32_t m = n_embd_q();
  for (uint32_t l = 0; l < n_layer; ++l) m = std::max(m, n_embd_q(l));
  return m;
}

uint32_t ModelShape::max_n_embd_kv() const {
  uint32_t m = n_embd_kv();
  for (uint32_t l = 0; l < n_layer; ++l) m = std::max(m, n_embd_kv(l));
  return m;
}

uint32_t ModelShape::max_ff() const {
  uint32_t m = n_ff;
  for (uint32_t ff : layer_ff) m = std::max(m, ff);
  return m;
}

uint32_t ModelShape::max_heads() const {
  uint32_t m = n_head;
  for (uint32_t l = 0; l < n_layer; ++l) m = std::max(m, heads(l));
  return m;
}

core::Result<ModelShape> parse_shape(const std::string& text) {
  return text.find('=') != std::string::npos ? parse_dims(text) : preset_shape(text);
}

}  // namespace gauntlet::engine::model
