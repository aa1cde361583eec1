#pragma once
// Speculative decoding, greedy: a draft model proposes up to draft_max tokens one at a time, the
// target checks them all in one pass and keeps the longest prefix it would have picked itself,
// plus its own next token. With greedy sampling the tokens are the target's alone, draft or no
// draft (llama.cpp's common/speculative.cpp and examples/speculative-simple draft the same way);
// a difference is an error of the decoders, which the caller checks against a plain decode.
#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/decoder.h"
#include "engine/mtp_head.h"

namespace gauntlet::engine {

struct SpeculativeOptions {
  uint32_t draft_max = 16;  // --draft-max: the most tokens drafted for one check
  uint32_t draft_min = 0;   // --draft-min: fewer left to draft than this, the target steps alone
};

struct SpeculativeStats {
  uint64_t drafted = 0;   // tokens the draft proposed
  uint64_t accepted = 0;  // of them, the target's own picks
  uint64_t checks = 0;    // the target's passes over a draft
  double acceptance() const {
    return drafted == 0 ? 0.0 : static_cast<double>(accepted) / static_cast<double>(drafted);
  }
};

// Feeds `prompt` to both decoders (sequence 0, from position 0), then generates `n` tokens.
// The target needs a micro-batch of at least draft_max + 1 and must rewind or, with recurrent
// layers, save and restore its state (Decoder::checkpoint); the draft must rewind. `n_vocab` is
// the target's (the draft's must be the same).
core::Result<std::vector<int32_t>> speculative_greedy(Decoder& target, Decoder& draft,
                                                      std::span<const int32_t> prompt, uint32_t n,
                                                      uint32_t n_vocab,
                                                      const SpeculativeOptions& options,
                                                      SpeculativeStats& stats);

// The same with the target file's own MTP head drafting (llama.cpp's draft-mtp,
// common/speculative.cpp): each draft beside the hidden the head gave for the one before, the
// first beside the target's; after each check the head is fed the kept tokens beside the
// target's hiddens. The target must keep its final residuals (Decoder::keep_final_residuals).
core::Result<std::vector<int32_t>> speculative_mtp(Decoder& target, MtpHead& head,
                                                   std::span<const int32_t> prompt, uint32_t n,
                                                   uint32_t n_vocab,
                                                   const SpeculativeOptions& options,
                                                   SpeculativeStats& stats);

}  // namespace gauntlet::engine
