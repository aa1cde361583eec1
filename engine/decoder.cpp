#include "engine/decoder.h"

namespace gauntlet::engine {

core::Result<std::span<const float>> Decoder::step(int32_t token) {
  const BatchToken one{token, 0, true};
  return forward(std::span<const BatchToken>(&one, 1));
}

core::Status Decoder::rewind(uint32_t, uint32_t) {
  return core::make_error(core::ErrorKind::unsupported, "this decoder cannot be taken back");
}

core::Status rewind_position(std::vector<uint32_t>& positions, uint32_t seq, uint32_t pos,
                             bool recurrent) {
  if (seq >= positions.size()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "sequence " + std::to_string(seq) + " is past the decoder's " +
                                std::to_string(positions.size()));
  }
  if (pos >= positions[seq]) return core::Status::ok();
  if (recurrent) {
    return core::make_error(core::ErrorKind::unsupported,
                            "a model with recurrent layers cannot be taken back to an earlier "
                            "position (its state holds every token fed)");
  }
  positions[seq] = pos;
  return core::Status::ok();
}

}  // namespace gauntlet::engine
