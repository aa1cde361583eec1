#pragma once
// One function per decode op: builds (through the cache) the kernel for its variant and
// dispatches it. Offsets are in floats into the one activation buffer laid out by
// planner::activation_layout. Every buffer must belong to the cache's device: a buffer of
// another device is refused by Device::dispatch before anything runs.
#include <cstdint>
#include <memory>

#include "backends/device.h"
#include "engine/device/kernels.h"
#include "engine/kernel_times.h"

namespace gauntlet::engine::device {

using engine::KernelTime;
using engine::KernelTimes;

class Ops {
 public:
  explicit Ops(backends::Device& device)
      : own_(std::make_unique<KernelCache>(device)), cache_(*own_) {}
  // Builds through `shared` (which must outlive the Ops): kernels built once serve every decoder
  // of the device that shares it.
  explicit Ops(KernelCache& shared) : cache_(shared) {}
  backends::Device& device() { return cache_.device(); }
  KernelCache& cache() { return cache_; }
  // When set, every dispatch waits for its completion and adds its device time here: a breakdown,
  // at the cost of the overlap between dispatches.
  void time_dispatches(KernelTimes* times) { times_ = times; }

  // act[out_off + r] = W[r] . act[x_off ..], r < n_out (+= with `accumulate`: a residual add in
  // the same pass); `rows` rows per work-item (a workgroup computes workgroup * rows rows).
  core::Status matvec(backends::Buffer& w, model::TensorType type, const planner::KernelVariant& v,
                      uint32_t n_in, uint32_t n_out, backends::Buffer& act, uint32_t x_off,
                      uint32_t out_off, uint32_t rows = 1, bool accumulate = false);
  // For each token t < n_tok of a pass: act[t * stride + out_off + r] = W[r] . act[t * stride +
  // x_off ..] (+= with `accumulate`), through a matmul variant (its token tile and activation
  // tile); `rows` rows per work-item.
  core::Status matmul(backends::Buffer& w, model::TensorType type, const planner::KernelVariant& v,
                      uint32_t n_in, uint32_t n_out, backends::Buffer& act, uint32_t x_off,
                      uint32_t out_off, uint32_t stride, uint32_t n_tok, uint32_t rows = 1,
                      bool accumulate = false);
  // The expert-indexed product (mul_mat_id) for `tokens` tokens of a pass and their `slots`
  // picks: token t's pick j multiplies the expert whose id (a float) is at sel_off + j of its
  // activations, over the input at x_off + j * x_slot, into out_off + j * out_slot. `stack` holds
  // the experts' matrices of n_out rows one after the other.
  core::Status matvec_experts(backends::Buffer& stack, model::TensorType type,
                              const planner::KernelVariant& v, uint32_t n_in, uint32_t n_out,
                              uint32_t n_expert, backends::Buffer& act, const MatvecParams& p,
                              uint32_t tokens, uint32_t rows = 1);
  // The same product for a pass of more than one token, as token tiles of picks grouped by
  // expert (group_experts first): each expert's matrix is read once per tile of its picks.
  core::Status matmul_experts(backends::Buffer& stack, model::TensorType type,
                              const planner::KernelVariant& v, uint32_t n_in, uint32_t n_out,
                              uint32_t n_expert, backends::Buffer& act, const MatmulParams& p,
                              uint32_t rows = 1);
  // `bias`: the selection bias where p.biased, else any buffer (unread).
  core::Status route(backends::Buffer& act, backends::Buffer& bias, const RouteParams& p);
  core::Status group_experts(backends::Buffer& act, const GroupParams& p);
  // `scale`: an f32 per expert when p.scaled is set (any buffer of the device otherwise).
  core::Status combine(backends::Buffer& act, backends::Buffer& scale, const CombineParams& p,
                       uint32_t tokens);
  // act[out_off ..] = row `row` of W (n elements), dequantized.
  core::Status embed(backends::Buffer& w, model::TensorType type, uint32_t n, uint32_t row,
                     backends::Buffer& act, uint32_t out_off);
  // The ops below run for `tokens` tokens of a pass, p.stride floats apart.
  // `rows` rows of p.n elements per token, each normalized on its own with the same weight.
  core::Status rmsnorm(backends::Buffer& act, backends::Buffer& weight, uint32_t workgroup,
                       const RmsnormParams& p, uint32_t rows = 1, uint32_t tokens = 1);
  // `tables` holds one row of rope_dims angles per token; `pass` each token's {position, seq}.
  core::Status rope_kv(backends::Buffer& act, backends::Buffer& k_cache, backends::Buffer& v_cache,
                       backends::Buffer& tables, backends::Buffer& pass, planner::KvPrecision kv,
                       const RopeParams& p, uint32_t tokens = 1);
  // `sinks`: a logit per head when p.sinks is set (any buffer of the device otherwise).
  core::Status attention(backends::Buffer& act, backends::Buffer& k_cache,
                         backends::Buffer& v_cache, backends::Buffer& pass, backends::Buffer& sinks,
                         const planner::KernelVariant& v, uint32_t n_head, uint32_t head_dim,
                         uint32_t context, planner::KvPrecision kv, const AttentionParams& p,
                         uint32_t tokens = 1);
  // The pass's `tokens` (of one sequence) one query per invocation: config.h's
  // attention_by_queries.
  core::Status attention_queries(backends::Buffer& act, backends::Buffer& k_cache,
                                 backends::Buffer& v_cache, backends::Buffer& pass,
                                 backends::Buffer& sinks, uint32_t workgroup, uint32_t n_head,
                                 uint32_t head_dim, planner::KvPrecision kv,
                                 const AttentionParams& p, uint32_t tokens);
  core::Status kv_store(backends::Buffer& act, backends::Buffer& k_cache, backends::Buffer& v_cache,
                        backends::Buffer& pass, planner::KvPrecision kv, const KvStoreParams& p,
                        uint32_t tokens = 1);
  // n floats at p.off of each token turned chunk by chunk.
  core::Status hadamard(backends::Buffer& act, uint32_t n, uint32_t chunk, const HadamardParams& p,
                        uint32_t tokens = 1);
  core::Status elementwise(backends::Buffer& act, Elementwise op, const ElementwiseParams& p,
                           uint32_t tokens = 1);
  // act[p.off + i] += bias[i], i < p.n; with p.slots > 0, each of the tokens' picks adds its
  // expert's row.
  core::Status add_bias(backends::Buffer& act, backends::Buffer& bias, const BiasParams& p,
                        uint32_t tokens = 1);
  // A gated DeltaNet layer's conv1d and delta rule over the pass (`pass`: each token's {position,
  // sequence}), for `sequences` sequences of `state`; the conv's `kernel_w` and dt_bias / ssm_a are
  // the layer's f32 tensors. The delta rule walks the pass in turns of kDeltaNetTokens tokens.
  // `bias`: the conv's bias where p.biased (any buffer of the device otherwise).
  core::Status ssm_conv(backends::Buffer& act, backends::Buffer& state, backends::Buffer& kernel_w,
                        backends::Buffer& bias, backends::Buffer& pass, const SsmConvParams& p,
                        uint32_t sequences);
  // Mamba2's scan over the pass; dt_bias, ssm_a and ssm_d are the layer's f32 values per head.
  core::Status ssm_scan(backends::Buffer& act, backends::Buffer& state, backends::Buffer& dt_bias,
                        backends::Buffer& ssm_a, backends::Buffer& ssm_d, backends::Buffer& pass,
                        const SsmScanParams& p, uint32_t sequences);
  core::Status delta_net(backends::Buffer& act, backends::Buffer& state, backends::Buffer& dt_bias,
                         backends::Buffer& ssm_a, backends::Buffer& pass, const DeltaNetParams& p,
                         uint32_t sequences);
  core::Status query_gate(backends::Buffer& act, QueryGate mode, const QueryGateParams& p,
                          uint32_t tokens = 1);

 private:
  core::Status run(core::Result<backends::KernelSource> source,
                   std::vector<backends::Buffer*> buffers, std::span<const std::byte> params,
                   uint32_t groups, uint64_t local_bytes, uint32_t groups_y = 1);

  std::unique_ptr<KernelCache> own_;
  KernelCache& cache_;
  KernelTimes* times_ = nullptr;
};

}  // namespace gauntlet::engine::device
