#pragma once
// The rotary embedding as ggml computes it (ggml-cpu's rope): pair i of a head turns by
// theta_i = pos * freq_scale * freq_base^(-2i / n_rot) / factor_i, where factor_i comes from the
// model's rope_freqs tensor (1 without one). With YaRN (ext_factor 1) theta_i blends that
// interpolated angle with the unscaled one by ggml's ramp over the correction dimensions, and
// cos/sin are multiplied by the magnitude correction (rope_yarn). The host reference and the device
// decoders both take their angles from here; the devices then turn the pairs that rope_pair names.
#include <cstdint>
#include <span>
#include <utility>

#include "engine/model/shape.h"

namespace gauntlet::engine::model {

// table[2i] = cos(theta_i), table[2i + 1] = sin(theta_i) for i < rope_dims / 2, computed in
// double, with `layer`'s base and scale (ModelShape::rope_base). `factors` is empty or holds
// rope_dims / 2 values.
void rope_table(const ModelShape& shape, uint32_t layer, std::span<const float> factors,
                uint32_t pos, std::span<float> table);

// Llama 4's attention temperature as llama.cpp's llm_graph_input_attn_temp computes it for
// mistral3: 1 + attn_temp_scale * ln(floor(pos / yarn_orig_context) + 1), in double, then float; 1
// without a temperature scale.
float attention_temperature(const ModelShape& shape, uint32_t pos);

// The two elements of a head that pair i (< head_dim / 2) holds: (2i, 2i + 1) for NORM; for NEOX
// (i, i + rope_dims / 2) while i < rope_dims / 2, and the unrotated tail (2i, 2i + 1) after.
inline std::pair<uint32_t, uint32_t> rope_pair(RopeStyle style, uint32_t i, uint32_t rope_dims) {
  if (style == RopeStyle::neox && 2 * i < rope_dims) return {i, i + rope_dims / 2};
  return {2 * i, 2 * i + 1};
}

}  // namespace gauntlet::engine::model
