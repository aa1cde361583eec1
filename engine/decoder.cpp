#include "engine/decoder.h"

#include "backends/device.h"

namespace gauntlet::engine {

core::Result<std::span<const float>> Decoder::step(int32_t token) {
  const BatchToken one{token, 0, true};
  return forward(std::span<const BatchToken>(&one, 1));
}

core::Status Decoder::rewind(uint32_t, uint32_t) {
  return core::make_error(core::ErrorKind::unsupported, "this decoder cannot be taken back");
}

bool Decoder::keep_final_residuals(bool keep) {
  keep_final_ = keep && can_keep_final_;
  return can_keep_final_;
}

core::Result<DecoderCheckpoint> Decoder::checkpoint() {
  return core::make_error(core::ErrorKind::unsupported,
                          "this decoder cannot save its state (a placement across devices)");
}

core::Status Decoder::restore(const DecoderCheckpoint&) {
  return core::make_error(core::ErrorKind::unsupported, "this decoder cannot restore a state");
}

core::Status check_checkpoint(const DecoderCheckpoint& saved, size_t sequences,
                              size_t state_bytes) {
  if (saved.positions.size() == sequences && saved.state.size() == state_bytes) {
    return core::Status::ok();
  }
  return core::make_error(
      core::ErrorKind::internal,
      "a checkpoint of another decoder (" + std::to_string(saved.positions.size()) +
          " sequences, " + std::to_string(saved.state.size()) + " state bytes; this one has " +
          std::to_string(sequences) + " and " + std::to_string(state_bytes) + ")");
}

core::Result<DecoderCheckpoint> save_checkpoint(backends::Device& device,
                                                const backends::Buffer& state,
                                                const std::vector<uint32_t>& positions) {
  DecoderCheckpoint saved{positions, std::vector<std::byte>(state.size())};
  GAUNTLET_TRY(device.download(state, saved.state));
  return saved;
}

core::Status restore_checkpoint(backends::Device& device, backends::Buffer& state,
                                std::vector<uint32_t>& positions, const DecoderCheckpoint& saved) {
  GAUNTLET_TRY(check_checkpoint(saved, positions.size(), state.size()));
  GAUNTLET_TRY(device.upload(state, saved.state));
  positions = saved.positions;
  return core::Status::ok();
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
