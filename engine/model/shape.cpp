#include "engine/model/shape.h"

#include <charconv>
#include <map>
#include <sstream>

#include "engine/model/tokenizer_meta.h"

namespace gauntlet::engine::model {

namespace {

core::Error bad_shape(const std::string& what) {
  return core::make_error(core::ErrorKind::invalid_argument, "invalid model shape: " + what);
}

LlamaShape make(const char* name, uint32_t embd, uint32_t layers, uint32_t heads, uint32_t kv,
                uint32_t ff, uint32_t vocab, uint32_t ctx, float freq_base = 10000.0f) {
  LlamaShape s;
  s.name = name;
  s.n_embd = embd;
  s.n_layer = layers;
  s.n_head = heads;
  s.n_head_kv = kv;
  s.n_ff = ff;
  s.n_vocab = vocab;
  s.context = ctx;
  s.rope_freq_base = freq_base;
  return s;
}

const std::vector<LlamaShape>& presets() {
  static const std::vector<LlamaShape> all = {
      make("tinyllama-1.1b", 2048, 22, 32, 4, 5632, 32000, 2048),
      make("llama-7b", 4096, 32, 32, 32, 11008, 32000, 4096),
      make("llama3-8b", 4096, 32, 32, 8, 14336, 128256, 8192, 500000.0f),
      make("test-tiny", 64, 2, 4, 2, 128, 256, 128),
      make("test-small", 128, 3, 4, 4, 352, 512, 256),
      make("test-gqa", 256, 2, 8, 2, 512, 1000, 512),
      make("bench-110m", 768, 12, 12, 12, 2048, 32000, 1024),
  };
  return all;
}

}  // namespace

core::Status validate_shape(const LlamaShape& s) {
  const std::pair<const char*, uint32_t> dims[] = {
      {"n_embd", s.n_embd},       {"n_layer", s.n_layer}, {"n_head", s.n_head},
      {"n_head_kv", s.n_head_kv}, {"n_ff", s.n_ff},       {"n_vocab", s.n_vocab},
      {"context", s.context}};
  for (const auto& [name, value] : dims) {
    if (value == 0) return bad_shape(std::string(name) + " must be positive");
  }
  if (s.n_embd % s.n_head != 0) {
    return bad_shape("n_embd " + std::to_string(s.n_embd) + " is not a multiple of n_head " +
                     std::to_string(s.n_head));
  }
  if (s.n_head % s.n_head_kv != 0) {
    return bad_shape("n_head " + std::to_string(s.n_head) + " is not a multiple of n_head_kv " +
                     std::to_string(s.n_head_kv));
  }
  if (s.head_dim() % 2 != 0)
    return bad_shape("the head dimension must be even for rotary embedding");
  if (s.rope_dims() % 2 != 0 || s.rope_dims() > s.head_dim()) {
    return bad_shape("rope_dim " + std::to_string(s.rope_dims()) +
                     " must be even and at most the head dimension " +
                     std::to_string(s.head_dim()));
  }
  // Every quantized type has 32-element blocks or falls back to one (file_type.cpp).
  constexpr uint32_t kBlock = 32;
  if (s.n_embd % kBlock != 0 || s.n_ff % kBlock != 0) {
    return bad_shape("n_embd " + std::to_string(s.n_embd) + " and n_ff " + std::to_string(s.n_ff) +
                     " must be multiples of " + std::to_string(kBlock));
  }
  if (s.n_vocab < kMinimalTokenizerVocab) {
    return bad_shape("n_vocab " + std::to_string(s.n_vocab) + " is below " +
                     std::to_string(kMinimalTokenizerVocab) +
                     " (the smallest vocabulary with the byte token for a newline)");
  }
  if (!(s.rope_freq_base > 0) || !(s.rms_eps > 0)) {
    return bad_shape("rope_freq_base and rms_eps must be positive");
  }
  return core::Status::ok();
}

core::Result<LlamaShape> preset_shape(const std::string& name) {
  for (const auto& s : presets()) {
    if (s.name == name) return s;
  }
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  return core::make_error(core::ErrorKind::not_found,
                          "unknown model shape '" + name + "' (known: " + known + ")");
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& s : presets()) names.push_back(s.name);
  return names;
}

