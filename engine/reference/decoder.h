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
#include "engine/model/loaded_model.h"
#include "engine/reference/forward.h"

namespace gauntlet::engine::reference {

struct DecodeOptions {
  unsigned threads = 0;  // 0: one per hardware thread
  KvPrecision kv = KvPrecision::f32;
  uint32_t context = 0;      // positions the KV cache holds; 0: the model's context
  uint32_t sequences = 1;    // sequences with a KV cache each
  uint32_t micro_batch = 1;  // the most tokens of one sequence in a pass
};

class Decoder {
 public:
  // `model` (and the bytes it points into) must outlive the decoder.
  static core::Result<std::unique_ptr<Decoder>> create(const model::LoadedModel& model,
                                                       const DecodeOptions& options);
  Decoder(const model::LoadedModel& model, const DecodeOptions& options, uint32_t context);

  // Feeds `token` at the next position and returns the logits (valid until the next step).
  core::Result<std::span<const float>> step(int32_t token);
  // Feeds each token at its sequence's next position, in passes of at most micro_batch tokens
  // per sequence; returns the logits of the tokens marked, n_vocab each, in order (valid until
  // the next call).
  core::Result<std::span<const float>> forward(std::span<const BatchToken> batch);
  uint32_t position(uint32_t seq = 0) const { return pos_[seq]; }
  uint32_t context() const { return context_; }
  void reset() { std::fill(pos_.begin(), pos_.end(), 0); }

 private:
  const model::LoadedModel& model_;
  KvPrecision kv_;
  uint32_t context_, sequences_, micro_batch_;
  ThreadPool pool_;
  std::vector<float> activations_, logits_;
  std::vector<std::byte> k_cache_, v_cache_;
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
