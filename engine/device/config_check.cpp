// check_config, default_config and the figures they share (profile_check.h).
#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "core/type_kernels.h"
#include "engine/device/profile_check.h"

namespace gauntlet::engine::device {

namespace {

using planner::KernelDims;
using planner::KernelVariant;

core::Status local_fits(const KernelVariant& v, const KernelDims& d, uint64_t limit,
                        const std::string& dims_text) {
  const uint64_t need = planner::local_mem_bytes(v, d);
  if (need > limit) {
    return core::make_error(core::ErrorKind::unsupported, "local memory " + std::to_string(need) +
                                                              " > " + std::to_string(limit) + " (" +
                                                              v.name() + ", " + dims_text + ")");
  }
  return core::Status::ok();
}

std::set<uint32_t> matvec_inputs(const model::ModelShape& s) {
  std::set<uint32_t> in{s.n_embd, s.n_ff, s.n_embd_q()};
  for (uint32_t l = 0; l < s.n_layer; ++l) in.insert(s.n_embd_q(l));  // attn_output per layer
  if (s.traits().gated_delta_net || s.traits().mamba2) in.insert(s.ssm_inner);  // ssm_out
  return in;
}

// An activation chunk holds whole blocks of every tensor type in the file's mix.
uint32_t largest_block(const model::ModelShape& s, model::FileType weights) {
  uint32_t block = 32;
  for (auto type : model::types_in(model::model_tensors(s, weights))) {
    block = std::max(block, model::block_elements(type));
  }
  return block;
}

// Local memory the decoders of the file's weight types keep their tables in (Vulkan only).
uint64_t decoder_table_bytes(const core::DeviceInfo& device, const model::ModelShape& s,
                             model::FileType weights) {
  if (device.id.api != core::Api::vulkan) return 0;
  uint64_t bytes = 0;
  for (auto type : model::types_in(model::model_tensors(s, weights))) {
    bytes = std::max<uint64_t>(bytes, core::vulkan_decoder_table_bytes(type));
  }
  return bytes;
}

// Each distinct {head_dim, group} of the attention layers (gemma4's sliding and global layers
// differ), whose kernels are built and whose local memory is checked separately: the widest head
// first (gemma4's 512-wide global heads), so a refusal names the tile that needs the most.
using AttentionShapes = std::set<std::pair<uint32_t, uint32_t>, std::greater<>>;
AttentionShapes attention_shapes(const model::ModelShape& s) {
  AttentionShapes shapes;
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    if (s.recurrent(l) || s.heads_kv(l) == 0) continue;
    shapes.insert({s.head_dim(l), s.heads(l) / s.heads_kv(l)});
  }
  if (shapes.empty() && s.n_head_kv != 0) shapes.insert({s.head_dim(), s.n_head / s.n_head_kv});
  return shapes;
}

// Flash attention's output elements per work-item (engine_flash_attention's ACC, at most 32).
uint32_t flash_outputs(const KernelVariant& v, uint32_t head_dim, uint32_t group) {
  return (group * head_dim + v.workgroup - 1) / v.workgroup;
}

bool attention_fits(const KernelVariant& v, const model::ModelShape& s, uint32_t context,
                    uint64_t limit) {
  for (const auto& [hd, group] : attention_shapes(s)) {
    if (planner::local_mem_bytes(v, {0, hd, context, group}) > limit) return false;
    if (v.op == planner::KernelOp::flash_attention && flash_outputs(v, hd, group) > 32) {
      return false;
    }
  }
  return true;
}

core::Status check_variant_shape(const KernelVariant& v, const std::string& what) {
  if (v.workgroup == 0 || (v.workgroup & (v.workgroup - 1)) != 0 || v.workgroup > 1024) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        what + " workgroup " + std::to_string(v.workgroup) + " is not a power of two up to 1024");
  }
  return core::Status::ok();
}

}  // namespace

