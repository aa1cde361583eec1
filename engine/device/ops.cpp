#include "engine/device/ops.h"

#include <algorithm>

#include "engine/device/config.h"

namespace gauntlet::engine::device {

namespace {

template <typename T>
std::span<const std::byte> bytes_of(const T& value) {
  return std::as_bytes(std::span<const T>(&value, 1));
}

uint32_t groups_for(uint64_t items, uint32_t workgroup) {
  return static_cast<uint32_t>((items + workgroup - 1) / workgroup);
}

}  // namespace

core::Status Ops::run(core::Result<backends::KernelSource> source,
                      std::vector<backends::Buffer*> buffers, std::span<const std::byte> params,
                      uint32_t groups, uint64_t local_bytes, uint32_t groups_y) {
  if (!source) return source.error();
  auto kernel = cache_.get(*source);
  if (!kernel) return kernel.error();
  backends::DispatchArgs args;
  args.buffers = std::move(buffers);
  args.params = params;
  args.groups = {groups, groups_y, 1};
  // OpenCL takes the local memory as a __local argument; Vulkan sizes it by the constants.
  if (source->dynamic_local) args.dynamic_local_bytes = local_bytes;
  if (times_ == nullptr) return device().dispatch(**kernel, args);
  double seconds = 0;
  args.device_seconds = &seconds;
  GAUNTLET_TRY(device().dispatch(**kernel, args));
  auto it = std::find_if(times_->begin(), times_->end(),
                         [&](const KernelTime& t) { return t.kernel == source->name; });
  if (it == times_->end()) it = times_->insert(times_->end(), {source->name, 0, 0});
  ++it->dispatches;
  it->seconds += seconds;
  return core::Status::ok();
}

namespace {

// Shaders read weights as 32-bit words, so the buffer must hold the rows rounded up to a word
// (rows of 2-byte-aligned blocks can end mid-word).
core::Status check_weights(const backends::Buffer& w, model::TensorType type, uint32_t n_in,
                           uint32_t n_rows) {
  const uint64_t need = (model::row_bytes(type, n_in) * n_rows + 3) / 4 * 4;
  if (w.size() < need) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            std::string("a ") + model::to_string(type) + " weight buffer of " +
                                std::to_string(w.size()) + " bytes; " + std::to_string(n_rows) +
                                " rows of " + std::to_string(n_in) + " need " +
                                std::to_string(need) + " (whole 32-bit words)");
  }
  return core::Status::ok();
}

}  // namespace

core::Status Ops::matvec(backends::Buffer& w, model::TensorType type,
                         const planner::KernelVariant& v, uint32_t n_in, uint32_t n_out,
                         backends::Buffer& act, uint32_t x_off, uint32_t out_off, uint32_t rows,
                         bool accumulate) {
  GAUNTLET_TRY(check_weights(w, type, n_in, n_out));
  const MatvecParams p{n_in, n_out, x_off, out_off, 0};
  const uint64_t local = planner::local_mem_bytes(v, {n_in, 0, 0});
  const bool texels = reads_as_texels(device().info(), std::max(w.size(), act.size()));
  return run(matvec_source(device().info().id.api, type, v, n_in, rows, accumulate, texels,
                           vector_reads(w, act, {x_off})),
             {&w, &act}, bytes_of(p), groups_for(n_out, uint64_t{rows} * v.workgroup), local);
}

core::Status Ops::matvec_experts(backends::Buffer& stack, model::TensorType type,
                                 const planner::KernelVariant& v, uint32_t n_in, uint32_t n_out,
                                 uint32_t n_expert, backends::Buffer& act, const MatvecParams& p,
                                 uint32_t tokens, uint32_t rows) {
  GAUNTLET_TRY(check_weights(stack, type, n_in, n_out * n_expert));
  MatvecParams q = p;
  q.n_in = n_in;
  q.n_out = n_out;
  const uint64_t local = planner::local_mem_bytes(v, {n_in, 0, 0});
  const bool texels = reads_as_texels(device().info(), std::max(stack.size(), act.size()));
  return run(matvec_source(device().info().id.api, type, v, n_in, rows, false, texels,
                           vector_reads(stack, act, {q.x_off, q.x_slot, q.stride})),
             {&stack, &act}, bytes_of(q), groups_for(n_out, uint64_t{rows} * v.workgroup), local,
             tokens * p.slots);
}

core::Status Ops::route(backends::Buffer& act, backends::Buffer& bias, const RouteParams& p) {
  return run(expert_route_source(device().info().id.api), {&act, &bias}, bytes_of(p),
             groups_for(p.n_tok, kSimpleWorkgroup), 0);
}

core::Status Ops::group_experts(backends::Buffer& act, const GroupParams& p) {
  return run(expert_group_source(device().info().id.api), {&act}, bytes_of(p), 1, 0);
}

