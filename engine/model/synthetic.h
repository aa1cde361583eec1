#pragma once
// Synthetic models of every architecture the engine runs: any shape, deterministic weights from a
// seed, in any file type (each tensor typed by llama.cpp's quantizer rules, file_type.h), with the
// metadata and minimal tokenizer llama.cpp's loader needs. Matrices are uniform with variance
// 1/n_in (so activations keep unit scale and the logits vary from step to step), norm weights are
// near 1, and every tensor draws from its own generator, so a tensor's values do not depend on the
// order in which tensors are written.
#include <cstdint>
#include <filesystem>

#include "core/status.h"
#include "engine/model/gguf_writer.h"
#include "engine/model/imatrix.h"
#include "engine/model/shape.h"

namespace gauntlet::engine::model {

// A writer holding the model's metadata and tensor generators (nothing is generated yet).
// `overrides`: llama-quantize's --tensor-type (file_type.h). `imatrix`: llama-quantize's
// --imatrix: the types follow llama.cpp's rules with an importance matrix and each tensor is
// quantized with its entry; refused (invalid_argument, check_importance) where llama.cpp needs
// an imatrix and has none, or the imatrix does not fit the model.
core::Result<GgufWriter> synthetic_writer(const ModelShape& shape, FileType format, uint64_t seed,
                                          std::span<const TensorTypeOverride> overrides = {},
                                          const Imatrix* imatrix = nullptr);

core::Status write_synthetic_model(const ModelShape& shape, FileType format, uint64_t seed,
                                   const std::filesystem::path& path, bool overwrite = false,
                                   std::span<const TensorTypeOverride> overrides = {},
                                   const Imatrix* imatrix = nullptr);

}  // namespace gauntlet::engine::model
