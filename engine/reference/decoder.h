#pragma once
// The CPU reference decoder over a model in host memory (for instance a memory-mapped GGUF
// file), and greedy decoding over any step function.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/model/loaded_model.h"
#include "engine/reference/forward.h"

namespace gauntlet::engine::reference {

struct DecodeOptions {
  unsigned threads = 0;  // 0: one per hardware thread
  KvPrecision kv = KvPrecision::f32;
  uint32_t context = 0;  // positions the KV cache holds; 0: the model's context
};

class Decoder {
 public:
  // `model` (and the bytes it points into) must outlive the decoder.
  static core::Result<std::unique_ptr<Decoder>> create(const model::LoadedModel& model,
                                                       const DecodeOptions& options);
  Decoder(const model::LoadedModel& model, const DecodeOptions& options, uint32_t context);

  // Feeds `token` at the next position and returns the logits (valid until the next step).
  core::Result<std::span<const float>> step(int32_t token);
  uint32_t position() const { return pos_; }
  uint32_t context() const { return context_; }
  void reset() { pos_ = 0; }

 private:
  const model::LoadedModel& model_;
  KvPrecision kv_;
  uint32_t context_;
  ThreadPool pool_;
  std::vector<float> activations_;
  std::vector<std::byte> k_cache_, v_cache_;
  uint32_t pos_ = 0;
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