core::Status Ops::matmul_experts(backends::Buffer& stack, model::TensorType type,
                                 const planner::KernelVariant& v, uint32_t n_in, uint32_t n_out,
                                 uint32_t n_expert, backends::Buffer& act, const MatmulParams& p,
                                 uint32_t rows) {
  GAUNTLET_TRY(check_weights(stack, type, n_in, n_out * n_expert));
  MatmulParams q = p;
  q.n_in = n_in;
  q.n_out = n_out;
  // At most one partial tile per expert picked, beside the full ones.
  const uint32_t picks = p.n_tok * p.k;
  const uint32_t tiles = std::min(n_expert, picks) + picks / v.tokens;
  const uint64_t local = planner::local_mem_bytes(v, {n_in, 0, 0});
  const bool texels = reads_as_texels(device().info(), std::max(stack.size(), act.size()));
  return run(matmul_source(device().info().id.api, type, v, n_in, rows, false, true, texels),
             {&stack, &act}, bytes_of(q), groups_for(n_out, uint64_t{rows} * v.workgroup), local,
             tiles);
}

core::Status Ops::combine(backends::Buffer& act, backends::Buffer& scale, const CombineParams& p,
                          uint32_t tokens) {
  return run(expert_combine_source(device().info().id.api), {&act, &scale}, bytes_of(p),
             groups_for(p.n, kSimpleWorkgroup), 0, tokens);
}

core::Status Ops::matmul(backends::Buffer& w, model::TensorType type,
                         const planner::KernelVariant& v, uint32_t n_in, uint32_t n_out,
                         backends::Buffer& act, uint32_t x_off, uint32_t out_off, uint32_t stride,
                         uint32_t n_tok, uint32_t rows, bool accumulate) {
  GAUNTLET_TRY(check_weights(w, type, n_in, n_out));
  const MatmulParams p{n_in, n_out, x_off, out_off, stride, n_tok};
  const uint64_t local = planner::local_mem_bytes(v, {n_in, 0, 0});
  const bool texels = reads_as_texels(device().info(), std::max(w.size(), act.size()));
  return run(matmul_source(device().info().id.api, type, v, n_in, rows, accumulate, false, texels),
             {&w, &act}, bytes_of(p), groups_for(n_out, uint64_t{rows} * v.workgroup), local,
             groups_for(n_tok, v.tokens));
}

core::Status Ops::embed(backends::Buffer& w, model::TensorType type, uint32_t n, uint32_t row,
                        backends::Buffer& act, uint32_t out_off) {
  GAUNTLET_TRY(check_weights(w, type, n, row + 1));
  const MatvecParams p{n, 1, 0, out_off, row};
  return run(embed_source(device().info().id.api, type), {&w, &act}, bytes_of(p),
             groups_for(n, kSimpleWorkgroup), 0);
}

core::Status Ops::rmsnorm(backends::Buffer& act, backends::Buffer& weight, uint32_t workgroup,
                          const RmsnormParams& p, uint32_t rows, uint32_t tokens) {
  planner::KernelVariant v;
  v.op = planner::KernelOp::rmsnorm;
  v.workgroup = workgroup;
  return run(rmsnorm_source(device().info().id.api, workgroup), {&act, &weight}, bytes_of(p), rows,
             planner::local_mem_bytes(v, {p.n, 0, 0}), tokens);
}

core::Status Ops::rope_kv(backends::Buffer& act, backends::Buffer& k_cache,
                          backends::Buffer& v_cache, backends::Buffer& tables,
                          backends::Buffer& pass, planner::KvPrecision kv, const RopeParams& p,
                          uint32_t tokens) {
  return run(rope_kv_source(device().info().id.api, kv), {&act, &k_cache, &v_cache, &tables, &pass},
             bytes_of(p), groups_for(uint64_t{p.n_q_pairs} + p.n_kv_pairs, kSimpleWorkgroup), 0,
             tokens);
}

core::Status Ops::attention(backends::Buffer& act, backends::Buffer& k_cache,
                            backends::Buffer& v_cache, backends::Buffer& pass,
                            backends::Buffer& sinks, const planner::KernelVariant& v,
                            uint32_t n_head, uint32_t head_dim, uint32_t context,
                            planner::KvPrecision kv, const AttentionParams& p, uint32_t tokens) {
  if (v.op == planner::KernelOp::flash_attention) {
    const uint64_t local = planner::local_mem_bytes(v, {0, head_dim, context, p.group});
    return run(flash_attention_source(device().info().id.api, v, head_dim, p.group, context, kv),
               {&act, &k_cache, &v_cache, &pass, &sinks}, bytes_of(p), n_head / p.group, local,
               tokens);
  }
  const uint64_t local = planner::local_mem_bytes(v, {0, head_dim, context});
  const bool texels = reads_as_texels(device().info(), std::max(k_cache.size(), v_cache.size()));
  return run(attention_source(device().info().id.api, v, head_dim, context, kv,
                              attention_vector_v(device().info()), texels),
             {&act, &k_cache, &v_cache, &pass, &sinks}, bytes_of(p), n_head, local, tokens);
}

