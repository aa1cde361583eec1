#pragma once
// Where a model comes from: a GGUF file, or a synthetic model of a shape written for the run. The
// decode and bench commands (and the harness through them) open models the same way.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "core/status.h"
#include "engine/model/file_type.h"
#include "engine/model/gguf.h"
#include "engine/model/shape.h"

namespace gauntlet::engine {

struct ModelSource {
  std::filesystem::path path;                      // a GGUF file, or empty with `shape` set
  std::optional<model::ModelShape> shape;          // a synthetic model of this shape
  model::FileType format = model::FileType::q8_0;  // for the synthetic model
  uint64_t seed = 1;                               // for the synthetic model
};

// Maps the file, or writes the synthetic model to a temporary file, maps it and removes the file
// (the map keeps it alive).
core::Result<std::unique_ptr<model::GgufFile>> open_model(const ModelSource& source);

}  // namespace gauntlet::engine
