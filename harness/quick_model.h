#pragma once
// The models a run decodes: a GGUF file the user names, or synthetic models of a preset shape
// in each weight format, written once into a cache folder and reused.
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/model/file_type.h"
#include "engine/model/shape.h"
#include "reports/report.h"

namespace gauntlet::harness {

// The built-in model of `gauntlet run`: small enough that the quick level over every device
// here finishes in about two minutes, with an 11008-wide feed-forward layer (the width of
// field case 2, whose f32 activations need 44032 bytes of local memory) and a context long
// enough that the KV cache, not the weights, decides which contexts fit a small budget.
engine::model::ModelShape quick_shape();

struct ModelSet {
  engine::model::ModelShape shape;
  reports::ModelInfo info;
  // Every weight format planned, with its tensors and their types.
  std::map<engine::model::FileType, std::vector<engine::model::TensorDesc>> mixes;
  // A GGUF file per weight format the run can decode; formats absent here are planned only.
  std::map<engine::model::FileType, std::filesystem::path> files;
  std::string note;        // why some formats are planned only
  bool user_file = false;  // the user's --model, always run in its own format
};

// The weight formats a synthetic model is planned and run in: the file types teams deploy, and
// MXFP4_MOE for a mixture of experts.
std::vector<engine::model::FileType> planned_formats(const engine::model::ModelShape& shape);
// The quick level runs these (the formats teams deploy most: F16, Q8_0, Q4_K_M); the other
// formats are planned, and run from the standard level on.
bool runs_at_quick_level(engine::model::FileType format);

// A user's GGUF file: its own mix only. A preset shape, dims (n_embd=..,n_layer=..,...) or the
// quick model: every planned format, each synthesized into `cache_dir` where its weights fit in
// `max_synthetic_bytes`.
core::Result<ModelSet> prepare_models(const std::filesystem::path& model_path,
                                      const std::string& shape_name,
                                      const std::filesystem::path& cache_dir,
                                      uint64_t max_synthetic_bytes);

}  // namespace gauntlet::harness
