#pragma once
// The fit question (field case 5): which weight formats of this model fit this device, and up to
// which context? The planner's peak (weights + KV cache for the architecture's KV heads and
// head_dim + activations and staging) against a budget: the measured safe budget where the
// stress measured the device, else what a standard-level stress would allow on the device's
// (or the simulated target's) memory. A planned answer: the profiles say what was run.
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.h"
#include "harness/profiles.h"
#include "harness/quick_model.h"
#include "harness/simulate.h"
#include "reports/report.h"

namespace gauntlet::harness {

struct FitBudget {
  uint64_t bytes = 0;
  std::string basis;  // how the figure was reached, for the report
};

// The measured safe budget, unless the level capped the stress below what the device has, or the
// device is simulated: then 0.9 of its memory (a standard level's share) less the stress's 10 %
// margin.
FitBudget fit_budget(const core::DeviceInfo& claimed, const DeviceFacts& facts,
                     const std::optional<SimulateClamps>& clamps);

// The largest context (a multiple of 256, or the whole trained context) whose planned peak fits
// the budget, with an f16 KV cache as llama.cpp keeps by default; context 0 and the reason when
// none does.
reports::FitAnswer fit_format(const engine::model::ModelShape& shape,
                              engine::model::FileType format,
                              std::span<const engine::model::TensorDesc> tensors,
                              const FitBudget& budget);

// One answer per planned format of the model set.
std::vector<reports::FitAnswer> fit_answers(const ModelSet& models, const FitBudget& budget);

}  // namespace gauntlet::harness
