#pragma once
// The shape of a llama-architecture model, the presets with real dimensions, and the list of
// tensors such a model has (names as llama.cpp writes them). Writer, validator and planner all
// take the tensor list from here, so that they agree.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/model/file_type.h"
#include "engine/model/tensor_type.h"

namespace gauntlet::engine::model {

struct LlamaShape {
  std::string name = "custom";
  uint32_t n_embd = 0;
  uint32_t n_layer = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t n_ff = 0;
  uint32_t n_vocab = 0;
  uint32_t context = 0;
  uint32_t rope_dim = 0;  // 0: the head dimension
  float rope_freq_base = 10000.0f;
  float rms_eps = 1e-5f;
  bool tied_output = false;  // no output.weight: logits use token_embd

  uint32_t head_dim() const { return n_head == 0 ? 0 : n_embd / n_head; }
  uint32_t n_embd_kv() const { return head_dim() * n_head_kv; }
  uint32_t rope_dims() const { return rope_dim == 0 ? head_dim() : rope_dim; }
};

// Checks that the dimensions make a llama model (head counts divide, even rotary dimensions,
// rows of whole 32-element blocks, ...); the error names the offending dimension.
core::Status validate_shape(const LlamaShape& shape);

// "tinyllama-1.1b", "llama-7b", "llama3-8b", "test-tiny", "test-small", "test-gqa",
// "bench-110m".
core::Result<LlamaShape> preset_shape(const std::string& name);
std::vector<std::string> preset_names();
// "n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=256,context=128" (n_head_kv defaults
// to n_head; also rope_dim, rope_freq_base, rms_eps, tied=0|1).
core::Result<LlamaShape> parse_dims(const std::string& text);
// A command line's shape: dims when it has an '=', else a preset's name.
core::Result<LlamaShape> parse_shape(const std::string& text);

struct TensorDesc {
  std::string name;
  std::vector<uint64_t> ne;  // fastest-first: a 2-D weight is {n_in, n_out}
  TensorType type = TensorType::f32;
  bool is_norm = false;
  uint64_t bytes() const;
  uint64_t n_elements() const;
};

// Every tensor of the model in file order, each with the type llama.cpp's quantizer gives it in
// a file of `format` (norms f32; see file_type.h).
std::vector<TensorDesc> llama_tensors(const LlamaShape& shape, FileType format);
// The tensor types a list holds, each once, in ggml id order.
std::vector<TensorType> types_in(std::span<const TensorDesc> tensors);
uint64_t parameter_count(const LlamaShape& shape);

}  // namespace gauntlet::engine::model
