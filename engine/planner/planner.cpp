#include "engine/planner/planner.h"

#include <algorithm>
#include <cstdlib>

namespace gauntlet::engine::planner {

std::string to_string(KvPrecision precision) {
  if (precision.k == precision.v) return model::to_string(precision.k);
  return std::string(model::to_string(precision.k)) + "/" + model::to_string(precision.v);
}

bool is_kv_cache_type(TensorType type) {
  switch (type) {
    case TensorType::f32:
    case TensorType::f16:
    case TensorType::q8_0:
    case TensorType::q4_0:
    case TensorType::q4_1:
    case TensorType::q5_0:
    case TensorType::q5_1:
    case TensorType::iq4_nl:
      return true;
    default:
      return false;
  }
}

uint64_t weight_bytes(std::span<const TensorDesc> tensors) {
  uint64_t total = 0;
  for (const auto& t : tensors) total += t.bytes();
  return total;
}

uint64_t weight_bytes(const ModelShape& shape, FileType format) {
  return weight_bytes(model::model_tensors(shape, format, {}, model::made_with_imatrix(format)));
}

uint64_t largest_tensor_bytes(std::span<const TensorDesc> tensors) {
  uint64_t largest = 0;
  for (const auto& t : tensors) largest = std::max(largest, t.bytes());
  return largest;
}

bool LayerRange::holds_experts(uint32_t layer) const {
  return holds(layer) && std::find(experts_elsewhere.begin(), experts_elsewhere.end(), layer) ==
                             experts_elsewhere.end();
}

bool is_expert_stack(const std::string& name) {
  // gpt-oss's per-expert bias rows travel with their stacks, as llama.cpp's -ot moves them.
  return name.rfind("blk.", 0) == 0 &&
         (name.ends_with("_exps.weight") || name.ends_with("_exps.bias"));
}

bool holds_tensor(const LayerRange& range, const ModelShape& shape, const std::string& name) {
  if (name.rfind("blk.", 0) == 0) {
    const auto layer = static_cast<uint32_t>(std::strtoul(name.c_str() + 4, nullptr, 10));
    return is_expert_stack(name) ? range.holds_experts(layer) : range.holds(layer);
  }
  // gemma4's per-layer inputs come from the token in every share that holds a layer.
  if (name == "token_embd.weight") {
    const bool layers = range.first < std::min(range.last, shape.n_layer);
    return range.embed || (range.output && shape.tied_output) ||
           (shape.per_layer_embeddings() && layers);
  }
  if (model::is_output_tensor(name)) return range.output;
  return true;  // rope_freqs: every share's rotary angles
}

std::vector<TensorDesc> tensors_in(const LayerRange& range, const ModelShape& shape,
                                   std::span<const TensorDesc> tensors) {
  std::vector<TensorDesc> out;
  for (const auto& t : tensors) {
    if (holds_tensor(range, shape, t.name)) out.push_back(t);
  }
  return out;
}

KvLayout kv_layout(const ModelShape& shape, uint32_t context, uint32_t micro_batch,
                   const LayerRange& range) {
  KvLayout k;
  const uint32_t ring = shape.sliding_window + std::max(micro_batch, 1u) - 1;
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    const uint32_t kept = shape.sliding(l) ? std::min(context, ring) : context;
    const bool stores = range.holds(l) && shape.attends(l) && shape.has_kv(l);
    const uint32_t slots = stores ? kept : 0;
    k.offset.push_back(k.per_sequence);
    k.slots.push_back(slots);
    k.total_slots += slots;
    k.per_sequence += uint64_t{slots} * shape.n_embd_kv(l);
  }
  return k;
}

uint64_t kv_cache_bytes(const ModelShape& shape, uint32_t context, uint32_t sequences,
                        KvPrecision precision, uint32_t micro_batch, const LayerRange& range) {
  const KvLayout k = kv_layout(shape, context, micro_batch, range);
  uint64_t bytes = 0;
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    const uint64_t n_kv = shape.n_embd_kv(l);
    bytes +=
        uint64_t{k.slots[l]} * (kv_row_bytes(precision.k, n_kv) + kv_row_bytes(precision.v, n_kv));
  }
  return bytes * sequences;
}

StateLayout state_layout(const ModelShape& shape, const LayerRange& range) {
  StateLayout st;
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    st.offset.push_back(st.per_sequence);
    if (range.holds(l) && shape.recurrent(l)) {
      st.per_sequence += shape.ssm_conv_floats() + shape.ssm_delta_floats();
    }
  }
  return st;
}

