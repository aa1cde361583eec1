#pragma once
// A model loaded on one or more devices, fed token batches: every decoder of the engine is one
// (the host reference, the host backend's, the OpenCL and Vulkan decoders, a split across
// devices). decode, bench, the profile checks and the benchmarks take this interface; a profile
// check compares two of them.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/batch.h"
#include "engine/kernel_times.h"

namespace gauntlet::backends {
class Buffer;
class Device;
}  // namespace gauntlet::backends

namespace gauntlet::engine {

// Where a decoder stood: each sequence's next position and a hybrid's recurrent state (empty
// without recurrent layers). The KV cache needs no copy: entries past a position are overwritten
// before anything reads them.
struct DecoderCheckpoint {
  std::vector<uint32_t> positions;
  std::vector<std::byte> state;
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Feeds each token at its sequence's next position, in passes of at most the decoder's
  // micro-batch per sequence; returns the logits of the tokens marked, n_vocab each, in order
  // (valid until the next call).
  virtual core::Result<std::span<const float>> forward(std::span<const BatchToken> batch) = 0;
  // Every sequence starts again at position 0 (its cache is overwritten as it goes).
  virtual void reset() = 0;
  virtual uint32_t position(uint32_t seq = 0) const = 0;
  // Takes sequence `seq` back to position `pos` (not past where it is): the next token goes
  // there, and the cache entries past it are overwritten before anything reads them (a token
  // attends only to positions up to its own). For speculative decoding's rejected drafts; a
  // decoder whose layers keep a recurrent state cannot take it back and refuses.
  virtual core::Status rewind(uint32_t seq, uint32_t pos);
  // Saves where every sequence stands, and restores it: speculative decoding's way back on a
  // model with recurrent layers, which rewind refuses. Refused where the decoder cannot.
  virtual core::Result<DecoderCheckpoint> checkpoint();
  virtual core::Status restore(const DecoderCheckpoint& saved);
  // From now on (or no longer), forward also keeps every token's residual stream after the last
  // layer, before the output norm (n_embd floats each, in the batch's order; final_residuals):
  // what a multi-token-prediction head reads. False where the decoder cannot.
  virtual bool keep_final_residuals(bool keep);
  virtual std::span<const float> final_residuals() const { return final_; }
  // From now on every dispatch waits for its completion and adds its device time to `times`
  // (nullptr: stop); false where the decoder dispatches no kernels it can time (the host's).
  virtual bool time_dispatches(KernelTimes* /*times*/) { return false; }
  // Feeds `token` at sequence 0's next position; returns its logits.
  core::Result<std::span<const float>> step(int32_t token);

 protected:
  // A decoder that can keep its final residuals sets can_keep_final_ and, while keep_final_,
  // fills final_ in forward.
  bool can_keep_final_ = false;
  bool keep_final_ = false;
  std::vector<float> final_;
};

// Decoder::rewind over a decoder's next positions per sequence: refused for a sequence it does
// not have, or (taking a sequence back) where the model keeps a recurrent state.
core::Status rewind_position(std::vector<uint32_t>& positions, uint32_t seq, uint32_t pos,
                             bool recurrent);
// Decoder::restore's check of a checkpoint against the decoder it goes back into.
core::Status check_checkpoint(const DecoderCheckpoint& saved, size_t sequences, size_t state_bytes);
// Decoder::checkpoint and restore where the recurrent state is one buffer of `device`.
core::Result<DecoderCheckpoint> save_checkpoint(backends::Device& device,
                                                const backends::Buffer& state,
                                                const std::vector<uint32_t>& positions);
core::Status restore_checkpoint(backends::Device& device, backends::Buffer& state,
                                std::vector<uint32_t>& positions, const DecoderCheckpoint& saved);

}  // namespace gauntlet::engine
