#pragma once
// A batch of tokens for the decoders (reference, host device, OpenCL and Vulkan): each token goes
// to the next position of its sequence, and the batch is cut into passes the decoder's buffers
// hold (at most `micro_batch` tokens of one sequence, at most `capacity` in all).
#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"

namespace gauntlet::engine {

// One token of a pass: `token` at position `pos` of sequence `seq` (that sequence's positions
// before it are in the cache, or earlier in the same pass).
struct PassToken {
  int32_t token = 0;
  uint32_t pos = 0;
  uint32_t seq = 0;
  bool logits = true;  // compute this token's logits
};

struct BatchToken {
  int32_t token = 0;
  uint32_t seq = 0;
  bool logits = false;  // return this token's logits
};

// The tokens of `batch` a pass takes: [begin, end).
struct PassRange {
  size_t begin = 0, end = 0;
};

// Consecutive passes over `batch`, in order.
std::vector<PassRange> split_into_passes(std::span<const BatchToken> batch, uint32_t micro_batch,
                                         uint32_t capacity);

// Refuses a token outside the vocabulary, a sequence past `sequences`, or a position past the
// context (each sequence's next position is `positions[seq]` plus its earlier tokens in the
// batch).
core::Status check_batch(std::span<const BatchToken> batch, uint32_t n_vocab,
                         std::span<const uint32_t> positions, uint32_t context);

}  // namespace gauntlet::engine