uint64_t state_bytes(const ModelShape& shape, uint32_t sequences, const LayerRange& range) {
  return state_layout(shape, range).per_sequence * sizeof(float) * sequences;
}

uint64_t kv_cache_bytes_without_window(const ModelShape& shape, uint32_t context,
                                       uint32_t sequences, KvPrecision precision) {
  uint64_t bytes = 0;
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    if (!shape.attends(l) || !shape.has_kv(l)) continue;
    const uint64_t n_kv = shape.n_embd_kv(l);
    bytes += kv_row_bytes(precision.k, n_kv) + kv_row_bytes(precision.v, n_kv);
  }
  return bytes * context * sequences;
}

namespace {

// Lays vectors out one after the other, each on 64 bytes.
struct Packer {
  uint64_t at = 0;
  uint64_t take(uint64_t n) {
    const uint64_t start = at;
    at += (n + 15) / 16 * 16;
    return start;
  }
};

// The feed-forward's gate and up halves back to back: a fused projection (phi3's ffn_up of 2 *
// n_ff) writes them in one matvec. A shared expert may be wider than n_ff
// (expert_shared_feed_forward_length).
void take_feed_forward(Packer& p, const ModelShape& shape, ActivationLayout& l) {
  const uint64_t ff =
      shape.shared_expert() ? std::max(shape.max_ff(), shape.shared_expert_ff()) : shape.max_ff();
  l.hb = p.take(2 * ff);
  l.hb2 = l.hb + ff;
}

void take_experts(Packer& p, const ModelShape& shape, ActivationLayout& l) {
  const uint64_t used = shape.n_expert_used, expert_ff = shape.moe() ? shape.expert_ff() : 0;
  l.router = p.take(shape.n_expert);
  l.selected = p.take(shape.moe() ? 2 * used + 1 : 0);
  // Back to back (expert widths are multiples of 32): a fused gate/up stack writes each pick's
  // gate and up side by side over both.
  l.experts_gate = p.take(used * expert_ff);
  l.experts_up = p.take(used * expert_ff);
  l.experts_out = p.take(used * shape.n_embd);
  l.expert_groups = p.take(expert_group_len(shape));
}

}  // namespace

ActivationLayout activation_layout(const ModelShape& shape, uint32_t context) {
  ActivationLayout l{};
  Packer p;
  l.x = p.take(shape.n_embd);
  l.xb = p.take(shape.n_embd);
  // Per-layer shapes (gemma4) take the largest layer's.
  const uint64_t n_q = shape.max_n_embd_q(), n_kv = shape.max_n_embd_kv();
  l.xb2 = p.take(n_q);
  // Q, K and V back to back: a fused projection (phi3's attn_qkv) writes them in one matvec.
  l.q = p.take(n_q + 2 * n_kv);
  l.k = l.q + n_q;
  l.v = l.k + n_kv;
  l.att = p.take(static_cast<uint64_t>(shape.max_heads()) * context);
  take_feed_forward(p, shape, l);
  l.logits = p.take(shape.n_vocab);
  take_experts(p, shape, l);
  const bool gated = shape.traits().attn_output_gate;
  l.q_gate = p.take(gated ? shape.n_embd_q_proj() : 0);
  l.gate = p.take(gated ? shape.n_embd_q() : shape.traits().attn_head_gate ? shape.max_heads() : 0);
  const bool recurrent = shape.traits().gated_delta_net;
  // lfm2's short convolution: in_proj's B, C and x in ssm_qkv, C times the conv's output in ssm_o.
  const bool short_conv = shape.traits().short_conv;
  // Mamba2: ssm_in's z, x, B, C and dt in ssm_qkv, the conv's output in ssm_conv, y in ssm_o.
  const bool mamba2 = shape.traits().mamba2;
  l.ssm_qkv = p.take(recurrent    ? shape.ssm_channels()
                     : short_conv ? 3 * uint64_t{shape.n_embd}
                     : mamba2     ? shape.mamba2_in_proj()
                                  : 0);
  l.ssm_conv = p.take(recurrent || mamba2 ? shape.ssm_channels() : 0);
  l.ssm_z = p.take(recurrent ? shape.ssm_inner : 0);
  l.ssm_ba = p.take(recurrent ? 2 * shape.ssm_heads : 0);
  l.ssm_o = p.take(recurrent || mamba2 ? shape.ssm_inner : short_conv ? shape.n_embd : 0);
  const bool ple = shape.per_layer_embeddings(), beside = shape.dense_beside_experts();
  l.ple_x = p.take(ple ? shape.n_embd : 0);
  // ple_in: the reference writes its layer's input there; the devices every layer's
  // (n_embd_per_layer apart, once a pass), then the token's row of the per-layer table after them.
  l.ple_in = p.take(ple ? 2 * uint64_t{shape.n_embd_per_layer} * shape.n_layer : 0);
  l.ple_gate = p.take(ple ? shape.n_embd_per_layer : 0);
  l.mlp = p.take(beside ? shape.n_embd : 0);
  l.router_in = p.take(beside ? shape.n_embd : 0);
  l.total = p.at;
  return l;
}

