#pragma once
// The smallest tokenizer llama.cpp's vocabulary loader accepts for a llama model, so that the
// files gauntlet writes load in llama.cpp's tools too.
#include <cstdint>

#include "engine/model/gguf_writer.h"

namespace gauntlet::engine::model {

// Writes tokenizer.ggml.{model, tokens, scores, token_type, bos_token_id, eos_token_id,
// unknown_token_id} for an SPM ("llama") vocabulary of n_vocab tokens: <unk>, <s>, </s>, then
// the byte tokens <0x00>.. (as many as fit; the loader looks up <0x0A> for the newline), then
// plain pieces. n_vocab must be at least 14 so that <0x0A> exists.
void add_minimal_tokenizer(GgufWriter& writer, uint32_t n_vocab);

inline constexpr uint32_t kMinimalTokenizerVocab = 14;

}  // namespace gauntlet::engine::model
