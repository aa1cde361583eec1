#pragma once
// A model file's own multi-token-prediction head (qwen35's MTP block, "nextn"), run on the host as
// a draft for speculative decoding. llama.cpp 3.22.1's src/models/qwen35.cpp graph_mtp is the
// definition: for the token at position p and the target's hidden at p - 1 (its last residual
// stream through the output norm, t_h_nextn),
//   x = eh_proj . [enorm(embed(token)); hnorm(hidden)]
// then one full-attention qwen35 layer over x (its own KV cache, positions as the target's), the
// head's norm (nextn.shared_head_norm, else the model's output norm) and the output
// (nextn.shared_head_head, else the model's). Its normed output is the hidden of its next draft.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/reference/decoder.h"

namespace gauntlet::engine {

class MtpHead {
 public:
  // The head of the model in `info` / `file_bytes` (which must outlive it), whose trunk `target`
  // is bound from the same file. Refused for a file without one MTP block. `products`: the
  // reference's exact ones (nullptr) or faster ones, such as the cpu device's.
  static core::Result<std::unique_ptr<MtpHead>> create(
      const model::GgufInfo& info, std::span<const std::byte> file_bytes,
      const model::LoadedModel& target, uint32_t context, unsigned threads,
      std::shared_ptr<const reference::Products> products = nullptr);

  // The target's residual streams (Decoder::final_residuals) as the head reads them: through the
  // target's output norm.
  std::vector<float> target_hidden(std::span<const float> residuals) const;
  // Runs the pairs (hidden row i, token i) at positions pos, pos + 1, ...: each token beside the
  // hidden of the position before it. Returns the last pair's logits; own_hidden() is then its
  // hidden, for the next draft.
  core::Result<std::span<const float>> run(std::span<const int32_t> tokens,
                                           std::span<const float> hidden, uint32_t pos);
  std::span<const float> own_hidden() const { return own_hidden_; }
  uint32_t n_embd() const { return block_.shape.n_embd; }

 private:
  MtpHead() = default;

  model::LoadedModel block_;  // the MTP block as a one-layer model (the decoder reads it)
  model::TensorView eh_proj_, enorm_, hnorm_, embed_, target_norm_;
  std::shared_ptr<const reference::Products> products_;
  std::unique_ptr<reference::Decoder> decoder_;
  std::unique_ptr<reference::ThreadPool> pool_;
  std::vector<float> act_, logits_, own_hidden_;
};

}  // namespace gauntlet::engine