ActivationLayout experts_layout(const ModelShape& shape) {
  ActivationLayout l{};
  Packer p;
  l.xb = p.take(shape.n_embd);
  take_feed_forward(p, shape, l);
  take_experts(p, shape, l);
  // gemma4's router reads its own input, handed to the host with the experts'.
  l.router_in = p.take(shape.dense_beside_experts() ? shape.n_embd : 0);
  l.total = p.at;
  return l;
}

uint64_t activation_bytes(const ModelShape& shape, uint32_t context, uint32_t tokens) {
  return activation_layout(shape, context).total * sizeof(float) * tokens;
}

uint64_t staging_bytes(std::span<const TensorDesc> tensors, uint64_t chunk_bytes) {
  return std::min(chunk_bytes, largest_tensor_bytes(tensors));
}

MemoryPlan plan_memory(const ModelShape& shape, const PlanOptions& o) {
  const uint32_t context = o.context == 0 ? shape.context : o.context;
  MemoryPlan p;
  std::vector<TensorDesc> by_rule;
  std::span<const TensorDesc> tensors = o.tensors;
  if (tensors.empty()) {
    by_rule = model::model_tensors(shape, o.format);
    tensors = by_rule;
  }
  p.weights = weight_bytes(tensors);
  p.kv_cache = kv_cache_bytes(shape, context, o.sequences, o.kv, o.micro_batch);
  p.state = state_bytes(shape, o.sequences);
  p.activations = activation_bytes(shape, context, pass_tokens(o.micro_batch, o.sequences));
  p.staging = staging_bytes(tensors, o.chunk_bytes);
  p.steady_state = p.weights + p.kv_cache + p.state + p.activations;
  p.load_peak = p.weights + p.staging;
  p.peak = std::max(p.steady_state, p.load_peak);
  return p;
}

uint32_t activation_element_bytes(ActivationType type) {
  return type == ActivationType::f16 ? 2 : 4;
}

std::string KernelVariant::name() const {
  std::string n = op == KernelOp::matvec            ? "matvec"
                  : op == KernelOp::attention       ? "attention"
                  : op == KernelOp::matmul          ? "matmul"
                  : op == KernelOp::flash_attention ? "flash"
                                                    : "rmsnorm";
  n += ".wg" + std::to_string(workgroup);
  if (op == KernelOp::matmul) n += ".n" + std::to_string(tokens);
  if (op == KernelOp::attention || op == KernelOp::flash_attention) {
    n += score_tile == 0 ? ".sall" : ".s" + std::to_string(score_tile);
  } else {
    n += activation_tile == kWholeVector ? ".whole" : ".t" + std::to_string(activation_tile);
  }
  n += activation_type == ActivationType::f16 ? ".f16" : ".f32";
  return n;
}

namespace {
uint64_t activation_tile_elements(const KernelVariant& v, uint64_t n_in) {
  return v.activation_tile == kWholeVector ? n_in : std::min<uint64_t>(v.activation_tile, n_in);
}
}  // namespace

uint64_t activation_tile_bytes(const KernelVariant& v, uint64_t n_in) {
  return activation_tile_elements(v, n_in) * activation_element_bytes(v.activation_type);
}

uint64_t tile_sums_bytes(const KernelVariant& v, uint64_t n_in) {
  return (activation_tile_elements(v, n_in) + 255) / 256 * 16 * sizeof(float);
}

uint64_t score_tile_bytes(const KernelVariant& v, uint32_t context) {
  const uint64_t n = v.score_tile == 0 ? context : std::min(v.score_tile, context);
  return n * sizeof(float);
}

