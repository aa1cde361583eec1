#pragma once
// Profile planning: from what the earlier stages verified (features, local memory, the safe
// memory budget), every candidate decode configuration and the verdict the planner alone can
// give it. Candidates that pass every static check are left for the engine to run.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "core/options.h"
#include "engine/device/config.h"
#include "engine/model/shape.h"
#include "engine/placement/placement.h"
#include "engine/planner/planner.h"
#include "reports/report.h"

namespace gauntlet::harness {

// What the earlier stages established about one device (after --simulate clamps).
struct DeviceFacts {
  core::DeviceInfo info;
  std::map<std::string, reports::FeatureVerdict> features;  // conformance's verdicts by key
  uint64_t local_mem_verified_bytes = 0;
  uint64_t safe_budget_bytes = 0;
  // True when the budget stopped at the level's cap rather than at a limit of the device:
  // then a profile over it is untested at this level, not unsafe.
  bool budget_capped_by_level = false;
};

// A decode configuration and the variant family it belongs to: "whole" holds the whole
// activation vector and all scores in local memory, "tiled" holds chunks of them (a pass of
// several tokens: its matmul holds the whole vector or a chunk of each of 16 tokens).
struct DecodeSetup {
  engine::device::DecodeConfig config;
  bool tiled = false;
  // Layers across the device and the host (the device's kernels in their default variant, the
  // host's share on the reference): empty for the whole model on the device.
  std::optional<engine::placement::Placement> placement;
};

struct Candidate {
  DecodeSetup setup;
  reports::Profile profile;  // verdict untested unless a static check decided it
  bool runnable = false;     // every static check passed: the engine may run it
};

// The contexts a model is planned at: powers of two from 512 up to its maximum.
std::vector<uint32_t> planned_contexts(const engine::model::ModelShape& shape);

// The passes a level plans: {micro-batch, sequences}. Every level has one token (decode), a
// prompt micro-batch of 512 and 4 sequences decoded together; from standard on, micro-batches on
// both sides of 32 (two of the default token tiles of 16), and 8 sequences at full. A model with
// recurrent layers (a gated-DeltaNet hybrid) adds micro-batches of 32, 64 and 65 at every level:
// the chunk edges of recurrent kernels, where GPUs have failed (llama.cpp's Vulkan backend gave
// garbage for Qwen3.5 only at batch 512; its chunked gated_delta_net works in chunks of 64).
struct PassShape {
  uint32_t micro_batch = 1, sequences = 1;
};
std::vector<PassShape> planned_passes(core::Level level, const engine::model::ModelShape& shape);

// How the placed profiles are placed: the user's -ngl and -ts, and the layer slots the fit
// answer gives a format that does not fit whole.
struct PlacedRequest {
  engine::placement::PlacementRequest user;  // -ngl, -ts, --cpu-moe, --n-cpu-moe, -ot
  std::vector<std::string> gpus;  // with -ts: the selected OpenCL and Vulkan devices, in order
  std::map<engine::model::FileType, uint32_t> fit_slots;
  // For a mixture: the layers whose experts each format's fit answer puts on the host.
  std::map<engine::model::FileType, uint32_t> fit_expert_layers;
};

// Every candidate for the device, each with its static verdict: unsafe when a feature it needs
// is not verified, when a kernel's local memory exceeds the verified limit, or when its planned
// peak exceeds the budget (untested instead when the budget was only capped by the level).
// Each weight format planned comes with its tensors and their types (a file's own, or llama.cpp's
// rules for a synthetic model).
using WeightMixes = std::map<engine::model::FileType, std::vector<engine::model::TensorDesc>>;

// The KV caches profiles are planned with: f32, f16, and one quantized cache attended through
// flash attention (llama.cpp needs it for a quantized V): `quantized` when it is quantized (the
// run's -ctk/-ctv), else q8_0 for K and V. A model whose heads are not a whole number of the
// quantized type's blocks is planned without it.
std::vector<engine::planner::KvPrecision> planned_kv_caches(engine::planner::KvPrecision quantized);

std::vector<Candidate> plan_profiles(
    const engine::model::ModelShape& shape, const WeightMixes& mixes, const DeviceFacts& facts,
    const std::string& device_key, core::Level level, const PlacedRequest& placed = {},
    engine::planner::KvPrecision quantized_kv = {engine::model::TensorType::q8_0,
                                                 engine::model::TensorType::q8_0});

// The placement a placed profile of `format` checks on `device`: -ngl's slots, else the fit
// answer's, else the first half of the layers on the host and the rest and the output layer on
// the device (llama.cpp's -ngl n_layer + 1 - n_layer / 2); with -ts, across the GPUs. Nothing
// when that is the whole model on one device, or with -ts a split `device` has no share in. A
// placed profile is safe only when the device's share fits the device's budget, the host's share
// fits 0.9 of the host's available memory, and the split matches the host reference.
std::optional<engine::placement::Placement> placed_profile_placement(
    const engine::model::ModelShape& shape, const std::string& device,
    engine::model::FileType format, const PlacedRequest& request);
// The expert placements a mixture's profiles check on `device`, every layer on the device: the
// user's --cpu-moe / --n-cpu-moe / -ot when given, else all experts on the host and the first N
// on the host (N from the fit answer, else half of the layers). Empty for a dense model. An -ot
// rule that does not apply is an error naming it.
core::Result<std::vector<engine::placement::Placement>> expert_profile_placements(
    const engine::model::ModelShape& shape, const std::string& device,
    engine::model::FileType format, const PlacedRequest& request);
// The passes a placed profile is checked at: one token, micro-batches of 32 and 512, and 4
// sequences decoded together; the quick level runs the micro-batch of 32 (its other passes are
// left untested there).
std::vector<PassShape> placed_passes();

// The feature keys (conformance's names) a setup with these weights needs: each tensor type's
// dequantization ("q4_K", ..., "f16", "bf16"), and f16 arithmetic or storage where asked.
std::vector<std::string> required_features(const DecodeSetup& setup,
                                           std::span<const engine::model::TensorDesc> weights);

}  // namespace gauntlet::harness