core::Status Ops::attention_queries(backends::Buffer& act, backends::Buffer& k_cache,
                                    backends::Buffer& v_cache, backends::Buffer& pass,
                                    backends::Buffer& sinks, uint32_t workgroup, uint32_t n_head,
                                    uint32_t head_dim, planner::KvPrecision kv,
                                    const AttentionParams& p, uint32_t tokens) {
  const AttentionQueriesParams params{p, tokens};
  return run(attention_queries_source(device().info().id.api, workgroup, head_dim, kv),
             {&act, &k_cache, &v_cache, &pass, &sinks}, bytes_of(params), n_head, 0,
             (tokens + workgroup - 1) / workgroup);
}

core::Status Ops::kv_store(backends::Buffer& act, backends::Buffer& k_cache,
                           backends::Buffer& v_cache, backends::Buffer& pass,
                           planner::KvPrecision kv, const KvStoreParams& p, uint32_t tokens) {
  return run(kv_store_source(device().info().id.api, kv), {&act, &k_cache, &v_cache, &pass},
             bytes_of(p), groups_for(2ull * p.n_blocks + p.n_q_blocks, kSimpleWorkgroup), 0,
             tokens);
}

core::Status Ops::hadamard(backends::Buffer& act, uint32_t n, uint32_t chunk,
                           const HadamardParams& p, uint32_t tokens) {
  return run(hadamard_source(device().info().id.api, chunk), {&act}, bytes_of(p), n / chunk,
             uint64_t{chunk} * sizeof(float), tokens);
}

core::Status Ops::elementwise(backends::Buffer& act, Elementwise op, const ElementwiseParams& p,
                              uint32_t tokens) {
  return run(elementwise_source(device().info().id.api, op), {&act}, bytes_of(p),
             groups_for(p.n, kSimpleWorkgroup), 0, tokens);
}

core::Status Ops::add_bias(backends::Buffer& act, backends::Buffer& bias, const BiasParams& p,
                           uint32_t tokens) {
  return run(add_bias_source(device().info().id.api), {&act, &bias}, bytes_of(p),
             groups_for(p.n, kSimpleWorkgroup), 0, tokens * std::max(p.slots, 1u));
}

core::Status Ops::ssm_conv(backends::Buffer& act, backends::Buffer& state,
                           backends::Buffer& kernel_w, backends::Buffer& bias,
                           backends::Buffer& pass, const SsmConvParams& p, uint32_t sequences) {
  return run(ssm_conv_source(device().info().id.api), {&act, &state, &kernel_w, &bias, &pass},
             bytes_of(p), groups_for(p.channels, kSimpleWorkgroup), 0, sequences);
}

core::Status Ops::ssm_scan(backends::Buffer& act, backends::Buffer& state,
                           backends::Buffer& dt_bias, backends::Buffer& ssm_a,
                           backends::Buffer& ssm_d, backends::Buffer& pass, const SsmScanParams& p,
                           uint32_t sequences) {
  return run(ssm_scan_source(device().info().id.api),
             {&act, &state, &dt_bias, &ssm_a, &ssm_d, &pass}, bytes_of(p),
             groups_for(p.inner, kSimpleWorkgroup), 0, sequences);
}

core::Status Ops::delta_net(backends::Buffer& act, backends::Buffer& state,
                            backends::Buffer& dt_bias, backends::Buffer& ssm_a,
                            backends::Buffer& pass, const DeltaNetParams& p, uint32_t sequences) {
  DeltaNetParams chunk = p;
  for (uint32_t first = p.first; first < p.n_tok; first += kDeltaNetTokens) {
    chunk.first = first;
    chunk.n_tok = std::min(p.n_tok, first + kDeltaNetTokens);
    GAUNTLET_TRY(
        run(delta_net_source(device().info().id.api, p.n, planner::delta_net_workgroup(p.n)),
            {&act, &state, &dt_bias, &ssm_a, &pass}, bytes_of(chunk), p.heads, 0, sequences));
  }
  return core::Status::ok();
}

core::Status Ops::query_gate(backends::Buffer& act, QueryGate mode, const QueryGateParams& p,
                             uint32_t tokens) {
  return run(query_gate_source(device().info().id.api, mode), {&act}, bytes_of(p),
             groups_for(p.n, kSimpleWorkgroup), 0, tokens);
}

}  // namespace gauntlet::engine::device
