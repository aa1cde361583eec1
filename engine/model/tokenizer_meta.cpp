#include "engine/model/tokenizer_meta.h"

#include <cstdio>
#include <string>
#include <vector>

namespace gauntlet::engine::model {

namespace {

// llama.h, enum llama_token_type.
constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;

MetaValue array_of(MetaType type, std::vector<MetaValue> values) {
  MetaValue v;
  v.type = MetaType::array;
  v.array_type = type;
  v.array_count = values.size();
  v.array = std::move(values);
  return v;
}

MetaValue u32_value(uint32_t x) {
  MetaValue v;
  v.type = MetaType::u32;
  v.u = x;
  return v;
}

}  // namespace

void add_minimal_tokenizer(GgufWriter& writer, uint32_t n_vocab) {
  std::vector<MetaValue> tokens, scores, types;
  auto add = [&](std::string piece, float score, int32_t type) {
    MetaValue t, s, k;
    t.type = MetaType::string;
    t.s = std::move(piece);
    s.type = MetaType::f32;
    s.f = score;
    k.type = MetaType::i32;
    k.i = type;
    tokens.push_back(std::move(t));
    scores.push_back(s);
    types.push_back(k);
  };
  // llama-vocab.cpp (SPM): special ids default to unk 0, bos 1, eos 2.
  add("<unk>", 0.0f, kUnknown);
  add("<s>", 0.0f, kControl);
  add("</s>", 0.0f, kControl);
  for (uint32_t b = 0; b < 256 && tokens.size() < n_vocab; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    add(piece, 0.0f, kByte);
  }
  // U+2581 (the SPM word-boundary mark) then a number: distinct plain pieces.
  for (uint32_t i = 0; tokens.size() < n_vocab; ++i) {
    add("\xe2\x96\x81t" + std::to_string(i), -static_cast<float>(i + 1), kNormal);
  }
  writer.set_string("tokenizer.ggml.model", "llama");
  writer.set_meta("tokenizer.ggml.tokens", array_of(MetaType::string, std::move(tokens)));
  writer.set_meta("tokenizer.ggml.scores", array_of(MetaType::f32, std::move(scores)));
  writer.set_meta("tokenizer.ggml.token_type", array_of(MetaType::i32, std::move(types)));
  writer.set_meta("tokenizer.ggml.bos_token_id", u32_value(1));
  writer.set_meta("tokenizer.ggml.eos_token_id", u32_value(2));
  writer.set_meta("tokenizer.ggml.unknown_token_id", u32_value(0));
}

}  // namespace gauntlet::engine::model
