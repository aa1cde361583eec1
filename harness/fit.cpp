#include "harness/fit.h"

#include <cstdio>

#include "engine/planner/planner.h"

namespace gauntlet::harness {

namespace {

using engine::planner::KvPrecision;

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

uint64_t planned_peak(const engine::model::ModelShape& shape,
                      std::span<const engine::model::TensorDesc> tensors, uint32_t context) {
  engine::planner::PlanOptions o;
  o.context = context;
  o.kv = KvPrecision::f16;
  o.tensors = tensors;
  return engine::planner::plan_memory(shape, o).peak;
}

}  // namespace

FitBudget fit_budget(const core::DeviceInfo& claimed, const DeviceFacts& facts,
                     const std::optional<SimulateClamps>& clamps) {
  const bool simulated = clamps && clamps->global_mem_size;
  if (!simulated && !facts.budget_capped_by_level) {
    return {facts.safe_budget_bytes, "the measured safe budget"};
  }
  // A standard level stresses 0.9 of the memory and keeps 10 % of it as margin (stress.cpp).
  // A simulated target's memory as the target has it (the device here may have less).
  const uint64_t memory = simulated ? *clamps->global_mem_size : claimed.global_mem_size;
  const uint64_t bytes = static_cast<uint64_t>(static_cast<double>(memory) * 0.9 * 0.9);
  const std::string of = simulated ? "the simulated " + clamps->name + "'s " + gib(memory)
                                   : "the device's " + gib(memory) + " (this level verified " +
                                         gib(facts.safe_budget_bytes) + ")";
  return {bytes, "0.9 of " + of + ", less a 10% margin"};
}

reports::FitAnswer fit_format(const engine::model::ModelShape& shape,
                              engine::model::FileType format,
                              std::span<const engine::model::TensorDesc> tensors,
                              const FitBudget& budget) {
  reports::FitAnswer a;
  a.weight_format = engine::model::to_string(format);
  a.weight_bytes = engine::planner::weight_bytes(tensors);
  a.budget_bytes = budget.bytes;
  a.budget_basis = budget.basis;
  const uint32_t smallest = std::min<uint32_t>(256, shape.context);
  if (planned_peak(shape, tensors, smallest) > budget.bytes) {
    a.planned_bytes = planned_peak(shape, tensors, smallest);
    a.why = a.weight_bytes > budget.bytes
                ? "the weights alone (" + gib(a.weight_bytes) + ") exceed the budget"
                : "weights, KV cache and activations at context " + std::to_string(smallest) +
                      " need " + gib(a.planned_bytes) + " > " + gib(budget.bytes);
    return a;
  }
  if (planned_peak(shape, tensors, shape.context) <= budget.bytes) {
    a.largest_context = shape.context;
    a.planned_bytes = planned_peak(shape, tensors, shape.context);
    a.why = "the whole trained context fits";
    return a;
  }
  // The peak grows with the context: bisect over multiples of 256.
  uint32_t lo = smallest, hi = shape.context;  // lo fits, hi does not
  while (hi - lo > 256) {
    const uint32_t mid = (lo + (hi - lo) / 2) / 256 * 256;
    if (mid <= lo) break;
    (planned_peak(shape, tensors, mid) <= budget.bytes ? lo : hi) = mid;
  }
  a.largest_context = lo;
  a.planned_bytes = planned_peak(shape, tensors, lo);
  a.why = "the KV cache of a longer context would pass the budget";
  return a;
}

std::vector<reports::FitAnswer> fit_answers(const ModelSet& models, const FitBudget& budget) {
  std::vector<reports::FitAnswer> out;
  for (const auto& [format, tensors] : models.mixes) {
    out.push_back(fit_format(models.shape, format, tensors, budget));
  }
  return out;
}

}  // namespace gauntlet::harness
