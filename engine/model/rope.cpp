#include "engine/model/rope.h"

#include <algorithm>
#include <cmath>

namespace gauntlet::engine::model {

namespace {

// ext_factor is 1 whenever the scaling type is yarn (src/llama-context.cpp); beta_fast and
// beta_slow are llama.cpp's defaults (32, 1) unless mistral3's file gives them.
// ggml.c, ggml_rope_yarn_corr_dim: the dimension whose wavelength fits n_rot turns in the
// original context.
float corr_dim(uint32_t dims, uint32_t orig_context, float n_rot, float base) {
  return static_cast<float>(dims) *
         std::log(static_cast<float>(orig_context) / (n_rot * 2 * static_cast<float>(M_PI))) /
         (2 * std::log(base));
}

// The blend of YaRN for one layer: ggml_rope_yarn_corr_dims and the magnitude that
// llama_context's yarn_attn_factor and ggml-cpu's rope_yarn multiply together.
struct Yarn {
  float low = 0, high = 0, mscale = 1;
};

Yarn yarn_of(const ModelShape& s, float base, float scale) {
  const uint32_t dims = s.rope_dims();
  const uint32_t orig = s.yarn_orig_context != 0 ? s.yarn_orig_context : s.context;
  Yarn y;
  y.low = std::max(0.0f, std::floor(corr_dim(dims, orig, s.yarn_beta_fast, base)));
  y.high = std::min(static_cast<float>(dims - 1),
                    std::ceil(corr_dim(dims, orig, s.yarn_beta_slow, base)));
  // src/llama-context.cpp: attn_factor = get_mscale(factor, 1) (over get_mscale(factor, log_mul)
  // where the file gives rope.scaling.yarn_log_multiplier) / (1 + 0.1 ln factor) *
  // rope.scaling.attn_factor, factor = 1 / the model's freq_scale; ggml-cpu's rope_yarn then
  // multiplies by 1 + 0.1 ln(1 / freq_scale) of the layer.
  const float factor = 1.0f / s.rope_freq_scale;
  auto get_mscale = [factor](float mscale) {
    return factor <= 1.0f ? 1.0f : 0.1f * mscale * std::log(factor) + 1.0f;
  };
  const float mscale =
      s.yarn_log_mul != 0.0f ? get_mscale(1.0f) / get_mscale(s.yarn_log_mul) : get_mscale(1.0f);
  const float attn_factor = mscale * (1.0f / (1.0f + 0.1f * std::log(factor))) * s.rope_attn_factor;
  y.mscale = attn_factor * (1.0f + 0.1f * std::log(1.0f / scale));
  return y;
}

// Whether pair i turns by the position at all. With rope.dimension_sections (IMROPE, ggml-cpu's
// ggml_mrope_cache_init with is_imrope) sector i % (sum of sections) takes the time, height or
// width position by i % 3 while within 3x that section, else the fourth ("extra") component, whose
// position llama.cpp sets to 0 for text tokens (llm_graph_input_pos::set_input): no turn. The
// time, height and width positions of a text token are all its position.
bool turns(const ModelShape& shape, uint32_t i) {
  if (!shape.traits().rope_sections) return true;
  const auto& s = shape.rope_sections;
  const uint32_t sectors = s[0] + s[1] + s[2] + s[3];
  if (sectors == 0) return true;
  const uint32_t sector = i % sectors;
  return (sector % 3 == 0 && sector < 3 * s[0]) || (sector % 3 == 1 && sector < 3 * s[1]) ||
         (sector % 3 == 2 && sector < 3 * s[2]);
}

}  // namespace

void rope_table(const ModelShape& shape, uint32_t layer, std::span<const float> factors,
                uint32_t pos, std::span<float> table) {
  const uint32_t dims = shape.rope_dims(layer);
  const float base = shape.rope_base(layer), scale = shape.rope_scale(layer);
  // Without YaRN the magnitude is rope.scaling.attn_factor alone (llama_context multiplies it in
  // for every model); laguna's sliding layers pass attn_factor 1 and ext_factor 0
  // (llama_model_laguna::graph).
  const bool plain = shape.plain_rope(layer), yarn = shape.yarn && !plain;
  const Yarn y =
      yarn ? yarn_of(shape, base, scale) : Yarn{0, 0, plain ? 1.0f : shape.rope_attn_factor};
  for (uint32_t i = 0; i < dims / 2 && 2 * i + 1 < table.size(); ++i) {
    const double factor = i < factors.size() ? factors[i] : 1.0;
    const double extrapolated =
        !turns(shape, i)
            ? 0.0
            : pos * std::pow(static_cast<double>(base), -2.0 * i / static_cast<double>(dims)) /
                  factor;
    const double interpolated = static_cast<double>(scale) * extrapolated;
    double theta = interpolated;
    if (yarn) {
      // ggml-cpu ops.cpp, rope_yarn_ramp and rope_yarn with ext_factor 1.
      const float ramp =
          1 - std::clamp((static_cast<float>(i) - y.low) / std::max(0.001f, y.high - y.low), 0.0f,
                         1.0f);
      theta = interpolated * (1 - ramp) + extrapolated * ramp;
    }
    table[2 * i] = static_cast<float>(std::cos(theta)) * y.mscale;
    table[2 * i + 1] = static_cast<float>(std::sin(theta)) * y.mscale;
  }
}

float attention_temperature(const ModelShape& shape, uint32_t pos) {
  if (shape.attn_temp_scale == 0.0f) return 1.0f;
  // As llama.cpp: a float position over the float floor scale (n_ctx_orig_yarn), the rest double.
  const auto floor_scale =
      static_cast<float>(shape.yarn_orig_context != 0 ? shape.yarn_orig_context : shape.context);
  const float steps = std::floor(static_cast<float>(pos) / floor_scale);
  return static_cast<float>(std::log(steps + 1.0) * shape.attn_temp_scale + 1.0);
}

}  // namespace gauntlet::engine::model
