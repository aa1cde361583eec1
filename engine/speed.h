#pragma once
// Speed in llama-bench's terms, for any decoder with forward(): pp<N>, the prompt tokens per second
// of one prompt of N tokens fed in passes of the decoder's micro-batch (only the last token's
// logits), and tg<N>, the tokens per second of N tokens generated one at a time. Each test starts
// from an empty KV cache, as llama-bench's do.
#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/batch.h"
#include "engine/decoder.h"
#include "engine/model/shape.h"

namespace gauntlet::engine {

struct SpeedSample {
  uint32_t tokens = 0;
  double seconds = 0;
  double tokens_per_second() const { return seconds > 0 ? tokens / seconds : 0; }
};

// The same pseudo-random tokens every time (llama-bench feeds random tokens too).
std::vector<int32_t> bench_tokens(uint32_t n, uint32_t n_vocab, uint32_t seed = 1);

// One prompt of n_prompt tokens of a vocabulary of n_vocab (a pass per micro-batch; the last
// token's logits downloaded).
core::Result<SpeedSample> time_prompt(Decoder& decoder, uint32_t n_vocab, uint32_t n_prompt);
// n_gen tokens generated one at a time, each fed back (greedy).
core::Result<SpeedSample> time_generation(Decoder& decoder, uint32_t n_vocab, uint32_t n_gen);

// Arithmetic of one token's pass: 2 FLOP per weight element it multiplies (the embedding's rows
// are looked up, not multiplied, unless the output shares them; of each expert stack only the
// experts a token picks).
double flops_per_token(const model::ModelShape& shape, std::span<const model::TensorDesc> weights);

}  // namespace gauntlet::engine
