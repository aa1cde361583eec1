#include "engine/model/file_type.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "core/text.h"

namespace gauntlet::engine::model {

namespace {

struct FileTypeRow {
  FileType type;
  const char* name;
  TensorType base;
};

// Names as llama.cpp's file names and llama_model_ftype_name give them; base types as
// llama_model_quantize_impl's switch on ftype (src/llama-quant.cpp).
constexpr FileTypeRow kRows[] = {
    {FileType::f32, "F32", TensorType::f32},
    {FileType::f16, "F16", TensorType::f16},
    {FileType::bf16, "BF16", TensorType::bf16},
    {FileType::q8_0, "Q8_0", TensorType::q8_0},
    {FileType::q6_K, "Q6_K", TensorType::q6_K},
    {FileType::q5_K_M, "Q5_K_M", TensorType::q5_K},
    {FileType::q5_K_S, "Q5_K_S", TensorType::q5_K},
    {FileType::q5_1, "Q5_1", TensorType::q5_1},
    {FileType::q5_0, "Q5_0", TensorType::q5_0},
    {FileType::q4_K_M, "Q4_K_M", TensorType::q4_K},
    {FileType::q4_K_S, "Q4_K_S", TensorType::q4_K},
    {FileType::q4_1, "Q4_1", TensorType::q4_1},
    {FileType::q4_0, "Q4_0", TensorType::q4_0},
    {FileType::q3_K_M, "Q3_K_M", TensorType::q3_K},
    {FileType::q3_K_L, "Q3_K_L", TensorType::q3_K},
    {FileType::q3_K_S, "Q3_K_S", TensorType::q3_K},
    {FileType::q2_K, "Q2_K", TensorType::q2_K},
    {FileType::iq4_nl, "IQ4_NL", TensorType::iq4_nl},
    {FileType::iq4_xs, "IQ4_XS", TensorType::iq4_xs},
    {FileType::mxfp4_moe, "MXFP4_MOE", TensorType::mxfp4},
    {FileType::tq2_0, "TQ2_0", TensorType::tq2_0},
    {FileType::tq1_0, "TQ1_0", TensorType::tq1_0},
    // llama_ftype_get_default_type: IQ2_S's base is iq2_xs and IQ2_M's iq2_s; IQ3_XS, IQ3_S and
    // IQ3_M share iq3_s.
    {FileType::iq2_xxs, "IQ2_XXS", TensorType::iq2_xxs},
    {FileType::iq2_xs, "IQ2_XS", TensorType::iq2_xs},
    {FileType::iq2_s, "IQ2_S", TensorType::iq2_xs},
    {FileType::iq2_m, "IQ2_M", TensorType::iq2_s},
    {FileType::iq3_xxs, "IQ3_XXS", TensorType::iq3_xxs},
    {FileType::iq3_xs, "IQ3_XS", TensorType::iq3_s},
    {FileType::iq3_s, "IQ3_S", TensorType::iq3_s},
    {FileType::iq3_m, "IQ3_M", TensorType::iq3_s},
    {FileType::iq1_s, "IQ1_S", TensorType::iq1_s},
    {FileType::iq1_m, "IQ1_M", TensorType::iq1_m},
};

constexpr FileType kAll[] = {
    FileType::f32,    FileType::f16,    FileType::bf16,   FileType::q8_0,   FileType::q6_K,
    FileType::q5_K_M, FileType::q5_K_S, FileType::q5_1,   FileType::q5_0,   FileType::q4_K_M,
    FileType::q4_K_S, FileType::q4_1,   FileType::q4_0,   FileType::iq4_nl, FileType::iq4_xs,
    FileType::q3_K_L, FileType::q3_K_M, FileType::q3_K_S, FileType::q2_K,   FileType::mxfp4_moe,
    FileType::tq2_0,  FileType::tq1_0};

constexpr FileType kIq[] = {FileType::iq2_xxs, FileType::iq2_xs, FileType::iq2_s, FileType::iq2_m,
                            FileType::iq3_xxs, FileType::iq3_xs, FileType::iq3_s, FileType::iq3_m,
                            FileType::iq1_s,   FileType::iq1_m};

const FileTypeRow& row(FileType type) {
  for (const auto& r : kRows) {
    if (r.type == type) return r;
  }
  return kRows[0];
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// llama-quant.cpp, use_more_bits: the first and last eighth of the layers and every third
// layer between them get more bits.
bool use_more_bits(uint32_t i, uint32_t n) {
  const auto il = static_cast<int64_t>(i), nl = static_cast<int64_t>(n);
  return il < nl / 8 || il >= 7 * nl / 8 || (il - nl / 8) % 3 == 2;
}

// llama-quant.cpp, tensor_get_category, reduced to the categories whose rules the file types
// above have. attn_qkv (tested first) counts as attn_v there (category_is_attn_v), so its own
// branch in llama_tensor_get_type_impl (Q3_K_M/Q3_K_L/Q4_K_M/Q5_K_M) is never reached.
enum class Category {
  output,
  token_embd,
  attn_v,
  attn_k,
  attn_q,
  attn_output,
  ffn_up,
  ffn_gate,
  ffn_down,
  other
};

Category category_of(const TensorPlace& t) {
  if (t.name == "output.weight" || (t.tied_output && t.name == "token_embd.weight")) {
    return Category::output;
  }
  // llama-quant.cpp's tensor_name_match_token_embd: gemma4's per-layer table is a token table.
  if (t.name == "token_embd.weight" || t.name == "per_layer_token_embd.weight") {
    return Category::token_embd;
  }
  if (contains(t.name, "attn_qkv.weight") || contains(t.name, "attn_v.weight")) {
    return Category::attn_v;
  }
  if (contains(t.name, "attn_k.weight")) return Category::attn_k;
  if (contains(t.name, "attn_q.weight")) return Category::attn_q;
  if (contains(t.name, "attn_output.weight")) return Category::attn_output;
  if (contains(t.name, "ffn_up")) return Category::ffn_up;
  if (contains(t.name, "ffn_gate")) return Category::ffn_gate;  // ffn_gate_up_exps too
  if (contains(t.name, "ffn_down")) return Category::ffn_down;  // ffn_down_exps, _shexp too
  return Category::other;
}

// llama-quant.cpp's i_attention_wv / i_ffn_down / i_ffn_gate / i_ffn_up for this tensor, and
// n_attention_wv (count_places); the layer and n_layer where they were not counted.
uint32_t counter(const TensorPlace& t) { return t.counter.value_or(t.layer); }
uint32_t n_attention_wv(const TensorPlace& t) { return t.n_attention_wv.value_or(t.n_layer); }
// llama-quant.cpp, layer_info: with experts (n_expert > 1) the layer parsed from the name ("the
// experts of Mixtral are not consecutive"), else the counter; over n_layer (n_ffn_down etc. are
// n_layer_all).
uint32_t ffn_layer(const TensorPlace& t) { return t.n_expert > 1 ? t.layer : counter(t); }

// The i-quant mixes of 1 and 2 bits, which llama_tensor_get_type_impl treats in one branch of their
// own before the other categories' rules.
bool very_low_bit(FileType ft) {
  return ft == FileType::iq2_xxs || ft == FileType::iq2_xs || ft == FileType::iq2_s ||
         ft == FileType::iq2_m || ft == FileType::iq1_s || ft == FileType::iq1_m;
}
bool iq2_s_or_m(FileType ft) { return ft == FileType::iq2_s || ft == FileType::iq2_m; }

// The output matrix (or the token embedding that stands in for it) gets Q6_K unless the file is
// Q8_0, or Q5_K in the i-quant mixes of IQ3_XXS and below (not IQ3_XS, IQ3_S, IQ3_M); a row that
// the base type cannot hold gets Q8_0.
TensorType output_type(FileType ft, const TensorPlace& t, TensorType type) {
  if (t.n_cols % block_elements(type) != 0) return TensorType::q8_0;
  if (very_low_bit(ft) || ft == FileType::iq3_xxs) return TensorType::q5_K;
  return type == TensorType::q8_0 ? type : TensorType::q6_K;
}

// The token table's branch (TOKEN_EMBD, untied).
TensorType token_embd_type(FileType ft, TensorType type) {
  switch (ft) {
    case FileType::iq2_xxs:
    case FileType::iq2_xs:
    case FileType::iq1_s:
    case FileType::iq1_m:
      return TensorType::q2_K;
    case FileType::iq2_s:
    case FileType::iq2_m:
    case FileType::iq3_xxs:
      return TensorType::iq3_s;
    case FileType::tq1_0:  // "ftype == LLAMA_FTYPE_MOSTLY_TQ1_0 || ftype == ..._TQ2_0"
    case FileType::tq2_0:
      return TensorType::q4_K;
    default:
      return type;
  }
}

// The branch for IQ2_XXS, IQ2_XS, IQ2_S, IQ2_M, IQ1_S and IQ1_M (after the output and token
// table): attn_v, attn_k (with 8 experts), ffn_down of the first eighth (by the raw counter
// i_ffn_down, also in a mixture) and attn_output get more bits; the rest the base type.
TensorType very_low_bit_type(FileType ft, const TensorPlace& t, TensorType type) {
  switch (category_of(t)) {
    case Category::attn_v:
      if (t.n_gqa >= 4 || t.n_expert >= 4) return TensorType::q4_K;
      return iq2_s_or_m(ft) ? TensorType::iq3_s : TensorType::q2_K;
    case Category::attn_k:
      return t.n_expert == 8 ? TensorType::q4_K : type;
    case Category::ffn_down:
      if (counter(t) >= t.n_layer / 8) return type;
      return iq2_s_or_m(ft) ? TensorType::iq3_s : TensorType::q2_K;
    case Category::attn_output:
      if (t.n_expert == 8) return TensorType::q5_K;
      if (ft == FileType::iq1_s || ft == FileType::iq1_m) return TensorType::iq2_xxs;
      return iq2_s_or_m(ft) ? TensorType::iq3_s : type;
    default:
      return type;
  }
}

// attn_v and attn_qkv, by llama.cpp's counter i_attention_wv of n_attention_wv.
TensorType attn_v_type(FileType ft, const TensorPlace& t, TensorType type) {
  switch (ft) {
    case FileType::q2_K:
      type = t.n_gqa >= 4 ? TensorType::q4_K : TensorType::q3_K;
      break;
    case FileType::iq3_xxs:
      type = t.n_gqa >= 4    ? TensorType::q4_K
             : t.has_imatrix ? TensorType::iq3_xxs
                             : TensorType::iq3_s;
      break;
    case FileType::iq3_xs:
    case FileType::iq3_s:
      if (t.n_gqa >= 4) type = TensorType::q4_K;
      break;
    case FileType::iq3_m:
      type = TensorType::q4_K;
      break;
    case FileType::q3_K_M:
      type = counter(t) < 2 ? TensorType::q5_K : TensorType::q4_K;
      break;
    case FileType::q3_K_L:
      type = TensorType::q5_K;
      break;
    case FileType::q4_K_M:
    case FileType::q5_K_M:
      if (use_more_bits(counter(t), n_attention_wv(t))) type = TensorType::q6_K;
      break;
    case FileType::q4_K_S:
      if (counter(t) < 4) type = TensorType::q5_K;
      break;
    case FileType::iq4_nl:
    case FileType::iq4_xs:
      if (t.n_gqa >= 4) type = TensorType::q5_K;
      break;
    default:
      break;
  }
  // "for the 8-expert model, bumping this to Q8_0 trades just ~128MB"
  return t.n_expert == 8 ? TensorType::q8_0 : type;
}

// attn_k and attn_q.
TensorType attn_k_type(FileType ft, const TensorPlace& t, TensorType type) {
  if (t.n_expert == 8 && category_of(t) == Category::attn_k) return TensorType::q8_0;
  if (ft == FileType::iq3_xs) return TensorType::iq3_xxs;
  if (ft == FileType::iq3_xxs) return TensorType::iq2_s;
  return type;
}

// ffn_gate and ffn_up: IQ3_XS gives the middle layers (from n/8 to 7n/8) iq3_xxs.
TensorType ffn_gate_up_type(FileType ft, const TensorPlace& t, TensorType type) {
  const uint32_t l = ffn_layer(t), n = t.n_layer;
  return ft == FileType::iq3_xs && l >= n / 8 && l < 7 * n / 8 ? TensorType::iq3_xxs : type;
}

TensorType ffn_down_type(FileType ft, const TensorPlace& t, TensorType type) {
  const uint32_t l = ffn_layer(t), n = t.n_layer;
  switch (ft) {
    case FileType::q2_K:
      return TensorType::q3_K;
    case FileType::iq3_xxs:
      if (t.has_imatrix) return type;
      return l < n / 8 ? TensorType::q4_K : TensorType::q3_K;
    case FileType::q3_K_M:
      return l < n / 16 ? TensorType::q5_K : TensorType::q4_K;
    case FileType::iq3_m:
      return l < n / 8 || (t.n_expert == 8 && use_more_bits(l, n)) ? TensorType::q4_K : type;
    case FileType::q3_K_L:
      return TensorType::q5_K;
    case FileType::q4_K_M:
    case FileType::q5_K_M:
      return use_more_bits(l, n) ? TensorType::q6_K : type;
    case FileType::q4_K_S:
      return l < n / 8 ? TensorType::q5_K : type;
    case FileType::iq4_nl:
    case FileType::iq4_xs:
      return l < n / 8 && !t.has_imatrix ? TensorType::q5_K : type;
    // "Guard against craziness in the first few ffn_down layers that can happen even with imatrix
    // for Q4_0/Q5_0": only with an importance matrix.
    case FileType::q4_0:
      return l < n / 8 && t.has_imatrix ? TensorType::q4_1 : type;
    case FileType::q5_0:
      return l < n / 8 && t.has_imatrix ? TensorType::q5_1 : type;
    default:
      return type;
  }
}

TensorType attn_output_type(FileType ft, const TensorPlace& t, TensorType type) {
  if (t.n_expert == 8) {
    const bool bumped = ft == FileType::q2_K || ft == FileType::q3_K_S || ft == FileType::q3_K_M ||
                        ft == FileType::q4_K_S || ft == FileType::q4_K_M ||
                        ft == FileType::iq4_nl || ft == FileType::iq4_xs ||
                        ft == FileType::iq3_xxs || ft == FileType::iq3_xs ||
                        ft == FileType::iq3_s || ft == FileType::iq3_m;
    return bumped ? TensorType::q5_K : type;
  }
  if (ft == FileType::q2_K) return TensorType::q3_K;
  if (ft == FileType::iq3_xxs) return TensorType::iq3_s;
  if (ft == FileType::q3_K_M || ft == FileType::iq3_m) return TensorType::q4_K;
  if (ft == FileType::q3_K_L) return TensorType::q5_K;
  return type;
}

// MXFP4_MOE (llama_tensor_get_type_impl's branch for it, before the categories): the output (or
// the tied embedding) Q8_0; the expert stacks, the 3-D tensors (ne[2] = n_expert > 1), MXFP4;
// every other quantized tensor Q8_0.
TensorType mxfp4_moe_type(const TensorPlace& t) {
  const bool expert_stack = t.n_dims >= 3 && t.n_expert > 1;
  return category_of(t) != Category::output && expert_stack ? TensorType::mxfp4 : TensorType::q8_0;
}

// llama-quant.cpp, llama_tensor_get_type_impl, for the file types above. The 70B and Falcon
// special cases do not apply to the architectures gauntlet runs.
TensorType mixed_type(FileType ft, const TensorPlace& t, TensorType type) {
  if (ft == FileType::mxfp4_moe) return mxfp4_moe_type(t);
  const Category category = category_of(t);
  if (category == Category::output) return output_type(ft, t, type);
  if (category == Category::token_embd) return token_embd_type(ft, type);
  if (very_low_bit(ft)) return very_low_bit_type(ft, t, type);
  switch (category) {
    case Category::attn_v:
      return attn_v_type(ft, t, type);
    case Category::attn_k:
    case Category::attn_q:
      return attn_k_type(ft, t, type);
    case Category::attn_output:
      return attn_output_type(ft, t, type);
    case Category::ffn_gate:
    case Category::ffn_up:
      return ffn_gate_up_type(ft, t, type);
    case Category::ffn_down:
      return ffn_down_type(ft, t, type);
    default:
      return type;
  }
}

// llama-quant.cpp, tensor_type_fallback: a row length the block size does not divide.
TensorType fallback(TensorType type, uint64_t n_cols) {
  if (n_cols % block_elements(type) == 0) return type;
  TensorType to = type;  // a type of 32-element blocks has nowhere smaller to go: F16 below
  // "types on the left: block size 256", all to iq4_nl.
  if (type == TensorType::iq4_xs || type == TensorType::iq1_s || type == TensorType::iq1_m ||
      type == TensorType::iq2_xxs || type == TensorType::iq2_xs || type == TensorType::iq2_s ||
      type == TensorType::iq3_xxs || type == TensorType::iq3_s) {
    to = TensorType::iq4_nl;
  }
  // nvfp4 (blocks of 64) has no fallback there: llama.cpp throws "no tensor type fallback is
  // defined for type nvfp4"; the type stays, and model make refuses the tensor (row_fits_type).
  if (type == TensorType::nvfp4) return type;
  if (type == TensorType::q2_K || type == TensorType::q3_K || type == TensorType::tq1_0 ||
      type == TensorType::tq2_0) {
    to = TensorType::q4_0;
  }
  if (type == TensorType::q4_K) to = TensorType::q5_0;
  if (type == TensorType::q5_K) to = TensorType::q5_1;
  if (type == TensorType::q6_K) to = TensorType::q8_0;
  return n_cols % block_elements(to) == 0 ? to : TensorType::f16;
}

}  // namespace

bool row_fits_type(TensorType type, uint64_t n_cols) { return n_cols % block_elements(type) == 0; }

const char* to_string(FileType type) { return row(type).name; }

std::optional<FileType> parse_file_type(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& r : kRows) {
    if (upper == r.name) return r.type;
  }
  return std::nullopt;
}

std::optional<FileType> file_type_from_id(uint32_t id) {
  for (const auto& r : kRows) {
    if (static_cast<uint32_t>(r.type) == id) return r.type;
  }
  return std::nullopt;
}

std::span<const FileType> all_file_types() { return kAll; }

std::span<const FileType> iq_file_types() { return kIq; }

bool made_with_imatrix(FileType type) {
  return std::find(std::begin(kIq), std::end(kIq), type) != std::end(kIq);
}

std::string known_file_types() {
  std::string s;
  for (FileType t : kAll) s += (s.empty() ? "" : ", ") + std::string(to_string(t));
  for (FileType t : kIq) s += ", " + std::string(to_string(t));
  return s;
}

TensorType base_type(FileType type) { return row(type).base; }

std::optional<FileType> file_type_for(TensorType type) {
  for (const auto& r : kRows) {
    const bool mostly = r.type != FileType::q4_K_S && r.type != FileType::q5_K_S &&
                        r.type != FileType::q3_K_S && r.type != FileType::q3_K_L &&
                        r.type != FileType::mxfp4_moe && r.type != FileType::iq2_s &&
                        r.type != FileType::iq3_xs && r.type != FileType::iq3_m;
    if (r.base == type && mostly) return r.type;
  }
  return std::nullopt;
}

std::optional<TensorTypeOverride> parse_tensor_type_override(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) return std::nullopt;
  const std::string pattern = core::to_lower(text.substr(0, eq));
  const auto type = parse_tensor_type(text.substr(eq + 1));
  if (!type) return std::nullopt;
  try {
    return TensorTypeOverride{pattern, std::regex(pattern), *type};
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
}

namespace {

// llama-quant.cpp, tensor_allows_quantization: 1-D tensors, names not ending in "weight"
// (gpt-oss's expert biases), norms, the experts' router, the small ssm_conv1d and
// shortconv.conv kernels and gemma4's per_layer_model_proj keep their type (F32).
bool allows_quantization(const TensorPlace& t) {
  return t.n_dims >= 2 && t.name.ends_with("weight") && !contains(t.name, "_norm.weight") &&
         !contains(t.name, "ffn_gate_inp.weight") && !contains(t.name, "ssm_conv1d") &&
         !contains(t.name, "shortconv.conv.weight") && !contains(t.name, "per_layer_model_proj");
}

const TensorTypeOverride* override_for(const TensorPlace& t,
                                       std::span<const TensorTypeOverride> overrides) {
  for (const auto& o : overrides) {
    if (std::regex_search(t.name, o.regex)) return &o;
  }
  return nullptr;
}

// weight_name_comparer's key: the N of "blk.N.", -1 for the rest.
int64_t loader_layer(const std::string& name) {
  if (!name.starts_with("blk.")) return -1;
  int64_t l = 0;
  size_t i = 4;
  if (i >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
  for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i) {
    l = l * 10 + (name[i] - '0');
  }
  return i < name.size() && name[i] == '.' ? l : -1;
}

}  // namespace

TensorType tensor_type_for(FileType ft, const TensorPlace& t,
                           std::span<const TensorTypeOverride> overrides) {
  if (!allows_quantization(t)) return TensorType::f32;
  const TensorType base = base_type(ft);
  // llama_tensor_get_type: the mix rules apply only when the file type is quantized.
  if (!is_quantized(base)) return base;
  if (const auto* o = override_for(t, overrides)) return fallback(o->type, t.n_cols);
  return fallback(mixed_type(ft, t, base), t.n_cols);
}

void count_places(std::span<TensorPlace> places, FileType ft,
                  std::span<const TensorTypeOverride> overrides) {
  // init_quantize_state_counters: n_attention_wv counts every attn_v-like name.
  uint32_t n_attention_wv = 0;
  for (const auto& t : places) n_attention_wv += category_of(t) == Category::attn_v ? 1 : 0;
  std::vector<size_t> order(places.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return loader_order(places[a].name, places[b].name);
  });
  // One counter per category that has one; the rules see a tensor when it is quantized in a
  // quantized file type, no override names it, and it is not the output or a token table.
  std::map<Category, uint32_t> seen;
  const bool mixed = is_quantized(base_type(ft)) && ft != FileType::mxfp4_moe;
  for (size_t i : order) {
    TensorPlace& t = places[i];
    t.n_attention_wv = n_attention_wv;
    const Category c = category_of(t);
    const bool counted = c == Category::attn_v || c == Category::ffn_down ||
                         c == Category::ffn_gate || c == Category::ffn_up;
    if (!counted || !mixed || !allows_quantization(t) || override_for(t, overrides)) continue;
    t.counter = seen[c]++;
  }
}

bool loader_order(const std::string& a, const std::string& b) {
  const int64_t la = loader_layer(a), lb = loader_layer(b);
  return la != lb ? la < lb : a < b;
}

bool tensor_requires_imatrix(const std::string& name, TensorType type) {
  if (name == "token_embd.weight" || name == "per_layer_token_embd.weight" ||
      name == "output.weight") {
    return false;
  }
  return type == TensorType::iq3_xxs || type == TensorType::iq2_xxs || type == TensorType::iq2_xs ||
         type == TensorType::iq2_s || type == TensorType::iq1_m || type == TensorType::iq1_s;
}

}  // namespace gauntlet::engine::model