uint32_t flash_tile(const KernelVariant& v, uint32_t context) {
  return std::max(1u, std::min(v.score_tile == 0 ? kFlashTile : v.score_tile, context));
}

uint64_t reduction_scratch_bytes(const KernelVariant& v) {
  return v.local_reduction ? static_cast<uint64_t>(v.workgroup) * sizeof(float) : 0;
}

uint64_t local_mem_bytes(const KernelVariant& v, const KernelDims& d) {
  switch (v.op) {
    case KernelOp::matvec:
      // The tile is read as 16-byte vectors, so it is rounded up to a multiple of 16 bytes; then
      // the tile's sums of 16 elements (f32, 16 per 256), which a type whose values carry an
      // offset (q4_K, q5_K, q6_K) applies once per block.
      return (activation_tile_bytes(v, d.n_in) + 15) / 16 * 16 + tile_sums_bytes(v, d.n_in) +
             reduction_scratch_bytes(v) + d.table_bytes;
    case KernelOp::attention:
      // The query head's vector, the score tile, and the reduction scratch.
      return activation_tile_bytes(v, d.head_dim) + score_tile_bytes(v, d.context) +
             reduction_scratch_bytes(v);
    case KernelOp::rmsnorm:
      return reduction_scratch_bytes(v);
    case KernelOp::matmul:
      // One tile per token of the token tile, each rounded up to 16 bytes (vector reads).
      return uint64_t{v.tokens} * ((activation_tile_bytes(v, d.n_in) + 15) / 16 * 16) +
             d.table_bytes;
    case KernelOp::flash_attention: {
      const uint64_t tile = flash_tile(v, d.context), g = std::max(d.group, 1u);
      return (g * d.head_dim + 2 * tile * d.head_dim + g * tile + 3 * g) * sizeof(float);
    }
  }
  return 0;
}

uint64_t widest_matvec_input(const ModelShape& shape) {
  const uint64_t experts = shape.moe() ? shape.expert_ff() : 0;
  const uint64_t shared = shape.shared_expert() ? shape.shared_expert_ff() : 0;
  const uint64_t ssm_out =
      shape.traits().gated_delta_net || shape.traits().mamba2 ? shape.ssm_inner : 0;
  return std::max<uint64_t>(
      {shape.n_embd, shape.max_ff(), shape.max_n_embd_q(), experts, shared, ssm_out});
}

uint32_t delta_net_workgroup(uint32_t state) {
  uint32_t wg = 1;
  while (wg < state && wg < 256) wg *= 2;
  return wg;
}

uint64_t delta_net_local_mem_bytes(const ModelShape& shape) {
  if (!shape.traits().gated_delta_net) return 0;
  return (2ull * shape.ssm_state + 2ull * delta_net_workgroup(shape.ssm_state)) * sizeof(float);
}

uint64_t decode_local_mem_bytes(const KernelVariant& matvec, const KernelVariant& attention,
                                const ModelShape& shape, uint32_t context) {
  KernelVariant norm = matvec;
  norm.op = KernelOp::rmsnorm;
  const uint64_t mv = local_mem_bytes(matvec, {widest_matvec_input(shape), 0, 0});
  // The largest over the attention layers' shapes (gemma4's differ by layer).
  uint64_t at =
      local_mem_bytes(attention, {0, shape.head_dim(), context, shape.n_head / shape.n_head_kv});
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    if (shape.recurrent(l) || shape.heads_kv(l) == 0) continue;
    at = std::max(at, local_mem_bytes(attention, {0, shape.head_dim(l), context,
                                                  shape.heads(l) / shape.heads_kv(l)}));
  }
  const uint64_t rn = local_mem_bytes(norm, {shape.n_embd, 0, 0});
  return std::max({mv, at, rn, delta_net_local_mem_bytes(shape)});
}

uint64_t pass_local_mem_bytes(const KernelVariant& matvec, const KernelVariant& matmul,
                              const KernelVariant& attention, const ModelShape& shape,
                              uint32_t context, uint32_t tokens) {
  const uint64_t decode = decode_local_mem_bytes(matvec, attention, shape, context);
  if (tokens <= 1) return decode;
  return std::max(decode, local_mem_bytes(matmul, {widest_matvec_input(shape), 0, 0}));
}

}  // namespace gauntlet::engine::planner
