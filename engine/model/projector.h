#pragma once
// A vision projector (an mmproj GGUF, general.architecture "clip") as llama.cpp's mtmd loads it
// beside a text model (tools/mtmd/clip.cpp of the llama.cpp that node-llama-cpp 3.22.1 ships).
// gauntlet does not run the vision tower; it plans its memory, so it knows the projector types
// whose graph it sizes. Known: "qwen3vl_merger" (Qwen3-VL, Qwen3.5 and Qwen3.6's vision tower,
// tools/mtmd/models/qwen3vl.cpp).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/model/shape.h"
#include "engine/model/tensor_type.h"

namespace gauntlet::engine::model {

inline constexpr const char* kQwen3vlProjector = "qwen3vl_merger";

struct ProjectorShape {
  std::string projector_type = kQwen3vlProjector;
  uint32_t image_size = 768;  // clip.vision.image_size: the position table's side x patch_size
  uint32_t patch_size = 16;
  uint32_t n_embd = 1152;  // the vision tower's width
  uint32_t n_ff = 4304;
  uint32_t n_layer = 27;
  uint32_t n_head = 16;
  uint32_t projection_dim = 5120;          // the text model's width, what the merger writes
  uint32_t spatial_merge = 2;              // 2x2 patches a token
  std::vector<uint32_t> deepstack_layers;  // layers whose output a deepstack merger also takes
  // Patches of the image llama.cpp reserves the graph for at load (clip.cpp get_dummy_batch):
  // qwen3vl's hparams.set_warmup_n_tokens(46*46), 46 x 46 merged tokens of 2 x 2 patches.
  uint64_t warmup_patches() const;
};

// The tensors clip.cpp's load_tensors takes for the shape, matrices in `matrix_type`, the patch
// embeddings f16, the position table, norms and biases f32 (as convert_hf_to_gguf.py's mmproj at
// f16).
std::vector<TensorDesc> projector_tensors(const ProjectorShape& shape,
                                          TensorType matrix_type = TensorType::f16);

core::Status write_projector(const ProjectorShape& shape, TensorType matrix_type,
                             const std::filesystem::path& path, bool overwrite = false);

struct ProjectorFile {
  ProjectorShape shape;
  std::vector<TensorDesc> tensors;  // the file's
};

// Refused (invalid_argument) when the file is not a clip GGUF, misses a key the shape needs, or
// its projector type is not one gauntlet sizes (the message names it and the known ones).
core::Result<ProjectorFile> read_projector(const std::filesystem::path& path);

// The projector of a shape preset whose vision tower's dimensions are published, for `model make
// --projector`; a small tower writing `text_n_embd` otherwise.
ProjectorShape projector_for(const std::string& preset, uint32_t text_n_embd);

}  // namespace gauntlet::engine::model
