#include "engine/model/file_type.h"

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
    {FileType::f32, "F32", TensorType::f32},        {FileType::f16, "F16", TensorType::f16},
    {FileType::bf16, "BF16", TensorType::bf16},     {FileType::q8_0, "Q8_0", TensorType::q8_0},
    {FileType::q6_K, "Q6_K", TensorType::q6_K},     {FileType::q5_K_M, "Q5_K_M", TensorType::q5_K},
    {FileType::q5_K_S, "Q5_K_S", TensorType::q5_K}, {FileType::q5_1, "Q5_1", TensorType::q5_1},
    {FileType::q5_0, "Q5_0", TensorType::q5_0},     {FileType::q4_K_M, "Q4_K_M", TensorType::q4_K},
    {FileType::q4_K_S, "Q4_K_S", TensorType::q4_K}, {FileType::q4_1, "Q4_1", TensorType::q4_1},
    {FileType::q4_0, "Q4_0", TensorType::q4_0},
};

constexpr FileType kAll[] = {FileType::f32,  FileType::f16,    FileType::bf16,   FileType::q8_0,
                             FileType::q6_K, FileType::q5_K_M, FileType::q5_K_S, FileType::q5_1,
                             FileType::q5_0, FileType::q4_K_M, FileType::q4_K_S, FileType::q4_1,
                             FileType::q4_0};

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

// llama-quant.cpp, llama_tensor_get_type_impl, for the file types above and a dense model (no
// experts; the 70B and Falcon special cases do not apply to the architectures gauntlet runs).
TensorType mixed_type(FileType ft, const TensorPlace& t, TensorType type) {
  const bool output = t.name == "output.weight" || (t.tied_output && t.name == "token_embd.weight");
  if (output) {
    // The output matrix (or the token embedding that stands in for it) gets Q6_K unless the
    // file is Q8_0; a row that Q6_K cannot hold gets Q8_0.
    if (t.n_cols % block_elements(type) != 0) return TensorType::q8_0;
    return type == TensorType::q8_0 ? type : TensorType::q6_K;
  }
  const bool k_m = ft == FileType::q4_K_M || ft == FileType::q5_K_M;
  if (contains(t.name, "attn_v.weight")) {
    if (k_m && use_more_bits(t.layer, t.n_layer)) return TensorType::q6_K;
    if (ft == FileType::q4_K_S && t.layer < 4) return TensorType::q5_K;
    return type;
  }
  if (contains(t.name, "attn_qkv.weight")) {
    if (ft == FileType::q4_K_M) return TensorType::q5_K;
    if (ft == FileType::q5_K_M) return TensorType::q6_K;
    return type;
  }
  if (contains(t.name, "ffn_down")) {
    if (k_m && use_more_bits(t.layer, t.n_layer)) return TensorType::q6_K;
    if (ft == FileType::q4_K_S && t.layer < t.n_layer / 8) return TensorType::q5_K;
    return type;
  }
  return type;
}

// llama-quant.cpp, tensor_type_fallback: a row length the block size does not divide.
TensorType fallback(TensorType type, uint64_t n_cols) {
  if (n_cols % block_elements(type) == 0) return type;
  TensorType to = type;
  if (type == TensorType::q4_K) to = TensorType::q5_0;
  if (type == TensorType::q5_K) to = TensorType::q5_1;
  if (type == TensorType::q6_K) to = TensorType::q8_0;
  return n_cols % block_elements(to) == 0 ? to : TensorType::f16;
}

}  // namespace

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
    if (r.base == type && r.type != FileType::q4_K_S && r.type != FileType::q5_K_S) return r.type;
  }
  return std::nullopt;
}

TensorType tensor_type_for(FileType ft, const TensorPlace& t) {
  // llama-quant.cpp, tensor_allows_quantization: 1-D tensors and norms keep their type (F32).
  // The experts' router (ffn_gate_inp.weight) is never quantized either: F32 as converted.
  if (t.n_dims < 2 || contains(t.name, "_norm.weight") || contains(t.name, "ffn_gate_inp.weight")) {
    return TensorType::f32;
  }
  const TensorType base = base_type(ft);
  // llama_tensor_get_type: the mix rules apply only when the file type is quantized.
  if (!is_quantized(base)) return base;
  return fallback(mixed_type(ft, t, base), t.n_cols);
}

}  // namespace gauntlet::engine::model
