#pragma once
// The CPU reference decoder over a model in host memory (for instance a memory-mapped GGUF
// file), and greedy decoding over any step function.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/batch.h"
#include "engine/decoder.h"
#include "engine/model/loaded_model.h"
#include "engine/planner/decoder_settings.h"
#include "engine/reference/forward.h"
#include "engine/reference/matmuls.h"
#include "engine/stage.h"

namespace gauntlet::engine::reference {

// The decoder's settings (the same as every decoder's), and what only the reference takes.
struct DecodeOptions : planner::DecoderSettings {
  // The layers it runs: the whole model, or a placement's share on the host (run through
  // run_stage; the KV cache then holds only the share's layers).
  planner::LayerRange range = planner::LayerRange::whole();
  // Products in place of the exact ones, such as the cpu device's (cpu::make_fast_products():
  // 8-bit activations, integer SIMD dot products), given by the caller so that the reference
  // depends on no faster floor; the same graph either way.
  std::shared_ptr<const Products> products = nullptr;
};

class Decoder final : public engine::Decoder, public engine::Stage {
 public:
  // `model` (and the bytes it points into) must outlive the decoder.
  static core::Result<std::unique_ptr<Decoder>> create(const model::LoadedModel& model,
                                                       const DecodeOptions& options);
  Decoder(const model::LoadedModel& model, const DecodeOptions& options, uint32_t context);

  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) override;
  uint32_t position(uint32_t seq = 0) const override { return pos_[seq]; }
  void reset() override { std::fill(pos_.begin(), pos_.end(), 0); }
  core::Status rewind(uint32_t seq, uint32_t pos) override {
    return rewind_position(pos_, seq, pos, model_.shape.recurrent_layers() > 0);
  }
  core::Result<DecoderCheckpoint> checkpoint() override;
  core::Status restore(const DecoderCheckpoint& saved) override;
  uint32_t context() const { return context_; }

  core::Status run_stage(std::span<const PassToken> pass, std::span<float> x,
                         std::vector<float>& logits) override;
  uint32_t pass_capacity() const override;

 private:
  // Runs `pass` and appends its marked tokens' logits when the range has the output layer.
  core::Status run_pass(std::span<const PassToken> pass, std::vector<float>& logits);

  const model::LoadedModel& model_;
  planner::LayerRange range_;
  KvPrecision kv_;
  bool flash_attention_ = false;
  uint32_t context_, sequences_, micro_batch_;
  ThreadPool pool_;
  std::shared_ptr<const Products> products_;  // the options' products, when given
  std::vector<float> activations_, logits_;
  std::vector<std::byte> k_cache_, v_cache_;
  std::vector<float> state_;  // a hybrid's recurrent state (planner::state_layout)
  std::vector<uint32_t> pos_;
};

// Index of the largest value (the first one on ties).
int32_t argmax(std::span<const float> logits);

using StepFn = std::function<core::Result<std::span<const float>>(int32_t token)>;
// Called after each step with the step index, the token fed and the logits it produced.
using StepCallback =
    std::function<void(uint32_t step, int32_t token, std::span<const float> logits)>;

// Feeds the prompt, then generates `n` tokens greedily (each generated token is fed back,
// except the last). Returns the generated tokens.
core::Result<std::vector<int32_t>> greedy_decode(const StepFn& step,
                                                 std::span<const int32_t> prompt, uint32_t n,
                                                 const StepCallback& on_step = {});

}  // namespace gauntlet::engine::reference
