#pragma once
// A llama-architecture model bound to its weight bytes: hyper-parameters from the GGUF
// metadata and one view per tensor, each checked against the shape the architecture demands.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/status.h"
#include "engine/model/gguf.h"
#include "engine/model/shape.h"

namespace gauntlet::engine::model {

// A 1-D tensor (n_out = 1) or a 2-D weight of n_out rows of n_in elements.
struct TensorView {
  TensorType type = TensorType::f32;
  uint64_t n_in = 0;
  uint64_t n_out = 1;
  const std::byte* data = nullptr;

  uint64_t row_size() const { return row_bytes(type, n_in); }
  const std::byte* row(uint64_t r) const { return data + r * row_size(); }
};

struct LayerWeights {
  TensorView attn_norm, wq, wk, wv, wo, ffn_norm, w_gate, w_up, w_down;
};

struct LlamaWeights {
  TensorView token_embd, output_norm, output;  // output is token_embd when tied
  std::vector<LayerWeights> layers;
};

// The hyper-parameters from `llama.*` metadata (n_vocab from token_embd), checked.
core::Result<LlamaShape> read_llama_shape(const GgufInfo& info);

// Checks every tensor the shape needs (present, dimensions, f32 norms) and binds it to the bytes
// that `data_of(index into info.tensors)` returns.
core::Result<LlamaWeights> bind_llama(const GgufInfo& info, const LlamaShape& shape,
                                      const std::function<const std::byte*(size_t)>& data_of);

struct LlamaModel {
  LlamaShape shape;
  // The file's mix: general.file_type where it names one gauntlet knows, else the file type of
  // the type holding the most bytes (file_type_guessed).
  FileType file_type = FileType::f32;
  bool file_type_guessed = false;
  std::vector<TensorDesc> tensors;  // the tensors the engine uses, each with its own type
  LlamaWeights weights;
};

// The file's tensors that a llama model of `shape` uses, with their types from the file.
std::vector<TensorDesc> tensors_of(const GgufInfo& info, const LlamaShape& shape);

// The whole check, for a file held in memory (a GgufFile's bytes or a test's buffer).
core::Result<LlamaModel> load_llama(const GgufInfo& info, std::span<const std::byte> file_bytes);

}  // namespace gauntlet::engine::model