core::Status check_config(const core::DeviceInfo& device, uint64_t local_mem_limit,
                          const model::ModelShape& shape, const DecodeConfig& config) {
  const std::string dev = device.id.to_string();
  if (device.id.api != core::Api::opencl && device.id.api != core::Api::vulkan) {
    return core::make_error(core::ErrorKind::unsupported,
                            "the device decoder runs on OpenCL and Vulkan devices, not " + dev);
  }
  if (config.micro_batch == 0 || config.sequences == 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "micro-batch and sequences must be at least 1");
  }
  const uint32_t context = config.context == 0 ? shape.context : config.context;
  if (context == 0 || context > shape.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "context " + std::to_string(context) + " is outside 1.." +
                                std::to_string(shape.context) + " (the model's)");
  }
  GAUNTLET_TRY(model::validate_shape(shape));
  if (config.compute == planner::ActivationType::f16 && !device.features.fp16_arithmetic) {
    return core::make_error(core::ErrorKind::unsupported, "f16 arithmetic not supported by " + dev);
  }
  const KernelVariant mv = effective_matvec(config), at = effective_attention(config);
  const KernelVariant mm = effective_matmul(config);
  const bool passes = planner::pass_tokens(config.micro_batch, config.sequences) > 1;
  GAUNTLET_TRY(check_variant_shape(mv, mv.name()));
  GAUNTLET_TRY(check_variant_shape(at, at.name()));
  if (passes) GAUNTLET_TRY(check_variant_shape(mm, mm.name()));
  for (const auto* v : {&mv, &at, &mm}) {
    if (v == &mm && !passes) continue;
    if (device.max_work_group_size != 0 && v->workgroup > device.max_work_group_size) {
      return core::make_error(core::ErrorKind::unsupported,
                              "workgroup " + std::to_string(v->workgroup) + " > " +
                                  std::to_string(device.max_work_group_size) + " (" + v->name() +
                                  ", max_work_group_size of " + dev + ")");
    }
  }
  const uint32_t block = largest_block(shape, config.weights);
  if (mv.activation_tile != planner::kWholeVector && mv.activation_tile % block != 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            mv.name() + ": an activation chunk must hold whole " +
                                std::to_string(block) + "-element blocks of " +
                                model::to_string(config.weights));
  }
  for (const auto& [hd, group] : attention_shapes(shape)) {
    if (config.flash_attention && flash_outputs(at, hd, group) > 32) {
      return core::make_error(core::ErrorKind::unsupported,
                              at.name() + ": " + std::to_string(group) + " query heads of " +
                                  std::to_string(hd) + " need " +
                                  std::to_string(flash_outputs(at, hd, group)) +
                                  " output elements per work-item; the kernel holds 32 (a "
                                  "larger workgroup fits)");
    }
    if (hd % 2 != 0 || shape.n_embd % 2 != 0 || shape.n_ff % 2 != 0 ||
        (!config.flash_attention && (hd + at.workgroup - 1) / at.workgroup > 8)) {
      return core::make_error(core::ErrorKind::unsupported,
                              "shape n_embd " + std::to_string(shape.n_embd) + ", n_ff " +
                                  std::to_string(shape.n_ff) + ", head_dim " + std::to_string(hd) +
                                  ": the kernels need even widths and head_dim <= 8 * the "
                                  "attention workgroup");
    }
  }
  const uint64_t tables = decoder_table_bytes(device, shape, config.weights);
  for (uint32_t n_in : matvec_inputs(shape)) {
    GAUNTLET_TRY(
        local_fits(mv, {n_in, 0, 0, 1, tables}, local_mem_limit, "n_in " + std::to_string(n_in)));
  }
  if (passes) {
    const uint32_t step = std::max(16u, block);
    if (mm.tokens == 0 || mm.tokens > 32 ||
        (mm.activation_tile != planner::kWholeVector && mm.activation_tile % step != 0)) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              mm.name() + ": a matmul holds 1..32 tokens and a tile of whole " +
                                  std::to_string(step) + "-element blocks of " +
                                  model::to_string(config.weights));
    }
    for (uint32_t n_in : matvec_inputs(shape)) {
      if (n_in % step != 0) {
        return core::make_error(core::ErrorKind::unsupported,
                                "a matmul input of " + std::to_string(n_in) +
                                    " elements is not a multiple of " + std::to_string(step));
      }
      GAUNTLET_TRY(
          local_fits(mm, {n_in, 0, 0, 1, tables}, local_mem_limit, "n_in " + std::to_string(n_in)));
    }
  }
  KernelVariant norm = mv;
  norm.op = planner::KernelOp::rmsnorm;
  GAUNTLET_TRY(
      local_fits(norm, {shape.n_embd, 0, 0}, local_mem_limit, "n " + std::to_string(shape.n_embd)));
  // Every attention shape's (gemma4: the sliding layers' and the global layers' head_dim 512).
  for (const auto& [hd, group] : attention_shapes(shape)) {
    GAUNTLET_TRY(
        local_fits(at, {0, hd, context, group}, local_mem_limit,
                   "head_dim " + std::to_string(hd) + ", context " + std::to_string(context) +
                       (config.flash_attention ? ", group " + std::to_string(group) : "")));
  }
  if (const uint64_t dn = planner::delta_net_local_mem_bytes(shape); dn > local_mem_limit) {
    return core::make_error(
        core::ErrorKind::unsupported,
        "delta_net.wg" + std::to_string(planner::delta_net_workgroup(shape.ssm_state)) + " needs " +
            std::to_string(dn) + " bytes of local memory for ssm_state " +
            std::to_string(shape.ssm_state) + "; the limit is " + std::to_string(local_mem_limit));
  }
  return core::Status::ok();
}

