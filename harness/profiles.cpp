#include "harness/profiles.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

#include "engine/device/profile_check.h"
#include "engine/placement/expert_placement.h"
#include "engine/placement/placement_plan.h"
#include "engine/reference/kv_rows.h"
#include "stress/host_limits.h"

namespace gauntlet::harness {

namespace {

using engine::model::FileType;
using engine::model::TensorDesc;
using engine::model::TensorType;
using engine::planner::ActivationType;
using engine::planner::KernelOp;
using engine::planner::KernelVariant;
using engine::planner::KvPrecision;

constexpr uint32_t kMatvecTile = 1024;
constexpr uint32_t kScoreTile = 256;
constexpr uint32_t kWorkgroup = 64;
constexpr uint32_t kMatmulTokens = 16;
constexpr uint32_t kMatmulTile = 256;

std::string mib_or_gib(uint64_t bytes) {
  char text[32];
  if (bytes >= (1ull << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
  }
  return text;
}

DecodeSetup make_setup(FileType weights, ActivationType compute, KvPrecision kv, bool tiled,
                       uint32_t context, PassShape pass) {
  DecodeSetup s;
  auto& c = s.config;
  s.tiled = tiled;
  c.weights = weights;
  c.compute = compute;
  c.kv = kv;
  c.context = context;
  c.sequences = pass.sequences;
  c.micro_batch = pass.micro_batch;
  c.matmul.workgroup = kWorkgroup;
  c.matmul.tokens = kMatmulTokens;
  c.matmul.activation_tile = tiled ? kMatmulTile : engine::planner::kWholeVector;
  c.matvec.workgroup = kWorkgroup;
  c.matvec.activation_tile = tiled ? kMatvecTile : engine::planner::kWholeVector;
  c.attention.workgroup = kWorkgroup;
  c.attention.score_tile = tiled ? kScoreTile : 0;
  c.flash_attention = kv.quantized();
  return s;
}

// What the planner is asked for a setup with these tensors.
engine::planner::PlanOptions plan_options(const DecodeSetup& setup,
                                          std::span<const TensorDesc> tensors) {
  const auto& c = setup.config;
  engine::planner::PlanOptions o;
  o.format = c.weights;
  o.tensors = tensors;
  o.context = c.context;
  o.sequences = c.sequences;
  o.micro_batch = c.micro_batch;
  o.kv = c.kv;
  return o;
}

bool usable_verdict(reports::FeatureVerdict v) {
  return v == reports::FeatureVerdict::verified || v == reports::FeatureVerdict::emulated;
}

// The first needed feature that conformance did not verify: the reason and its cause.
std::optional<std::pair<std::string, reports::Cause>> missing_feature(
    const DecodeSetup& setup, std::span<const TensorDesc> weights, const DeviceFacts& facts) {
  for (const auto& key : required_features(setup, weights)) {
    auto it = facts.features.find(key);
    reports::FeatureVerdict verdict =
        it == facts.features.end() ? reports::FeatureVerdict::not_tested : it->second;
    bool needs_native = key == "f16.arithmetic";
    bool ok = needs_native ? verdict == reports::FeatureVerdict::verified : usable_verdict(verdict);
    if (!ok) {
      std::string what = key == "f16.arithmetic" ? "f16" : key;
      const char* cause = verdict == reports::FeatureVerdict::failed       ? "feature_failed"
                          : verdict == reports::FeatureVerdict::not_tested ? "feature_not_tested"
                                                                           : "feature_unsupported";
      return std::pair{what + " " + reports::to_string(verdict) + " (conformance " + key + ")",
                       reports::Cause{cause, key, {}}};
    }
  }
  return std::nullopt;
}

// The engine's own check names the kernel whose need is over the limit ("local memory 65536 >
// 32768 (matmul.wg64..., n_in 512)"); the cause's subject is that kernel ("matmul").
std::pair<std::string, reports::Cause> local_memory_reason(
    const DeviceFacts& facts, const engine::model::ModelShape& shape,
    const engine::device::DecodeConfig& config, uint64_t need) {
  reports::Cause cause{"local_memory",
                       "",
                       {{"need_bytes", static_cast<double>(need)},
                        {"limit_bytes", static_cast<double>(facts.local_mem_verified_bytes)}}};
  auto refusal =
      engine::device::check_config(facts.info, facts.local_mem_verified_bytes, shape, config);
  if (!refusal.is_ok() && refusal.error().message.rfind("local memory ", 0) == 0) {
    const std::string& text = refusal.error().message;
    if (const auto open = text.find('('); open != std::string::npos) {
      cause.subject = text.substr(open + 1, text.find_first_of(".,)", open) - open - 1);
    }
    return {text, cause};
  }
  return {"local memory " + std::to_string(need) + " > " +
              std::to_string(facts.local_mem_verified_bytes),
          cause};
}

bool local_memory_refused(const Candidate& c) {
  return c.profile.cause && c.profile.cause->key == "local_memory";
}

// Field case 2: a configuration refused for local memory names the ones of the same format and
// context that fit.
void point_to_fitting_variants(std::vector<Candidate>& candidates, uint64_t limit) {
  for (auto& c : candidates) {
    if (!local_memory_refused(c)) continue;
    std::string fits;
    for (const auto& other : candidates) {
      const auto& a = c.setup.config;
      const auto& b = other.setup.config;
      if (&other == &c || a.weights != b.weights || a.context != b.context ||
          a.sequences != b.sequences || a.kv != b.kv ||
          other.profile.variant.local_mem_bytes > limit) {
        continue;
      }
      fits += (fits.empty() ? "" : ", ") + other.profile.compute_precision + " activations " +
              other.profile.variant.name + " (" +
              std::to_string(other.profile.variant.local_mem_bytes) + " bytes)";
    }
    if (!fits.empty()) c.profile.reason += "; these fit: " + fits;
  }
}

// A placed candidate: the model's layers across the host and the device, checked by running the
// split against the host reference. Safe only when the device's share fits its budget.
// The host's room for a placement's host share: 0.9 of its available memory (the tighter of
// MemAvailable and the cgroup's room), as the stress's host margin keeps a tenth back.
uint64_t host_room() {
  const auto host = stress::read_host_memory();
  uint64_t room = host.mem_available.value_or(0);
  if (host.cgroup_room) room = std::min(room, *host.cgroup_room);
  return room / 10 * 9;
}

Candidate placed_candidate(const engine::model::ModelShape& shape, FileType weights,
                           std::span<const TensorDesc> tensors, const DeviceFacts& facts,
                           const std::string& device_key, uint32_t context, PassShape pass,
                           uint64_t host_budget, engine::placement::Placement placement_of) {
  Candidate c;
  c.setup = make_setup(weights, ActivationType::f32, KvPrecision::f32, false, context, pass);
  c.setup.placement = std::move(placement_of);
  const auto& placement = *c.setup.placement;
  auto& p = c.profile;
  p.device = device_key;
  p.api = core::to_string(facts.info.id.api);
  p.weight_format = engine::model::to_string(weights);
  p.compute_precision = "f32";
  p.kv_precision = "f32";
  p.context = context;
  p.batch = pass.sequences;
  p.micro_batch = pass.micro_batch;
  p.placement = placement.label;
  p.placement_shares = placement.describe();
  p.variant.name = "default";
  p.variant.workgroup = kWorkgroup;
  const auto bytes =
      engine::placement::plan_placement(shape, placement, plan_options(c.setup, tensors));
  const auto self =
      std::find(placement.devices.begin(), placement.devices.end(), facts.info.id.to_string()) -
      placement.devices.begin();
  const uint64_t share = bytes.at(static_cast<size_t>(self)).total();
  const uint64_t host_share = bytes.back().total();
  p.figures.planned_peak_bytes = share;  // this device's share
  p.name = reports::profile_name(p);
  p.familiar_name = reports::familiar_name(p.weight_format, p.compute_precision);
  if (auto missing = missing_feature(c.setup, tensors, facts)) {
    p.verdict = reports::ProfileVerdict::unsafe;
    std::tie(p.reason, p.cause) = *missing;
  } else if (share > facts.safe_budget_bytes) {
    p.verdict = facts.budget_capped_by_level ? reports::ProfileVerdict::untested
                                             : reports::ProfileVerdict::unsafe;
    p.reason = "the device's share needs " + mib_or_gib(share) + " > budget " +
               mib_or_gib(facts.safe_budget_bytes);
    p.cause = reports::Cause{facts.budget_capped_by_level ? "budget_unverified" : "memory_budget",
                             "placement",
                             {{"need_bytes", static_cast<double>(share)},
                              {"budget_bytes", static_cast<double>(facts.safe_budget_bytes)}}};
  } else if (host_share > host_budget) {
    p.verdict = reports::ProfileVerdict::unsafe;
    p.reason = "the host's share needs " + mib_or_gib(host_share) + " > " +
               mib_or_gib(host_budget) + " (0.9 of the host's available memory)";
    p.cause = reports::Cause{"memory_budget",
                             "host",
                             {{"need_bytes", static_cast<double>(host_share)},
                              {"budget_bytes", static_cast<double>(host_budget)}}};
  } else {
    c.runnable = true;
  }
  return c;
}

}  // namespace

std::optional<engine::placement::Placement> placed_profile_placement(
    const engine::model::ModelShape& shape, const std::string& device,
    engine::model::FileType format, const PlacedRequest& request) {
  int ngl = static_cast<int>(shape.n_layer + 1 - shape.n_layer / 2);
  if (request.user.n_gpu_layers >= 0) {
    ngl = request.user.n_gpu_layers;
  } else if (auto it = request.fit_slots.find(format); it != request.fit_slots.end()) {
    ngl = static_cast<int>(it->second);
  }
  std::vector<std::string> gpus{device};
  if (!request.user.tensor_split.empty()) gpus = request.gpus;
  if (std::find(gpus.begin(), gpus.end(), device) == gpus.end()) return std::nullopt;
  auto p = engine::placement::from_gpu_layers(
      shape.n_layer, {ngl, gpus, request.user.tensor_split, engine::placement::kHost});
  // gauntlet's split keeps a shared-KV layer (gemma4) on the device of the layer whose cache it
  // reads: a split of its own choosing moves more slots to the devices until it does (a -ngl the
  // user gave is run as given, and refused by name where it parts them).
  auto parts_shared_kv = [&shape](const engine::placement::Placement& pl) {
    for (uint32_t l = 0; l < shape.n_layer; ++l) {
      if (pl.slot_device[l] != pl.slot_device[shape.kv_layer(l)]) return true;
    }
    return false;
  };
  while (p && request.user.n_gpu_layers < 0 && parts_shared_kv(*p) &&
         ngl < static_cast<int>(shape.n_layer) + 1) {
    p = engine::placement::from_gpu_layers(
        shape.n_layer, {++ngl, gpus, request.user.tensor_split, engine::placement::kHost});
  }
  if (!p || (p->whole() && gpus.size() == 1)) return std::nullopt;
  const auto per_device = p->slots_per_device();
  const size_t self = std::find(gpus.begin(), gpus.end(), device) - gpus.begin();
  if (per_device[self] == 0) return std::nullopt;
  return std::move(*p);
}

core::Result<std::vector<engine::placement::Placement>> expert_profile_placements(
    const engine::model::ModelShape& shape, const std::string& device,
    engine::model::FileType format, const PlacedRequest& request) {
  std::vector<engine::placement::Placement> out;
  if (!shape.moe()) return out;
  auto whole_on_device = [&]() {
    return *engine::placement::from_gpu_layers(
        shape.n_layer,
        {static_cast<int>(shape.n_layer + 1), {device}, {}, engine::placement::kHost});
  };
  auto first_on_host = [&](uint32_t layers) -> core::Status {
    auto p = whole_on_device();
    if (auto s = engine::placement::experts_on_host(p, shape, std::min(layers, shape.n_layer));
        !s) {
      return s;
    }
    out.push_back(std::move(p));
    return {};
  };
  if (request.user.places_experts()) {
    auto p = whole_on_device();
    if (request.user.n_cpu_moe > 0) {
      if (auto s = engine::placement::experts_on_host(
              p, shape, std::min(request.user.n_cpu_moe, shape.n_layer));
          !s) {
        return s.error();
      }
    }
    for (const auto& rule : request.user.override_tensors) {
      if (auto s = engine::placement::override_tensors(p, shape, rule); !s) return s.error();
    }
    out.push_back(std::move(p));
    return out;
  }
  uint32_t first = std::max(1u, shape.n_layer / 2);
  if (auto it = request.fit_expert_layers.find(format); it != request.fit_expert_layers.end())
    first = it->second;
  if (auto s = first_on_host(shape.n_layer); !s) return s.error();
  if (first < shape.n_layer) {
    if (auto s = first_on_host(first); !s) return s.error();
  }
  return out;
}

std::vector<PassShape> placed_passes() { return {{1, 1}, {32, 1}, {512, 1}, {1, 4}}; }

std::vector<std::string> required_features(const DecodeSetup& setup,
                                           std::span<const engine::model::TensorDesc> weights) {
  std::vector<std::string> keys{"f32"};
  for (TensorType type : engine::model::types_in(weights)) {
    if (type != TensorType::f32) keys.push_back(engine::model::to_string(type));
  }
  if (setup.config.compute == ActivationType::f16) keys.push_back("f16.arithmetic");
  if (setup.config.kv == KvPrecision::f16) keys.push_back("f16.storage");
  for (TensorType type : {setup.config.kv.k, setup.config.kv.v}) {
    const std::string key = engine::model::to_string(type);
    if (engine::model::is_quantized(type) &&
        std::find(keys.begin(), keys.end(), key) == keys.end()) {
      keys.push_back(key);
    }
  }
  return keys;
}

std::vector<uint32_t> planned_contexts(const engine::model::ModelShape& shape) {
  std::vector<uint32_t> contexts;
  for (uint32_t c = 512; c <= shape.context; c *= 2) contexts.push_back(c);
  if (contexts.empty()) contexts.push_back(shape.context);
  return contexts;
}

std::vector<PassShape> planned_passes(core::Level level, const engine::model::ModelShape& shape) {
  std::vector<PassShape> passes{{1, 1}, {512, 1}, {1, 4}};
  auto add = [&](uint32_t mb) {
    for (const auto& p : passes) {
      if (p.micro_batch == mb && p.sequences == 1) return;
    }
    passes.push_back({mb, 1});
  };
  if (shape.recurrent_layers() > 0) {
    for (uint32_t mb : {32u, 64u, 65u}) add(mb);
  }
  if (level != core::Level::quick) {
    for (uint32_t mb : {31u, 32u, 33u}) add(mb);
  }
  if (level == core::Level::full) passes.push_back({1, 8});
  return passes;
}

std::vector<KvPrecision> planned_kv_caches(KvPrecision quantized) {
  if (!quantized.quantized()) quantized = {TensorType::q8_0, TensorType::q8_0};
  return {KvPrecision::f32, KvPrecision::f16, quantized};
}

std::vector<Candidate> plan_profiles(const engine::model::ModelShape& shape,
                                     const WeightMixes& mixes, const DeviceFacts& facts,
                                     const std::string& device_key, core::Level level,
                                     const PlacedRequest& placed, KvPrecision quantized_kv) {
  std::vector<Candidate> out;
  const auto passes = planned_passes(level, shape);
  // The host runs the C++ reference: no local memory tiles, no f16 kernels to choose between.
  const bool host = facts.info.id.api == core::Api::host;
  std::vector<ActivationType> computes{ActivationType::f32};
  if (!host) computes.push_back(ActivationType::f16);
  std::vector<bool> families{false};
  if (!host) families.push_back(true);
  for (const auto& [weights, tensors] : mixes) {
    for (ActivationType compute : computes) {
      for (KvPrecision kv : planned_kv_caches(quantized_kv)) {
        // A head too narrow for the cache type's blocks cannot hold it (nor in llama.cpp).
        if (kv.quantized() && !engine::reference::check_kv_cache(shape, kv).is_ok()) continue;
        for (bool tiled : families) {
          for (uint32_t context : planned_contexts(shape)) {
            for (const PassShape& pass : passes) {
              Candidate c;
              c.setup = make_setup(weights, compute, kv, tiled, context, pass);
              auto& p = c.profile;
              p.device = device_key;
              p.api = core::to_string(facts.info.id.api);
              p.weight_format = engine::model::to_string(weights);
              p.compute_precision = compute == ActivationType::f16 ? "f16" : "f32";
              p.kv_precision = engine::planner::to_string(kv);
              p.context = context;
              p.batch = pass.sequences;
              p.micro_batch = pass.micro_batch;
              const auto& config = c.setup.config;
              const uint64_t local = engine::planner::pass_local_mem_bytes(
                  engine::device::effective_matvec(config),
                  engine::device::effective_matmul(config),
                  engine::device::effective_attention(config), shape, context,
                  engine::planner::pass_tokens(pass.micro_batch, pass.sequences));
              p.variant.name = tiled ? "wg" + std::to_string(kWorkgroup) + "-t" +
                                           std::to_string(kMatvecTile) + "-s" +
                                           std::to_string(kScoreTile)
                                     : "wg" + std::to_string(kWorkgroup) + "-whole";
              p.variant.workgroup = kWorkgroup;
              if (tiled) p.variant.tile = {{"activations", kMatvecTile}, {"scores", kScoreTile}};
              if (c.setup.config.flash_attention) p.variant.name += "-fa";
              if (engine::planner::pass_tokens(pass.micro_batch, pass.sequences) > 1) {
                p.variant.name += "-mm" + std::to_string(kMatmulTokens) +
                                  (tiled ? "x" + std::to_string(kMatmulTile) : "");
                p.variant.tile["matmul_tokens"] = kMatmulTokens;
                if (tiled) p.variant.tile["matmul_activations"] = kMatmulTile;
              }
              p.variant.local_mem_bytes = local;
              const auto plan = engine::planner::plan_memory(shape, plan_options(c.setup, tensors));
              p.figures.planned_peak_bytes = plan.steady_state;
              p.name = reports::profile_name(p);
              p.familiar_name = reports::familiar_name(p.weight_format, p.compute_precision);
              p.verdict = reports::ProfileVerdict::untested;

              if (auto missing = missing_feature(c.setup, tensors, facts)) {
                p.verdict = reports::ProfileVerdict::unsafe;
                std::tie(p.reason, p.cause) = *missing;
              } else if (!host && local > facts.local_mem_verified_bytes) {
                p.verdict = reports::ProfileVerdict::unsafe;
                std::tie(p.reason, p.cause) = local_memory_reason(facts, shape, config, local);
              } else if (plan.steady_state > facts.safe_budget_bytes) {
                p.reason = "needs " + mib_or_gib(plan.steady_state) + " > budget " +
                           mib_or_gib(facts.safe_budget_bytes);
                p.cause = reports::Cause{
                    "memory_budget",
                    "",
                    {{"need_bytes", static_cast<double>(plan.steady_state)},
                     {"budget_bytes", static_cast<double>(facts.safe_budget_bytes)}}};
                if (facts.budget_capped_by_level) {
                  p.reason += " verified at this level (a higher level may verify more)";
                  p.cause->key = "budget_unverified";
                } else {
                  p.verdict = reports::ProfileVerdict::unsafe;
                }
              } else {
                c.runnable = true;
              }
              out.push_back(std::move(c));
            }
          }
        }
      }
    }
  }
  point_to_fitting_variants(out, facts.local_mem_verified_bytes);
  // Placed profiles: the layers across the host and this device, at the smallest context that
  // holds a 512-token pass and its generated tokens.
  if (!host && shape.n_layer >= 2) {
    const auto contexts = planned_contexts(shape);
    const auto context =
        std::find_if(contexts.begin(), contexts.end(), [](uint32_t c) { return c >= 512 + 128; });
    const uint64_t host_budget = host_room();
    for (const auto& [weights, tensors] : mixes) {
      if (context == contexts.end()) break;
      const auto placement =
          placed_profile_placement(shape, facts.info.id.to_string(), weights, placed);
      std::vector<engine::placement::Placement> placements;
      if (placement) placements.push_back(*placement);
      // A mixture's expert placements: every layer here, some or all experts on the host.
      if (auto experts =
              expert_profile_placements(shape, facts.info.id.to_string(), weights, placed)) {
        for (auto& p : *experts) placements.push_back(std::move(p));
      }
      for (const auto& p : placements) {
        for (const PassShape& pass : placed_passes()) {
          out.push_back(placed_candidate(shape, weights, tensors, facts, device_key, *context, pass,
                                         host_budget, p));
        }
      }
    }
  }
  return out;
}

}  // namespace gauntlet::harness
