#include "engine/model/rope.h"

#include <cmath>

namespace gauntlet::engine::model {

void rope_table(const ModelShape& shape, std::span<const float> factors, uint32_t pos,
                std::span<float> table) {
  const uint32_t dims = shape.rope_dims();
  for (uint32_t i = 0; i < dims / 2 && 2 * i + 1 < table.size(); ++i) {
    const double factor = i < factors.size() ? factors[i] : 1.0;
    const double theta =
        pos * static_cast<double>(shape.rope_freq_scale) *
        std::pow(static_cast<double>(shape.rope_freq_base), -2.0 * i / static_cast<double>(dims)) /
        factor;
    table[2 * i] = static_cast<float>(std::cos(theta));
    table[2 * i + 1] = static_cast<float>(std::sin(theta));
  }
}

}  // namespace gauntlet::engine::model