planner::KernelVariant default_matmul(uint64_t local_mem_limit, const model::ModelShape& shape,
                                      model::FileType weights) {
  // The largest token tile first (each weight read serves more tokens), then the largest
  // activation tile that fits with it.
  const uint32_t step = std::max(16u, largest_block(shape, weights));
  planner::KernelVariant v{
      planner::KernelOp::matmul, 64, step, planner::ActivationType::f32, 0, false, 1};
  for (uint32_t tokens : {16u, 8u, 4u, 2u, 1u}) {
    for (uint32_t tile : {512u, 256u, 128u, 64u, 32u, 16u}) {
      if (tile % step != 0) continue;
      planner::KernelVariant c = v;
      c.tokens = tokens;
      c.activation_tile = tile;
      if (planner::local_mem_bytes(c, {planner::widest_matvec_input(shape), 0, 0}) <=
          local_mem_limit) {
        return c;
      }
    }
  }
  return v;
}

DecodeConfig default_config(const core::DeviceInfo& device, uint64_t local_mem_limit,
                            const model::ModelShape& shape, model::FileType weights) {
  DecodeConfig c;
  c.weights = weights;
  c.context = shape.context;
  const uint64_t tables = decoder_table_bytes(device, shape, weights);
  // Fewer passes are faster: the whole vector first, then ever smaller chunks.
  for (uint32_t tile :
       {planner::kWholeVector, 8192u, 4096u, 2048u, 1024u, 512u, 256u, 128u, 64u, 32u}) {
    if (tile != planner::kWholeVector && tile % largest_block(shape, weights) != 0) continue;
    c.matvec.activation_tile = tile;
    bool fits = true;
    for (uint32_t n_in : matvec_inputs(shape)) {
      fits = fits && planner::local_mem_bytes(effective_matvec(c), {n_in, 0, 0, 1, tables}) <=
                         local_mem_limit;
    }
    if (fits) break;
  }
  c.matmul = default_matmul(local_mem_limit - std::min(tables, local_mem_limit), shape, weights);
  // At most 4 head dimensions per attention work-item: a head of 512 takes 128 work-items. With 8
  // per work-item (64 of them) llvmpipe gave wrong logits over 6144 and more cached positions,
  // where 128 gave the reference's (tests/engine_device/gemma4_test.cpp).
  const uint32_t max_wg = device.max_work_group_size == 0 ? 1024 : device.max_work_group_size;
  uint32_t widest = 0;
  for (const auto& [hd, group] : attention_shapes(shape)) widest = std::max(widest, hd);
  while ((widest + c.attention.workgroup - 1) / c.attention.workgroup > 4 &&
         c.attention.workgroup * 2 <= max_wg) {
    c.attention.workgroup *= 2;
  }
  for (uint32_t tile : {0u, 4096u, 2048u, 1024u, 512u, 256u, 128u, 64u, 32u}) {
    c.attention.score_tile = tile;
    if (attention_fits(effective_attention(c), shape, c.context, local_mem_limit)) break;
  }
  // Flash attention's K/V tile: the largest that fits (fewer tiles, fewer barriers), in the
  // smallest workgroup whose work-items hold the group's output (a group of 8 heads of 512 needs
  // 128 work-items).
  c.flash_attention = true;
  bool found = false;
  for (uint32_t wg = 64; wg <= std::max(64u, max_wg) && !found; wg *= 2) {
    c.flash.workgroup = wg;
    for (uint32_t tile : {64u, 32u, 16u, 8u, 4u, 2u, 1u}) {
      c.flash.score_tile = tile;
      found = attention_fits(effective_attention(c), shape, c.context, local_mem_limit);
      if (found) break;
    }
  }
  if (!found) {
    c.flash.workgroup = 64;
    c.flash.score_tile = 4;
  }
  c.flash_attention = false;
  return c;
}

double logits_nmse_bound(const DecodeConfig& config, uint32_t positions) {
  double bound = 1e-6;
  if (config.q8_activations) {
    bound = kQ8ActivationsNmseBound;
  } else if (config.compute == planner::ActivationType::f16) {
    bound = 1e-3;
  } else if (config.kv != planner::KvPrecision::f32) {
    bound = 1e-4;
  }
  return bound * std::max(1.0, positions / 4096.0);
}

double nmse(std::span<const float> a, std::span<const float> b) {
  double num = 0, den = 0;
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  if (a.size() != b.size()) return INFINITY;
  if (den == 0) return num == 0 ? 0 : INFINITY;
  return num / den;
}

uint64_t bytes_read_per_token(const model::ModelShape& s,
                              std::span<const model::TensorDesc> weights, planner::KvPrecision kv,
                              uint32_t positions) {
  uint64_t total = 0;
  for (const auto& t : weights) {
    if (t.name == "token_embd.weight" && !s.tied_output) {
      total += t.bytes() / s.n_vocab;  // one row
    } else if (planner::is_expert_stack(t.name)) {
      total += t.bytes() / s.n_expert * s.n_expert_used;  // the picked experts
    } else {
      total += t.bytes();
    }
  }
  // A hybrid's recurrent state: each token reads its sequence's whole state (and writes it back).
  return total + planner::kv_cache_bytes(s, positions, 1, kv) + planner::state_bytes(s, 1);
}

}  // namespace gauntlet::engine::device
