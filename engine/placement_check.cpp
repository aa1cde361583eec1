#include "engine/placement_check.h"

#include "engine/make_decoder.h"

namespace gauntlet::engine {

core::Result<PlacementCheck> check_placement(const placement::Placement& placement,
                                             std::span<backends::Device* const> devices,
                                             const model::GgufFile& file,
                                             const device::PassSpec& spec) {
  auto host = model::load_model(file.info(), file.bytes());
  if (!host) return host.error();
  for (auto* d : devices) {
    if (d != nullptr) d->reset_peak();
  }
  auto decoder = make_decoder(placement, devices, file,
                              {0, spec.kv, spec.context, spec.micro_batch, spec.sequences});
  if (!decoder) return decoder.error();
  auto result = device::compare_with_reference(**decoder, file, spec);
  if (!result) return result.error();
  PlacementCheck out;
  out.result = std::move(*result);
  planner::PlanOptions plan;
  plan.format = host->file_type;
  plan.tensors = host->tensors;
  plan.context = spec.context;
  plan.sequences = spec.sequences;
  plan.micro_batch = spec.micro_batch;
  plan.kv = spec.kv;
  out.planned = placement::plan_placement(host->shape, placement, plan);
  for (auto* d : devices) out.peak_bytes.push_back(d != nullptr ? d->peak_bytes() : 0);
  return out;
}

}  // namespace gauntlet::engine
