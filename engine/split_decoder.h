#pragma once
// A model placed across devices (placement::Placement), run as one decoder: each pass's tokens
// are looked up on the host, then handed from share to share as their residual streams, and the
// share with the output layer gives the logits. This is the one place where positions, sequence
// ids and micro-batch boundaries cross from one device to the next: every share runs the same
// pass, with the same {token, position, sequence} rows, in the same order.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/decoder.h"
#include "engine/model/loaded_model.h"
#include "engine/stage.h"

namespace gauntlet::engine {

class SplitDecoder final : public Decoder {
 public:
  // `host_view` (the model bound to the file's bytes, for the input embedding) and each stage's
  // model must outlive the decoder; the stages are in layer order and the last has the output
  // layer. Passes hold at most `micro_batch` tokens of a sequence and at most the smallest
  // stage's capacity in all.
  SplitDecoder(const model::LoadedModel& host_view, std::vector<std::unique_ptr<Stage>> stages,
               uint32_t context, uint32_t sequences, uint32_t micro_batch);

  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override;
  void reset() override { std::fill(pos_.begin(), pos_.end(), 0); }
  uint32_t position(uint32_t seq = 0) const override { return pos_[seq]; }
  core::Status rewind(uint32_t seq, uint32_t pos) override {
    return rewind_position(pos_, seq, pos, host_view_.shape.recurrent_layers() > 0);
  }

 private:
  const model::LoadedModel& host_view_;
  std::vector<std::unique_ptr<Stage>> stages_;
  uint32_t context_, micro_batch_, capacity_;
  std::vector<uint32_t> pos_;
  std::vector<engine::PassToken> pass_;
  std::vector<float> residuals_, logits_;
};

}  // namespace gauntlet::engine
