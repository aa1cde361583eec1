#pragma once
// Importance matrices (imatrix) as llama.cpp's llama-imatrix writes them and llama-quantize
// --imatrix reads them: per weight tensor, the mean of the squared activations that met each of
// its columns, which weighs the rounding error of the very low-bit encoders.
//
// Two formats (tools/imatrix/imatrix.cpp, read by common/imatrix-loader.cpp):
//   GGUF: per tensor NAME an F32 tensor NAME.in_sum2 {n_per_row, n_mat} (the sums of squared
//         activations, one row per expert) and NAME.counts {1, n_mat} (the activations summed),
//         with the keys imatrix.datasets (string array), imatrix.chunk_count and
//         imatrix.chunk_size (u32);
//   legacy .dat: i32 n_entries, then per entry i32 name length, the name, i32 ncall, i32 nval,
//         nval f32 (the means times ncall); optionally i32 chunk count, i32 length and a dataset
//         name.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/model/shape.h"

namespace gauntlet::engine::model {

struct Imatrix {
  // Per tensor name, its importance values (n_per_row for a matrix, n_per_row * n_expert for an
  // expert stack, expert e's at e * n_per_row), as tools/quantize/quantize.cpp's load_imatrix
  // computes them: GGUF in_sum2 / counts per expert (float division; an expert whose count is 0
  // gets all 1), legacy values / ncall (unchanged where ncall is 0).
  std::map<std::string, std::vector<float>> values;
  std::vector<std::string> datasets;
  uint32_t chunk_count = 0;
  uint32_t chunk_size = 0;  // 0 in the legacy format
  bool legacy = false;

  const std::vector<float>* find(const std::string& name) const;
};

// Reads either format (GGUF when the file starts with "GGUF", else legacy). A bad file is an
// invalid_argument error naming what is wrong: truncated, an imatrix GGUF without its metadata
// keys, a NAME.in_sum2 without NAME.counts (or the reverse), a tensor that is not F32, a size
// the expert count does not divide, no entries, a NaN or infinite value or a negative count.
core::Result<Imatrix> parse_imatrix(std::span<const std::byte> bytes);
core::Result<Imatrix> read_imatrix(const std::filesystem::path& path);

// Whether a model's tensors (as model_tensors gives them, quantized from F32) can be quantized
// with `imatrix` (null: none), as llama_model_quantize_impl checks, naming the first tensor that
// cannot:
// in llama.cpp's order (loader_order):
//   - without an imatrix, a tensor whose type needs one (tensor_requires_imatrix): llama.cpp's
//     "this quantization requires an importance matrix";
//   - with one, a tensor whose entry's size is not ne[0] * ne[2] ("imatrix size %d is different
//     from tensor size %d for %s"; the token tables are quantized without theirs, as llama.cpp
//     does), or a tensor of a quantized type that has no entry: llama.cpp refuses that only for
//     a type that needs one ("Missing importance matrix for tensor %s in a very low-bit
//     quantization") and quantizes the others without, gauntlet refuses every such tensor (an
//     imatrix made for another model) but output.weight and the token tables, which
//     llama-imatrix does not collect by default.
core::Status check_importance(std::span<const TensorDesc> tensors, const Imatrix* imatrix);
// The values `tensor` is quantized with (null: none): its entry where check_importance passes it.
const std::vector<float>* importance_for(const TensorDesc& tensor, const Imatrix& imatrix);

// An imatrix GGUF file's bytes as llama-imatrix writes it: per tensor NAME.in_sum2
// {n_per_row, n_mat} and NAME.counts {1, n_mat}, the three imatrix.* keys. `sums` is
// n_per_row * counts.size() values.
struct ImatrixEntry {
  std::string name;
  std::vector<float> sums;
  std::vector<float> counts;  // one per expert (one for a matrix)
};
core::Result<std::vector<std::byte>> imatrix_gguf_bytes(std::span<const ImatrixEntry> entries,
                                                        const std::vector<std::string>& datasets,
                                                        uint32_t chunk_count, uint32_t chunk_size);

}  // namespace gauntlet::engine::model
