#pragma once
// The fit question (field case 5): which weight formats of this model fit this device, and up to
// which context? The planner's peak (weights + KV cache for the architecture's KV heads and
// head_dim + activations and staging) against a budget: the measured safe budget where the
// stress measured the device, else what a standard-level stress would allow on the device's
// (or the simulated target's) memory. A planned answer: the profiles say what was run.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/tensor_type.h"
#include "engine/model/projector.h"
#include "harness/profiles.h"
#include "harness/quick_model.h"
#include "harness/simulate.h"
#include "reports/report.h"

namespace gauntlet::harness {

struct FitBudget {
  uint64_t bytes = 0;  // the GPU side's
  std::string basis;   // how the figure was reached, for the report
  // A device whose memory is the host's: the budget of the one pool that the GPU side and the
  // host side of a placement draw on together, and what bounds it. 0 for a discrete card, whose
  // host side is host memory apart ("VRAM + RAM").
  uint64_t pool_bytes = 0;
  std::string pool_basis = {};
};

// The measured safe budget, unless the level capped the stress below what the device has, or the
// device is simulated: then 0.9 of the memory that bounds the GPU side (a standard level's share)
// less the stress's 10 % margin. Memory other processes hold, where the driver says it, comes off
// first; a shared-memory device's pool gets the same share of the host memory.
FitBudget fit_budget(const core::DeviceInfo& claimed, const DeviceFacts& facts,
                     const std::optional<SimulateClamps>& clamps,
                     const reports::MemoryPool& pool = {});

// The answer llama.cpp's --fit logic (common/fit.cpp) would give for a deployment of this format
// on the device, counted as llama.cpp allocates (engine/placement/deployment.h: the weights the
// device holds, the KV cache (f16 unless `cache` says), the compute buffer at the default
// micro-batch of 512; the input embedding and the output buffer in host memory): the whole model at
// the largest context that fits (a multiple of 256, or the whole trained context), giving context
// up down to kFitMinContext; below that, the most layer slots on the device at that context, the
// rest on the host. Context 0 and the reason when not even one slot fits.
inline constexpr uint32_t kFitMinContext = 4096;  // llama.cpp's --fit-ctx default
inline constexpr uint32_t kFitMicroBatch = 512;   // llama.cpp's -ub default
// The KV cache a deployment asks for (-ctk, -ctv, -fa): f16 without flash attention by default.
struct FitCache {
  core::TensorType type_k = core::TensorType::f16;
  core::TensorType type_v = core::TensorType::f16;
  bool flash_attention = false;
  uint32_t sequences = 1;  // -np: slots sharing the context, n_vocab floats of output each
  // "f16", "q8_0" (K and V alike) or "q8_0/q4_0".
  std::string types() const;
};

// A draft model (-md) beside the model, as llama.cpp's server holds it
// (common_base_params_to_speculative): its weights, and one context of the model's context, slots
// (-np), micro-batch and cache, every layer on the device. Its bytes are part of each answer's.
struct FitDraft {
  std::string name;  // the file's name
  engine::model::ModelShape shape;
  std::vector<engine::model::TensorDesc> tensors;
};

// The draft model file at `path` for `model`: refused (invalid_argument) when it cannot be read
// or its vocabulary is not the model's (a draft proposes the model's token ids).
core::Result<FitDraft> read_fit_draft(const std::filesystem::path& path,
                                      const engine::model::ModelShape& model);

// A vision projector (--mmproj) beside the model, as llama.cpp's mtmd loads it: its weights and
// the compute buffer its warmup reserves (engine/placement/projector_deployment.h), on the device
// (mtmd offloads it to the GPU), the same at every context. Its bytes are part of each answer's.
struct FitProjector {
  std::string name;  // the file's name
  engine::model::ProjectorFile file;
};

// The projector file at `path` for `model`: refused (invalid_argument) when it cannot be read,
// its type is not one gauntlet sizes, or its output is not the model's width.
core::Result<FitProjector> read_fit_projector(const std::filesystem::path& path,
                                              const engine::model::ModelShape& model);

// What a deployment loads beside the model, each planned on the device with it. `mtp`: the
// model's own MTP head in use (--spec-type draft-mtp, engine/placement/deployment.h's
// mtp_deployment_bytes), its blocks' weights and an MTP context at each answer's context.
struct FitCompanions {
  std::optional<FitDraft> draft;
  std::optional<FitProjector> projector;
  bool mtp = false;
};

reports::FitAnswer fit_format(const engine::model::ModelShape& shape,
                              engine::model::FileType format,
                              std::span<const engine::model::TensorDesc> tensors,
                              const FitBudget& budget, const FitCache& cache = {},
                              const FitCompanions& companions = {});

// One answer per planned format of the model set.
std::vector<reports::FitAnswer> fit_answers(const ModelSet& models, const FitBudget& budget,
                                            const FitCache& cache = {},
                                            const FitCompanions& companions = {});

}  // namespace gauntlet::harness
