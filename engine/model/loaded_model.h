#pragma once
// A model bound to its weight bytes: its architecture and hyper-parameters from the GGUF metadata
// and one view per tensor, each checked against the shape the architecture demands.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/model/gguf.h"
#include "engine/model/layer_slots.h"
#include "engine/model/shape.h"

namespace gauntlet::engine::model {

// A 1-D tensor (n_out = 1), a 2-D weight of n_out rows of n_in elements, or n_matrices such
// weights one after the other (a layer's experts, ne[2]).
struct TensorView {
  TensorType type = TensorType::f32;
  uint64_t n_in = 0;
  uint64_t n_out = 1;
  const std::byte* data = nullptr;
  uint64_t n_matrices = 1;

  uint64_t row_size() const { return row_bytes(type, n_in); }
  const std::byte* row(uint64_t r) const { return data + r * row_size(); }
  uint64_t matrix_bytes() const { return n_out * row_size(); }
  // Matrix e of a stack (expert e), as a 2-D view.
  TensorView matrix(uint64_t e) const { return {type, n_in, n_out, data + e * matrix_bytes(), 1}; }
};

// One layer's weights (engine/model/layer_slots.h): a tensor the architecture does not have is an
// empty view (data == nullptr).
using LayerWeights = LayerSlots<TensorView>;

struct ModelWeights {
  TensorView token_embd, output_norm, output;  // output is token_embd when tied
  TensorView rope_freqs;                       // per-frequency RoPE factors (Llama 3.1+)
  // gemma4's per-layer embeddings: the table (n_embd_per_layer x n_layer per token), the
  // embedding's projection to it and the norm of each layer's slice.
  TensorView per_layer_token_embd, per_layer_model_proj, per_layer_proj_norm;
  std::vector<LayerWeights> layers;
};

// The architecture and hyper-parameters from `<arch>.*` metadata (n_vocab from token_embd),
// checked. An architecture, or a feature of one, that the engine does not run (RoPE scaling other
// than linear, LongRoPE factors, a vision tower) is refused by name here, before any weight is
// read; so are expert counts llama.cpp or the kernels cannot take.
core::Result<ModelShape> read_model_shape(const GgufInfo& info);

// Checks every tensor the shape needs (present, dimensions, f32 norms) and binds it to the bytes
// that `data_of(index into info.tensors)` returns.
core::Result<ModelWeights> bind_weights(const GgufInfo& info, const ModelShape& shape,
                                        const std::function<const std::byte*(size_t)>& data_of);

struct LoadedModel {
  ModelShape shape;
  // The file's mix: general.file_type where it names one gauntlet knows, else the file type of
  // the type holding the most bytes (file_type_guessed).
  FileType file_type = FileType::f32;
  bool file_type_guessed = false;
  std::vector<TensorDesc> tensors;  // the tensors the engine uses, each with its own type
  ModelWeights weights;
};

// The file's tensors that a model of `shape` uses, with their types from the file.
std::vector<TensorDesc> tensors_of(const GgufInfo& info, const ModelShape& shape);

// The whole check, for a file held in memory (a GgufFile's bytes or a test's buffer).
core::Result<LoadedModel> load_model(const GgufInfo& info, std::span<const std::byte> file_bytes);

}  // namespace gauntlet::engine::model
