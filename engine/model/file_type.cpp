#include "engine/model/file_type.h"

#include <algorithm>
#include <cctype>
#include <string>

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
};

constexpr FileType kAll[] = {
    FileType::f32,    FileType::f16,    FileType::bf16,   FileType::q8_0,   FileType::q6_K,
    FileType::q5_K_M, FileType::q5_K_S, FileType::q5_1,   FileType::q5_0,   FileType::q4_K_M,
    FileType::q4_K_S, FileType::q4_1,   FileType::q4_0,   FileType::iq4_nl, FileType::iq4_xs,
    FileType::q3_K_L, FileType::q3_K_M, FileType::q3_K_S, FileType::q2_K,   FileType::mxfp4_moe,
    FileType::tq2_0,  FileType::tq1_0};

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
enum class Category { output, token_embd, attn_v, attn_k, attn_output, ffn_down, other };

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
  if (contains(t.name, "attn_q.weight")) return Category::other;
  if (contains(t.name, "attn_output.weight")) return Category::attn_output;
  if (contains(t.name, "ffn_up") || contains(t.name, "ffn_gate")) return Category::other;
  if (contains(t.name, "ffn_down")) return Category::ffn_down;  // ffn_down_exps, _shexp too
  return Category::other;
}

// The output matrix (or the token embedding that stands in for it) gets Q6_K unless the file is
// Q8_0; a row that Q6_K cannot hold gets Q8_0.
TensorType output_type(const TensorPlace& t, TensorType type) {
  if (t.n_cols % block_elements(type) != 0) return TensorType::q8_0;
  return type == TensorType::q8_0 ? type : TensorType::q6_K;
}

// attn_v and attn_qkv. gauntlet gives each layer one such tensor, so llama.cpp's counter
// i_attention_wv is the layer and n_attention_wv the layer count.
TensorType attn_v_type(FileType ft, const TensorPlace& t, TensorType type) {
  switch (ft) {
    case FileType::q2_K:
      type = t.n_gqa >= 4 ? TensorType::q4_K : TensorType::q3_K;
      break;
    case FileType::q3_K_M:
      type = t.layer < 2 ? TensorType::q5_K : TensorType::q4_K;
      break;
    case FileType::q3_K_L:
      type = TensorType::q5_K;
      break;
    case FileType::q4_K_M:
    case FileType::q5_K_M:
      if (use_more_bits(t.layer, t.n_layer)) type = TensorType::q6_K;
      break;
    case FileType::q4_K_S:
      if (t.layer < 4) type = TensorType::q5_K;
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

TensorType ffn_down_type(FileType ft, const TensorPlace& t, TensorType type) {
  switch (ft) {
    case FileType::q2_K:
      return TensorType::q3_K;
    case FileType::q3_K_M:
      return t.layer < t.n_layer / 16 ? TensorType::q5_K : TensorType::q4_K;
    case FileType::q3_K_L:
      return TensorType::q5_K;
    case FileType::q4_K_M:
    case FileType::q5_K_M:
      return use_more_bits(t.layer, t.n_layer) ? TensorType::q6_K : type;
    case FileType::q4_K_S:
      return t.layer < t.n_layer / 8 ? TensorType::q5_K : type;
    case FileType::iq4_nl:
    case FileType::iq4_xs:  // without an importance matrix, as gauntlet always quantizes
      return t.layer < t.n_layer / 8 ? TensorType::q5_K : type;
    default:
      return type;
  }
}

TensorType attn_output_type(FileType ft, const TensorPlace& t, TensorType type) {
  if (t.n_expert == 8) {
    const bool bumped = ft == FileType::q2_K || ft == FileType::q3_K_S || ft == FileType::q3_K_M ||
                        ft == FileType::q4_K_S || ft == FileType::q4_K_M ||
                        ft == FileType::iq4_nl || ft == FileType::iq4_xs;
    return bumped ? TensorType::q5_K : type;
  }
  if (ft == FileType::q2_K) return TensorType::q3_K;
  if (ft == FileType::q3_K_M) return TensorType::q4_K;
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
  switch (category_of(t)) {
    case Category::output:
      return output_type(t, type);
    case Category::token_embd:
      // The token tables of a ternary file get Q4_K (the branch for TOKEN_EMBD: "ftype ==
      // LLAMA_FTYPE_MOSTLY_TQ1_0 || ftype == LLAMA_FTYPE_MOSTLY_TQ2_0").
      return ft == FileType::tq1_0 || ft == FileType::tq2_0 ? TensorType::q4_K : type;
    case Category::attn_v:
      return attn_v_type(ft, t, type);
    case Category::attn_k:
      return t.n_expert == 8 ? TensorType::q8_0 : type;
    case Category::attn_output:
      return attn_output_type(ft, t, type);
    case Category::ffn_down:
      return ffn_down_type(ft, t, type);
    case Category::other:
      return type;
  }
  return type;
}

// llama-quant.cpp, tensor_type_fallback: a row length the block size does not divide.
TensorType fallback(TensorType type, uint64_t n_cols) {
  if (n_cols % block_elements(type) == 0) return type;
  TensorType to = type;  // a type of 32-element blocks has nowhere smaller to go: F16 below
  if (type == TensorType::iq4_xs) to = TensorType::iq4_nl;
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

std::string known_file_types() {
  std::string s;
  for (FileType t : kAll) s += (s.empty() ? "" : ", ") + std::string(to_string(t));
  return s;
}

TensorType base_type(FileType type) { return row(type).base; }

std::optional<FileType> file_type_for(TensorType type) {
  for (const auto& r : kRows) {
    const bool mostly = r.type != FileType::q4_K_S && r.type != FileType::q5_K_S &&
                        r.type != FileType::q3_K_S && r.type != FileType::q3_K_L &&
                        r.type != FileType::mxfp4_moe;
    if (r.base == type && mostly) return r.type;
  }
  return std::nullopt;
}

std::optional<TensorTypeOverride> parse_tensor_type_override(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) return std::nullopt;
  std::string pattern(text.substr(0, eq));
  std::transform(pattern.begin(), pattern.end(), pattern.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto type = parse_tensor_type(text.substr(eq + 1));
  if (!type) return std::nullopt;
  try {
    return TensorTypeOverride{pattern, std::regex(pattern), *type};
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
}

TensorType tensor_type_for(FileType ft, const TensorPlace& t,
                           std::span<const TensorTypeOverride> overrides) {
  // llama-quant.cpp, tensor_allows_quantization: 1-D tensors, names not ending in "weight"
  // (gpt-oss's expert biases), norms, the experts' router, the small ssm_conv1d and
  // shortconv.conv kernels and gemma4's per_layer_model_proj keep their type (F32).
  if (t.n_dims < 2 || !t.name.ends_with("weight") || contains(t.name, "_norm.weight") ||
      contains(t.name, "ffn_gate_inp.weight") || contains(t.name, "ssm_conv1d") ||
      contains(t.name, "shortconv.conv.weight") || contains(t.name, "per_layer_model_proj")) {
    return TensorType::f32;
  }
  const TensorType base = base_type(ft);
  // llama_tensor_get_type: the mix rules apply only when the file type is quantized.
  if (!is_quantized(base)) return base;
  for (const auto& o : overrides) {
    if (std::regex_search(t.name, o.regex)) return fallback(o.type, t.n_cols);
  }
  return fallback(mixed_type(ft, t, base), t.n_cols);
}

}  // namespace gauntlet::engine::model
