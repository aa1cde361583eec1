#include "engine/decoder.h"

namespace gauntlet::engine {

core::Result<std::span<const float>> Decoder::step(int32_t token) {
  const BatchToken one{token, 0, true};
  return forward(std::span<const BatchToken>(&one, 1));
}

}  // namespace gauntlet::engine
