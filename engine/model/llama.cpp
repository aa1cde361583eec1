#include "engine/model/llama.h"

#include <limits>
#include <map>

namespace gauntlet::engine::model {

namespace {

core::Error bad_model(const std::string& what) {
  return core::make_error(core::ErrorKind::invalid_argument, "not a usable llama model: " + what);
}

std::string dims_text(const std::vector<uint64_t>& ne) {
  std::string s = "[";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

core::Result<uint32_t> required_u32(const GgufInfo& info, const std::string& key, uint32_t max) {
  auto v = info.get_uint(key);
  if (!v) return bad_model("metadata '" + key + "' is missing or not a non-negative integer");
  if (*v == 0 || *v > max) {
    return bad_model("metadata '" + key + "' = " + std::to_string(*v) + " is outside 1.." +
                     std::to_string(max));
  }
  return static_cast<uint32_t>(*v);
}

}  // namespace

core::Result<LlamaShape> read_llama_shape(const GgufInfo& info) {
  auto arch = info.get_string("general.architecture");
  if (!arch) return bad_model("metadata 'general.architecture' is missing");
  if (*arch != "llama") return bad_model("architecture '" + *arch + "' is not 'llama'");
  constexpr uint32_t kMaxDim = 1u << 20;
  LlamaShape s;
  s.name = info.get_string("general.name").value_or("gguf");
  auto embd = required_u32(info, "llama.embedding_length", kMaxDim);
  if (!embd) return embd.error();
  auto layers = required_u32(info, "llama.block_count", 4096);
  if (!layers) return layers.error();
  auto ff = required_u32(info, "llama.feed_forward_length", kMaxDim);
  if (!ff) return ff.error();
  auto heads = required_u32(info, "llama.attention.head_count", 65536);
  if (!heads) return heads.error();
  auto ctx = required_u32(info, "llama.context_length", 1u << 24);
  if (!ctx) return ctx.error();
  s.n_embd = *embd;
  s.n_layer = *layers;
  s.n_ff = *ff;
  s.n_head = *heads;
  s.context = *ctx;
  s.n_head_kv = s.n_head;
  if (info.meta("llama.attention.head_count_kv")) {
    auto kv = required_u32(info, "llama.attention.head_count_kv", 65536);
    if (!kv) return kv.error();
    s.n_head_kv = *kv;
  }
  if (info.meta("llama.rope.dimension_count")) {
    auto rd = required_u32(info, "llama.rope.dimension_count", kMaxDim);
    if (!rd) return rd.error();
    s.rope_dim = *rd;
  }
  if (info.meta("llama.rope.freq_base")) {
    auto f = info.get_float("llama.rope.freq_base");
    if (!f) return bad_model("metadata 'llama.rope.freq_base' is not a float");
    s.rope_freq_base = static_cast<float>(*f);
  }
  if (info.meta("llama.attention.layer_norm_rms_epsilon")) {
    auto f = info.get_float("llama.attention.layer_norm_rms_epsilon");
    if (!f) return bad_model("metadata 'llama.attention.layer_norm_rms_epsilon' is not a float");
    s.rms_eps = static_cast<float>(*f);
  }
  const TensorInfo* embd_t = info.find("token_embd.weight");
  if (embd_t == nullptr) return bad_model("tensor 'token_embd.weight' is missing");
  if (embd_t->ne.size() != 2 || embd_t->ne[1] > std::numeric_limits<uint32_t>::max()) {
    return bad_model("tensor 'token_embd.weight' has dimensions " + dims_text(embd_t->ne) +
                     ", expected [n_embd, n_vocab]");
  }
  s.n_vocab = static_cast<uint32_t>(embd_t->ne[1]);
  s.tied_output = info.find("output.weight") == nullptr;
  auto valid = validate_shape(s);
  if (!valid) return bad_model(valid.error().message);
  return s;
}

core::Result<LlamaWeights> bind_llama(const GgufInfo& info, const LlamaShape& shape,
                                      const std::function<const std::byte*(size_t)>& data_of) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < info.tensors.size(); ++i) index[info.tensors[i].name] = i;
  std::map<std::string, TensorView> views;
  for (const auto& want : llama_tensors(shape, FileType::f32)) {
    auto it = index.find(want.name);
    if (it == index.end()) return bad_model("tensor '" + want.name + "' is missing");
    const TensorInfo& have = info.tensors[it->second];
    if (have.ne != want.ne) {
      return bad_model("tensor '" + want.name + "' has dimensions " + dims_text(have.ne) +
                       ", the shape needs " + dims_text(want.ne));
    }
    if (want.is_norm && have.type != TensorType::f32) {
      return bad_model("tensor '" + want.name + "' is " + to_string(have.type) +
                       "; norm weights must be f32");
    }
    TensorView v;
    v.type = have.type;
    v.n_in = have.ne[0];
    v.n_out = have.ne.size() > 1 ? have.ne[1] : 1;
    v.data = data_of(it->second);
    if (v.data == nullptr) return bad_model("tensor '" + want.name + "' has no data");
    views[want.name] = v;
  }
  LlamaWeights w;
  w.token_embd = views["token_embd.weight"];
  w.output_norm = views["output_norm.weight"];
  w.output = shape.tied_output ? w.token_embd : views["output.weight"];
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    LayerWeights lw;
    lw.attn_norm = views[p + "attn_norm.weight"];
    lw.wq = views[p + "attn_q.weight"];
    lw.wk = views[p + "attn_k.weight"];
    lw.wv = views[p + "attn_v.weight"];
    lw.wo = views[p + "attn_output.weight"];
    lw.ffn_norm = views[p + "ffn_norm.weight"];
    lw.w_gate = views[p + "ffn_gate.weight"];
    lw.w_up = views[p + "ffn_up.weight"];
    lw.w_down = views[p + "ffn_down.weight"];
    w.layers.push_back(lw);
  }
  return w;
}

std::vector<TensorDesc> tensors_of(const GgufInfo& info, const LlamaShape& shape) {
  std::vector<TensorDesc> out;
  for (auto want : llama_tensors(shape, FileType::f32)) {
    if (const TensorInfo* have = info.find(want.name)) {
      want.type = have->type;
      out.push_back(std::move(want));
    }
  }
  return out;
}

core::Result<LlamaModel> load_llama(const GgufInfo& info, std::span<const std::byte> file_bytes) {
  auto shape = read_llama_shape(info);
  if (!shape) return shape.error();
  auto weights = bind_llama(info, *shape, [&](size_t i) -> const std::byte* {
    const TensorInfo& t = info.tensors[i];
    // parse_gguf checked the bounds against the same bytes; this guards a mismatched pair.
    if (info.data_offset + t.offset + t.bytes > file_bytes.size()) return nullptr;
    return file_bytes.data() + info.data_offset + t.offset;
  });
  if (!weights) return weights.error();
  LlamaModel m;
  m.shape = *shape;
  m.weights = std::move(*weights);
  m.tensors = tensors_of(info, m.shape);
  auto named = file_type_from_id(
      static_cast<uint32_t>(info.get_uint("general.file_type").value_or(UINT32_MAX)));
  if (named) {
    m.file_type = *named;
  } else {
    std::map<TensorType, uint64_t> bytes;
    for (const auto& t : m.tensors) bytes[t.type] += t.bytes();
    TensorType most = TensorType::f32;
    for (const auto& [type, b] : bytes) {
      if (b > bytes[most]) most = type;
    }
    m.file_type = file_type_for(most).value_or(FileType::f32);
    m.file_type_guessed = true;
  }
  return m;
}

}  // namespace gauntlet::engine::model
