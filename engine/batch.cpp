#include "engine/batch.h"

#include <algorithm>
#include <string>

namespace gauntlet::engine {

std::vector<PassRange> split_into_passes(std::span<const BatchToken> batch, uint32_t micro_batch,
                                         uint32_t capacity) {
  micro_batch = std::max(micro_batch, 1u);
  capacity = std::max(capacity, 1u);
  std::vector<PassRange> passes;
  std::vector<uint32_t> per_sequence;
  PassRange pass;
  for (size_t i = 0; i < batch.size(); ++i) {
    const uint32_t seq = batch[i].seq;
    if (seq >= per_sequence.size()) per_sequence.resize(seq + 1, 0);
    if (i - pass.begin == capacity || per_sequence[seq] == micro_batch) {
      pass.end = i;
      passes.push_back(pass);
      pass.begin = i;
      std::fill(per_sequence.begin(), per_sequence.end(), 0);
    }
    ++per_sequence[seq];
  }
  pass.end = batch.size();
  if (pass.end > pass.begin) passes.push_back(pass);
  return passes;
}

core::Status check_batch(std::span<const BatchToken> batch, uint32_t n_vocab,
                         std::span<const uint32_t> positions, uint32_t context) {
  if (batch.empty()) {
    return core::make_error(core::ErrorKind::invalid_argument, "an empty batch of tokens");
  }
  std::vector<uint32_t> next(positions.begin(), positions.end());
  for (const auto& t : batch) {
    if (t.token < 0 || static_cast<uint32_t>(t.token) >= n_vocab) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "token id " + std::to_string(t.token) +
                                  " is outside the vocabulary 0.." + std::to_string(n_vocab - 1));
    }
    if (t.seq >= next.size()) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "sequence " + std::to_string(t.seq) + " is past the decoder's " +
                                  std::to_string(next.size()));
    }
    if (next[t.seq]++ >= context) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "position " + std::to_string(next[t.seq] - 1) + " of sequence " +
                                  std::to_string(t.seq) + " is past the context of " +
                                  std::to_string(context));
    }
  }
  return core::Status::ok();
}

}  // namespace gauntlet::engine
