#include "harness/fit.h"

#include <algorithm>
#include <cstdio>

#include "engine/placement/deployment.h"
#include "engine/placement/expert_placement.h"
#include "engine/placement/projector_deployment.h"
#include "engine/planner/planner.h"

namespace gauntlet::harness {

namespace {

using engine::planner::KvPrecision;
namespace placement = engine::placement;

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

constexpr const char* kDevice = "device";

// One side (0: device, 1: host) of a deployment beside the model's; 0 without one.
uint64_t side(const std::vector<placement::DeploymentBytes>& bytes, size_t i) {
  return bytes.empty() ? 0 : bytes[i].total();
}

// The deployment with the last `slots` layer slots on the device at `context`, and the draft
// model's and the MTP context's (empty without them) and the projector's (0 without one) beside
// it.
struct Deployment {
  std::vector<placement::DeploymentBytes> bytes;  // device, host
  std::vector<placement::DeploymentBytes> draft;  // device, host
  std::vector<placement::DeploymentBytes> mtp;    // device, host
  uint64_t projector = 0;                         // on the device
  uint64_t device() const { return bytes[0].total() + side(draft, 0) + side(mtp, 0) + projector; }
  uint64_t host() const { return bytes[1].total() + side(draft, 1) + side(mtp, 1); }
};

// Within the GPU side's budget, and on a shared-memory device both sides within the one pool.
bool within(const Deployment& d, const FitBudget& budget) {
  return d.device() <= budget.bytes &&
         (budget.pool_bytes == 0 || d.device() + d.host() <= budget.pool_bytes);
}

// The pool's part of an answer: its budget, and what the placement draws on it.
void set_pool(reports::FitAnswer& a, const Deployment& d, const FitBudget& budget) {
  if (budget.pool_bytes == 0) return;
  a.pool_bytes = budget.pool_bytes;
  a.pool_basis = budget.pool_basis;
  a.host_bytes = d.host();
}

std::string pool_text(const Deployment& d, const FitBudget& budget) {
  if (budget.pool_bytes == 0) return "";
  return "; GPU side " + gib(d.device()) + " and host side " + gib(d.host()) +
         " within the one pool shared with the host (" + gib(budget.pool_bytes) + ")";
}

// With `expert_layers` > 0, the routed experts of the first expert_layers layers in host memory.
Deployment deploy(const engine::model::ModelShape& shape,
                  std::span<const engine::model::TensorDesc> tensors, uint32_t slots,
                  uint32_t context, const FitCache& cache, uint32_t expert_layers,
                  const FitCompanions& with) {
  auto p = placement::from_gpu_layers(shape.n_layer,
                                      {static_cast<int>(slots), {kDevice}, {}, placement::kHost});
  if (expert_layers > 0) (void)placement::experts_on_host(*p, shape, expert_layers);
  placement::DeploymentOptions o;
  o.context = context;
  o.micro_batch = kFitMicroBatch;
  o.sequences = cache.sequences;
  o.cache_type_k = cache.type_k;
  o.cache_type_v = cache.type_v;
  o.flash_attention = cache.flash_attention;
  Deployment d;
  d.bytes = placement::deployment_bytes(shape, tensors, *p, o);
  if (with.draft) {
    auto whole = placement::from_gpu_layers(with.draft->shape.n_layer,
                                            {-1, {kDevice}, {}, placement::kHost});
    d.draft = placement::deployment_bytes(with.draft->shape, with.draft->tensors, *whole, o);
  }
  if (with.mtp) d.mtp = placement::mtp_deployment_bytes(shape, tensors, o);
  // mtmd's flash_attn_type is auto, and every backend gauntlet plans for has flash attention.
  if (with.projector) d.projector = placement::projector_bytes(with.projector->file).total();
  return d;
}

void set_answer(reports::FitAnswer& a, const engine::model::ModelShape& shape, const Deployment& d,
                uint32_t context, const FitCache& cache) {
  a.largest_context = context;
  a.planned_bytes = d.device();
  a.draft_bytes = side(d.draft, 0);
  a.mtp_bytes = side(d.mtp, 0);
  a.projector_bytes = d.projector;
  a.kv_bytes = d.bytes[0].kv_cache + d.bytes[1].kv_cache;
  a.state_bytes = d.bytes[0].state + d.bytes[1].state;
  // The planner counts f16 cells; the cache's own types scale each cell's K and V rows.
  const uint64_t f16_without_window =
      engine::planner::kv_cache_bytes_without_window(shape, context, 1, KvPrecision::f16);
  const double cell_ratio =
      static_cast<double>(core::row_bytes(cache.type_k, shape.n_embd_kv()) +
                          core::row_bytes(cache.type_v, shape.n_embd_kv())) /
      static_cast<double>(2 * core::row_bytes(core::TensorType::f16, shape.n_embd_kv()));
  a.kv_bytes_without_window = static_cast<uint64_t>(f16_without_window * cell_ratio);
  a.kv_bytes_without_window = std::max(a.kv_bytes_without_window, a.kv_bytes);
  a.kv_cache = cache.types();
  a.flash_attention = cache.flash_attention;
}

// The placement part of an answer: `device_slots` of `layer_slots` on the device at `context`,
// the experts of the first `expert_layers` layers on the host.
reports::FitAnswer::Placement placement_answer(const Deployment& placed, uint32_t device_slots,
                                               uint32_t layer_slots, uint32_t context,
                                               uint32_t expert_layers) {
  reports::FitAnswer::Placement p;
  p.device_slots = device_slots;
  p.layer_slots = layer_slots;
  p.context = context;
  p.min_context = context;
  p.micro_batch = kFitMicroBatch;
  p.expert_layers_on_host = expert_layers;
  p.bytes = {{kDevice, placed.device()}, {placement::kHost, placed.host()}};
  return p;
}

// A standard level stresses 0.9 of the memory and keeps 10 % of it as margin (stress.cpp).
uint64_t standard_share(uint64_t memory) {
  return static_cast<uint64_t>(static_cast<double>(memory) * 0.9 * 0.9);
}

std::string held_text(uint64_t bytes, const std::string& source) {
  return bytes > 0 ? " less " + gib(bytes) + " other processes hold (" + source + ")," : "";
}

// The pool's share: the host memory less what other processes hold of it, as the GPU side's.
void add_pool(FitBudget& budget, const reports::MemoryPool& pool) {
  if (!pool.shared || pool.pool_bytes == 0) return;
  const uint64_t held = std::min(pool.pool_held_bytes, pool.pool_bytes);
  budget.pool_bytes = standard_share(pool.pool_bytes - held);
  budget.pool_basis = "0.9 of " + gib(pool.pool_bytes) + " of host memory," +
                      held_text(held, pool.pool_held_source) + " less a 10% margin";
}

}  // namespace

FitBudget fit_budget(const core::DeviceInfo& claimed, const DeviceFacts& facts,
                     const std::optional<SimulateClamps>& clamps, const reports::MemoryPool& pool) {
  const bool simulated = clamps && clamps->global_mem_size;
  FitBudget budget;
  if (!simulated && !facts.budget_capped_by_level) {
    budget = {facts.safe_budget_bytes, "the measured safe budget"};
    if (pool.device_held_bytes > 0) {
      budget.basis +=
          " (it could not use what other processes held: " + gib(pool.device_held_bytes) + ", " +
          pool.device_held_source + ")";
    }
    add_pool(budget, pool);
    return budget;
  }
  // A simulated target's memory as the target has it (the device here may have less); the bound
  // the pool names where there is one (GTT, ttm.pages_limit on a shared-memory device).
  uint64_t memory = simulated ? *clamps->global_mem_size : claimed.global_mem_size;
  if (pool.bound_bytes > 0) memory = pool.bound_bytes;
  const std::string bound = pool.bound.empty() ? "" : " (" + pool.bound + ")";
  const uint64_t held = std::min(pool.device_held_bytes, memory);
  const std::string of = simulated
                             ? "the simulated " + clamps->name + "'s " + gib(memory) + bound
                             : "the device's " + gib(memory) + bound + " (this level verified " +
                                   gib(facts.safe_budget_bytes) + ")";
  budget = {standard_share(memory - held),
            "0.9 of " + of + "," + held_text(held, pool.device_held_source) + " less a 10% margin"};
  add_pool(budget, pool);
  return budget;
}

core::Result<FitDraft> read_fit_draft(const std::filesystem::path& path,
                                      const engine::model::ModelShape& model) {
  auto set = prepare_models(path, "", {}, 0);  // a file: its own mix, nothing synthesized
  if (!set) return set.error();
  if (set->shape.n_vocab != model.n_vocab) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the draft model's vocabulary (" + std::to_string(set->shape.n_vocab) +
                                " tokens) is not the model's (" + std::to_string(model.n_vocab) +
                                " tokens): a draft proposes the model's token ids");
  }
  return FitDraft{path.filename().string(), set->shape, set->mixes.begin()->second};
}

