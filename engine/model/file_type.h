#pragma once
// A model file's weight format: the mix of tensor types llama.cpp's quantizer writes for one of
// its file types (`general.file_type`, LLAMA_FTYPE_* in llama.h), named as llama.cpp names them
// ("Q4_K_M", "Q8_0", "F16"). The rules that give each tensor its type are llama.cpp's
// (src/llama-quant.cpp); see file_type.cpp.
#include <cstdint>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>

#include "engine/model/tensor_type.h"

namespace gauntlet::engine::model {

// Values are llama.cpp's LLAMA_FTYPE_* ids, written as general.file_type.
enum class FileType : uint32_t {
  f32 = 0,  // LLAMA_FTYPE_ALL_F32
  f16 = 1,
  q4_0 = 2,
  q4_1 = 3,
  q8_0 = 7,
  q5_0 = 8,
  q5_1 = 9,
  q2_K = 10,
  q3_K_S = 11,
  q3_K_M = 12,
  q3_K_L = 13,
  q4_K_S = 14,
  q4_K_M = 15,
  q5_K_S = 16,
  q5_K_M = 17,
  q6_K = 18,
  // The i-quant mixes (llama.cpp's IQ* file types). Most of their tensors' types need an importance
  // matrix (tensor_requires_imatrix below); without one only IQ3_S and IQ3_M can be made.
  iq2_xxs = 19,
  iq2_xs = 20,
  iq3_xs = 22,
  iq3_xxs = 23,
  iq1_s = 24,
  iq4_nl = 25,
  iq3_s = 26,
  iq3_m = 27,
  iq2_s = 28,
  iq2_m = 29,
  iq4_xs = 30,
  iq1_m = 31,
  bf16 = 32,
  tq1_0 = 36,
  tq2_0 = 37,
  mxfp4_moe = 38,
  // LLAMA_FTYPE_MOSTLY_NVFP4 (39) is not here: llama.cpp's quantizer (3.22.1) has no default type
  // for it (llama_ftype_get_default_type: "invalid output file type 39"); nvfp4 tensors come
  // from --tensor-type PATTERN=nvfp4.
};

// "F32", "F16", "BF16", "Q4_0", ..., "Q4_K_M", "Q6_K", "Q3_K_M", "Q2_K", "IQ4_XS", "MXFP4_MOE",
// "TQ1_0", "TQ2_0", "IQ3_XXS", "IQ2_M", ...
const char* to_string(FileType type);
// Case-insensitive: "q4_k_m" finds Q4_K_M.
std::optional<FileType> parse_file_type(std::string_view name);
std::optional<FileType> file_type_from_id(uint32_t id);
// Every file type a synthetic model is made in without an importance matrix, quickly: not the
// i-quant mixes of iq_file_types() (most need an imatrix, and their encoders are slow searches).
std::span<const FileType> all_file_types();
// IQ2_XXS, IQ2_XS, IQ2_S, IQ2_M, IQ3_XXS, IQ3_XS, IQ3_S, IQ3_M, IQ1_S, IQ1_M.
std::span<const FileType> iq_file_types();
// Whether llama.cpp makes files of this type with an importance matrix: the i-quant mixes (all
// but IQ3_S and IQ3_M refuse to be made without one). Their tensor types are planned as made with
// one (model_tensors' has_imatrix), as a deployed file of them is.
bool made_with_imatrix(FileType type);
// The names of both lists.
std::string known_file_types();
// The type most tensors get (Q4_K for Q4_K_M).
TensorType base_type(FileType type);
// The file type whose every tensor is `type` where the rules allow (f32 -> F32, q8_0 -> Q8_0);
// nullopt for a type that names no file type of its own.
std::optional<FileType> file_type_for(TensorType type);

// Where a tensor sits in the model, as llama.cpp's quantizer sees it.
struct TensorPlace {
  std::string name;     // "blk.3.attn_v.weight", "output.weight", ...
  uint64_t n_cols = 0;  // ne[0], the row length
  uint32_t n_dims = 2;
  uint32_t layer = 0;  // for blk.N.* tensors
  uint32_t n_layer = 1;
  bool tied_output = false;  // no output.weight: token_embd serves as the output
  uint32_t n_gqa = 1;        // n_head / n_head_kv (llama_hparams::n_gqa)
  uint32_t n_expert = 0;     // experts per layer; 0 for a dense model
  bool has_imatrix = false;  // quantized with an importance matrix (llama-quant.cpp's has_imatrix)
  // llama-quant.cpp's counters as count_places() fills them: `counter` is i_attention_wv,
  // i_ffn_down, i_ffn_gate or i_ffn_up (by the tensor's category) when the rules reach this
  // tensor, and n_attention_wv the model's attn_v / attn_qkv tensors. Unset, the layer and n_layer
  // stand in for them (a model with one such tensor in every layer).
  std::optional<uint32_t> counter;
  std::optional<uint32_t> n_attention_wv;
};

// llama-quantize's --tensor-type PATTERN=TYPE: a tensor whose name the pattern matches
// (std::regex_search, ECMAScript, the pattern lower-cased as llama-quantize does) gets TYPE in
// place of the file type's rules, in a quantized file type only; the first matching override wins
// and a row TYPE cannot hold still falls back (llama-quant.cpp llama_tensor_get_type), but for
// nvfp4, for which llama.cpp defines no fallback and refuses the tensor: its type stays nvfp4 and
// `model make` refuses it (row_fits_type).
struct TensorTypeOverride {
  std::string pattern;
  std::regex regex;
  TensorType type;
};
// "PATTERN=TYPE" with a ggml type name ("ffn_.*_exps=mxfp4"); nullopt if malformed.
std::optional<TensorTypeOverride> parse_tensor_type_override(std::string_view text);

// Whether a row of n_cols elements is whole blocks of `type` (false only where llama.cpp's
// tensor_type_fallback has no fallback: nvfp4's blocks of 64).
bool row_fits_type(TensorType type, uint64_t n_cols);

// The type llama.cpp's quantizer gives this tensor in a file of `type`, with the overrides.
TensorType tensor_type_for(FileType type, const TensorPlace& place,
                           std::span<const TensorTypeOverride> overrides = {});

// Fills the places' counters as llama.cpp's quantizer counts (llama_tensor_get_type_impl's
// ++qs.i_attention_wv etc.): in the loader's order (weights_map: by the blk.N layer, then by
// name), over the tensors the rules see (quantized, not named by an override). They differ from
// the layer where a layer has two ffn_down (experts and a shared expert) or none (a hybrid's
// recurrent layers).
void count_places(std::span<TensorPlace> places, FileType type,
                  std::span<const TensorTypeOverride> overrides = {});

// llama_model_loader's order of tensors (weights_map's weight_name_comparer), in which its
// quantizer visits them: by the N of "blk.N." (other names first), then by name.
bool loader_order(const std::string& a, const std::string& b);

// llama-quant.cpp, tensor_requires_imatrix: a tensor of type iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s
// or iq3_xxs needs an importance matrix, but for the token tables and output.weight. (Its Q2_K
// case, Q2_K tensors of a Q2_K_S file, does not arise: gauntlet has no Q2_K_S.) llama.cpp refuses
// such a tensor without one: "this quantization requires an importance matrix".
bool tensor_requires_imatrix(const std::string& name, TensorType type);

}  // namespace gauntlet::engine::model
