#include "engine/model/rope.h"

#include <cmath>

namespace gauntlet::engine::model {

namespace {

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
  const uint32_t dims = shape.rope_dims();
  for (uint32_t i = 0; i < dims / 2 && 2 * i + 1 < table.size(); ++i) {
    const double factor = i < factors.size() ? factors[i] : 1.0;
    const double theta = !turns(shape, i)
                             ? 0.0
                             : pos * static_cast<double>(shape.rope_scale(layer)) *
                                   std::pow(static_cast<double>(shape.rope_base(layer)),
                                            -2.0 * i / static_cast<double>(dims)) /
                                   factor;
    table[2 * i] = static_cast<float>(std::cos(theta));
    table[2 * i + 1] = static_cast<float>(std::sin(theta));
  }
}

}  // namespace gauntlet::engine::model