core::Result<FitProjector> read_fit_projector(const std::filesystem::path& path,
                                              const engine::model::ModelShape& model) {
  auto file = engine::model::read_projector(path);
  if (!file) return file.error();
  if (file->shape.projection_dim != model.n_embd) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the vision projector's output (" +
                                std::to_string(file->shape.projection_dim) +
                                " wide) is not the model's width (" + std::to_string(model.n_embd) +
                                "): a projector writes the model's input embeddings");
  }
  return FitProjector{path.filename().string(), std::move(*file)};
}

reports::FitAnswer fit_format(const engine::model::ModelShape& shape,
                              engine::model::FileType format,
                              std::span<const engine::model::TensorDesc> tensors,
                              const FitBudget& budget, const FitCache& cache,
                              const FitCompanions& with) {
  reports::FitAnswer a;
  if (with.draft) a.draft_model = with.draft->name;
  if (with.projector) a.projector_model = with.projector->name;
  a.mtp_layers = with.mtp ? shape.n_layer_nextn : 0;
  a.weight_format = engine::model::to_string(format);
  a.weight_bytes = engine::planner::weight_bytes(tensors);
  a.budget_bytes = budget.bytes;
  a.budget_basis = budget.basis;
  const uint32_t slots = shape.n_layer + 1;
  const uint32_t floor = std::min(kFitMinContext, shape.context);
  auto fits = [&](uint32_t layers, uint32_t context, uint32_t expert_layers = 0) {
    return within(deploy(shape, tensors, layers, context, cache, expert_layers, with), budget);
  };
  // Every answer below is set from the deployment it names; a shared pool's figures with it.
  auto answer = [&](const Deployment& d, uint32_t context, std::string why) {
    set_answer(a, shape, d, context, cache);
    set_pool(a, d, budget);
    a.why = std::move(why) + (context > 0 ? pool_text(d, budget) : "");
  };
  if (fits(slots, shape.context)) {
    answer(deploy(shape, tensors, slots, shape.context, cache, 0, with), shape.context,
           "the whole trained context fits");
    return a;
  }
  if (fits(slots, floor)) {
    // Context first: the largest multiple of 256 that fits (the device's bytes grow with it).
    uint32_t lo = floor, hi = shape.context;  // lo fits, hi does not
    while (hi - lo > 256) {
      const uint32_t mid = (lo + (hi - lo) / 2) / 256 * 256;
      if (mid <= lo) break;
      (fits(slots, mid) ? lo : hi) = mid;
    }
    answer(deploy(shape, tensors, slots, lo, cache, 0, with), lo,
           "the KV cache of a longer context would pass the budget");
    return a;
  }
  // A mixture then parks experts in host memory (common/fit.cpp moves them first): the fewest
  // layers' experts, from the first layer on (--n-cpu-moe N), with every layer on the device.
  if (shape.moe() && fits(slots, floor, shape.n_layer)) {
    uint32_t n = 1;
    while (!fits(slots, floor, n)) ++n;
    const auto placed = deploy(shape, tensors, slots, floor, cache, n, with);
    answer(placed, floor,
           "the whole model needs " +
               gib(deploy(shape, tensors, slots, floor, cache, 0, with).device()) + " at context " +
               std::to_string(floor) + ": every layer on the device, the experts of " +
               "the first " + std::to_string(n) + " in host memory (--n-cpu-moe " +
               std::to_string(n) + ")");
    a.placement = placement_answer(placed, slots, slots, floor, n);
    return a;
  }
  // Then layers: the most slots on the device at the floor context, the rest on the host.
  uint32_t best = 0;
  for (uint32_t n = slots; n-- > 1;) {
    if (fits(n, floor)) {
      best = n;
      break;
    }
  }
  const auto whole = deploy(shape, tensors, slots, floor, cache, 0, with);
  if (best == 0) {
    const bool pool_bound =
        budget.pool_bytes > 0 && whole.device() + whole.host() > budget.pool_bytes;
    answer(
        whole, 0,
        pool_bound
            ? "the GPU side and the host side together need " + gib(whole.device() + whole.host()) +
                  " at context " + std::to_string(floor) + ", more than the pool they share (" +
                  gib(budget.pool_bytes) + ", " + budget.pool_basis +
                  "): on this device moving layers to the host frees nothing"
        : a.weight_bytes > budget.bytes
            ? "the weights alone (" + gib(a.weight_bytes) + ") exceed the budget, and not " +
                  "one layer fits beside the compute buffer"
            : "not one layer fits beside the compute buffer at context " + std::to_string(floor));
    a.planned_bytes = whole.device();
    return a;
  }
  const auto placed = deploy(shape, tensors, best, floor, cache, 0, with);
  answer(placed, floor,
         "the whole model needs " + gib(whole.device()) + " at context " + std::to_string(floor) +
             ": " + std::to_string(best) + " of " + std::to_string(slots) +
             " layer slots on the device (-ngl " + std::to_string(best) +
             "), the rest on the host");
  a.placement = placement_answer(placed, best, slots, floor, 0);
  return a;
}

std::vector<reports::FitAnswer> fit_answers(const ModelSet& models, const FitBudget& budget,
                                            const FitCache& cache,
                                            const FitCompanions& companions) {
  std::vector<reports::FitAnswer> out;
  for (const auto& [format, tensors] : models.mixes) {
    out.push_back(fit_format(models.shape, format, tensors, budget, cache, companions));
  }
  return out;
}

std::string FitCache::types() const {
  std::string text = core::to_string(type_k);
  if (type_v != type_k) text += std::string("/") + core::to_string(type_v);
  return text;
}

}  // namespace gauntlet::harness