core::Result<LlamaShape> parse_shape(const std::string& text) {
  return text.find('=') != std::string::npos ? parse_dims(text) : preset_shape(text);
}

core::Result<LlamaShape> parse_dims(const std::string& text) {
  LlamaShape s;
  std::map<std::string, uint32_t*> ints = {{"n_embd", &s.n_embd},   {"n_layer", &s.n_layer},
                                           {"n_head", &s.n_head},   {"n_head_kv", &s.n_head_kv},
                                           {"n_ff", &s.n_ff},       {"n_vocab", &s.n_vocab},
                                           {"context", &s.context}, {"rope_dim", &s.rope_dim}};
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) return bad_shape("'" + item + "' is not name=value");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "rope_freq_base" || key == "rms_eps") {
      float f = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), f);
      if (ec != std::errc() || p != value.data() + value.size()) {
        return bad_shape("'" + value + "' is not a number for " + key);
      }
      (key == "rms_eps" ? s.rms_eps : s.rope_freq_base) = f;
      continue;
    }
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || p != value.data() + value.size()) {
      return bad_shape("'" + value + "' is not a whole number for " + key);
    }
    if (key == "tied") {
      s.tied_output = v != 0;
      continue;
    }
    auto it = ints.find(key);
    if (it == ints.end()) return bad_shape("unknown dimension '" + key + "'");
    *it->second = v;
  }
  if (s.n_head_kv == 0) s.n_head_kv = s.n_head;
  return s;
}

uint64_t TensorDesc::n_elements() const {
  uint64_t n = 1;
  for (uint64_t d : ne) n *= d;
  return n;
}

uint64_t TensorDesc::bytes() const {
  return n_elements() / block_elements(type) * block_bytes(type);
}

std::vector<TensorDesc> llama_tensors(const LlamaShape& s, FileType format) {
  const uint64_t embd = s.n_embd, kv = s.n_embd_kv(), ff = s.n_ff, vocab = s.n_vocab;
  std::vector<TensorDesc> t;
  auto add = [&](std::string name, std::vector<uint64_t> ne, uint32_t layer) {
    TensorPlace place{name,  ne[0],     static_cast<uint32_t>(ne.size()),
                      layer, s.n_layer, s.tied_output};
    const bool norm = ne.size() == 1;
    t.push_back({std::move(name), std::move(ne), tensor_type_for(format, place), norm});
  };
  add("token_embd.weight", {embd, vocab}, 0);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", {embd}, l);
    add(p + "attn_q.weight", {embd, embd}, l);
    add(p + "attn_k.weight", {embd, kv}, l);
    add(p + "attn_v.weight", {embd, kv}, l);
    add(p + "attn_output.weight", {embd, embd}, l);
    add(p + "ffn_norm.weight", {embd}, l);
    add(p + "ffn_gate.weight", {embd, ff}, l);
    add(p + "ffn_up.weight", {embd, ff}, l);
    add(p + "ffn_down.weight", {ff, embd}, l);
  }
  add("output_norm.weight", {embd}, 0);
  if (!s.tied_output) add("output.weight", {embd, vocab}, 0);
  return t;
}

std::vector<TensorType> types_in(std::span<const TensorDesc> tensors) {
  std::vector<TensorType> types;
  for (const auto& t : all_tensor_types()) {
    for (const auto& d : tensors) {
      if (d.type == t.type) {
        types.push_back(t.type);
        break;
      }
    }
  }
  return types;
}

uint64_t parameter_count(const LlamaShape& shape) {
  uint64_t n = 0;
  for (const auto& t : llama_tensors(shape, FileType::f32)) n += t.n_elements();
  return n;
}

}  // namespace gauntlet::engine::model
