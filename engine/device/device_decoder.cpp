#include "engine/device/device_decoder.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/model/rope.h"
#include "engine/reference/experts.h"
#include "engine/reference/kv_rows.h"

namespace gauntlet::engine::device {

namespace {
using model::TensorType;
}

core::Result<std::unique_ptr<DeviceDecoder>> DeviceDecoder::create(backends::Device& device,
                                                                   const loader::DeviceModel& model,
                                                                   const DecodeConfig& config,
                                                                   KernelCache* kernels) {
  // A shared-KV layer reads an earlier layer's cache: that layer must be in the same share.
  for (uint32_t l = 0; l < model.shape.n_layer; ++l) {
    const uint32_t src = model.shape.kv_layer(l);
    if (config.layers.holds(l) && !config.layers.holds(src)) {
      return core::make_error(core::ErrorKind::unsupported,
                              "layer " + std::to_string(l) + " reads the KV cache of layer " +
                                  std::to_string(src) + ", which this share does not hold",
                              device.name());
    }
  }
  const uint32_t context = config.context == 0 ? model.shape.context : config.context;
  if (context == 0 || context > model.shape.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "context " + std::to_string(context) + " is outside 1.." +
                                std::to_string(model.shape.context));
  }
  if (config.micro_batch == 0 || config.sequences == 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "micro-batch and sequences must be at least 1");
  }
  GAUNTLET_TRY(reference::check_kv_cache(model.shape, config.kv));
  if (config.kv.needs_flash() && !config.flash_attention) {
    // llama_init_from_model: "V cache quantization requires flash_attn".
    return core::make_error(core::ErrorKind::invalid_argument,
                            std::string("a ") + model::to_string(config.kv.v) +
                                " V cache needs flash attention (-fa), as in llama.cpp");
  }
  auto d = std::make_unique<DeviceDecoder>(device, model, config, context, kernels);
  GAUNTLET_TRY(d->bind());
  GAUNTLET_TRY(d->allocate());
  return d;
}

DeviceDecoder::DeviceDecoder(backends::Device& device, const loader::DeviceModel& model,
                             const DecodeConfig& config, uint32_t context, KernelCache* kernels)
    : device_(device),
      model_(model),
      config_(config),
      context_(context),
      ops_(kernels != nullptr ? Ops(*kernels) : Ops(device)),
      layout_(planner::activation_layout(model.shape, context)),
      kv_layout_(planner::kv_layout(model.shape, context, config.micro_batch, config.layers)),
      matvec_(effective_matvec(config)),
      matmul_(effective_matmul(config)),
      attention_(effective_attention(config)),
      capacity_(planner::pass_tokens(config.micro_batch, config.sequences)),
      plan_(model::plan_layers(model.shape)),
      state_layout_(planner::state_layout(model.shape, config.layers)),
      pos_(config.sequences, 0) {
  can_keep_final_ = true;
}

core::Status DeviceDecoder::bind() {
  std::map<std::string, Weight> by_name;
  for (const auto& t : model_.tensors) by_name[t.info.name] = {t.buffer.get(), t.info.type};
  // Every tensor of the architecture's list the share holds must be there; the others stay empty.
  for (const auto& want : model::model_tensors(model_.shape, model::FileType::f32)) {
    if (!want.optional && planner::holds_tensor(config_.layers, model_.shape, want.name) &&
        by_name.count(want.name) == 0) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "the loaded model has no tensor '" + want.name + "'");
    }
  }
  auto find = [&by_name](const std::string& name) {
    auto it = by_name.find(name);
    return it == by_name.end() ? Weight{} : it->second;
  };
  token_embd_ = find("token_embd.weight");
  output_norm_ = find(model_.shape.traits().output_norm);
  output_ = model_.shape.tied_output ? token_embd_ : find("output.weight");
  per_layer_token_embd_ = find("per_layer_token_embd.weight");
  per_layer_model_proj_ = find("per_layer_model_proj.weight");
  per_layer_proj_norm_ = find("per_layer_proj_norm.weight");
  for (uint32_t l = 0; l < model_.shape.n_layer; ++l) {
    layers_.push_back(model::bind_layer<Weight>(model_.shape, l, find));
  }
  if (Weight freqs = find("rope_freqs.weight"); freqs.buffer != nullptr) {
    rope_factors_.resize(model_.shape.rope_dims() / 2);
    GAUNTLET_TRY(device_.download(*freqs.buffer,
                                  std::as_writable_bytes(std::span<float>(rope_factors_)), 0));
  }
  // gemma4's layer_output_scale: one value per layer, read back once and applied as a scale.
  out_scales_.assign(layers_.size(), 0.0f);
  for (size_t l = 0; l < layers_.size(); ++l) {
    if (layers_[l].out_scale.buffer == nullptr) continue;
    GAUNTLET_TRY(
        device_.download(*layers_[l].out_scale.buffer,
                         std::as_writable_bytes(std::span<float>(out_scales_).subspan(l, 1)), 0));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::allocate() {
  const auto& s = model_.shape;
  auto alloc = [&](std::unique_ptr<backends::Buffer>& out, uint64_t bytes,
                   const char* what) -> core::Status {
    auto b = device_.allocate(bytes);
    if (!b) {
      core::Error e = b.error();
      e.message = std::string("allocating the ") + what + " (" + std::to_string(bytes) +
                  " bytes): " + e.message;
      return e;
    }
    out = std::move(*b);
    return core::Status::ok();
  };
  GAUNTLET_TRY(alloc(act_, planner::activation_bytes(s, context_, capacity_), "activations"));
  // Whole 32-bit words (a quantized cache's rows may end mid-word); a share without layers (the
  // output layer alone) still binds a cache buffer.
  auto cache_bytes = [&](model::TensorType type) {
    const uint64_t b = planner::kv_cache_bytes(s, context_, config_.sequences, {type, type},
                                               config_.micro_batch, config_.layers) /
                       2;
    return std::max<uint64_t>((b + 3) / 4 * 4, 4);
  };
  GAUNTLET_TRY(alloc(k_cache_, cache_bytes(config_.kv.k), "K cache"));
  GAUNTLET_TRY(alloc(v_cache_, cache_bytes(config_.kv.v), "V cache"));
  GAUNTLET_TRY(alloc(pass_buffer_, uint64_t{capacity_} * 2 * sizeof(uint32_t), "pass"));
  const uint64_t state = planner::state_bytes(s, config_.sequences, config_.layers);
  GAUNTLET_TRY(alloc(state_, std::max<uint64_t>(state, 4), "recurrent state"));
  // One table of angles per kind of layer (global, and sliding where those turn otherwise), a
  // row per token.
  uint32_t dims = s.rope_dims();
  for (uint32_t l = 0; l < s.n_layer; ++l) dims = std::max(dims, s.rope_dims(l));
  const uint64_t table_bytes = uint64_t{dims} * capacity_ * sizeof(float);
  for (auto& table : rope_tables_) GAUNTLET_TRY(alloc(table, table_bytes, "rope table"));
  // gemma4's V norm has no weight: the RMSNorm kernel over a row of ones.
  if (s.traits().v_norm) {
    uint32_t hd = 0;
    for (uint32_t l = 0; l < s.n_layer; ++l) hd = std::max(hd, s.head_dim(l));
    const std::vector<float> ones(hd, 1.0f);
    GAUNTLET_TRY(alloc(ones_, uint64_t{hd} * sizeof(float), "V norm weight"));
    GAUNTLET_TRY(device_.upload(*ones_, std::as_bytes(std::span<const float>(ones))));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::fill_kv(std::span<const std::byte> k, std::span<const std::byte> v,
                                    uint32_t position) {
  if (k.size() != k_cache_->size() || v.size() != v_cache_->size()) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "KV fill of " + std::to_string(k.size()) + "/" +
                                std::to_string(v.size()) + " bytes; the caches hold " +
                                std::to_string(k_cache_->size()) + " each");
  }
  if (position >= context_) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "position " + std::to_string(position) + " is past the context of " +
                                std::to_string(context_));
  }
  GAUNTLET_TRY(device_.upload(*k_cache_, k));
  GAUNTLET_TRY(device_.upload(*v_cache_, v));
  if (state_layout_.per_sequence > 0) {
    const std::vector<float> zeros(state_->size() / sizeof(float), 0.0f);
    GAUNTLET_TRY(device_.upload(*state_, std::as_bytes(std::span<const float>(zeros))));
  }
  std::fill(pos_.begin(), pos_.end(), position);
  return core::Status::ok();
}

core::Status DeviceDecoder::project(const Weight& w, uint32_t n_in, uint32_t n_out, uint64_t x_off,
                                    uint64_t out_off, bool accumulate) {
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  if (tokens() == 1) {
    return ops_.matvec(*w.buffer, w.type, matvec_, n_in, n_out, *act_, off(x_off), off(out_off),
                       matvec_rows(device_.info(), n_out, matvec_.workgroup), accumulate);
  }
  return ops_.matmul(*w.buffer, w.type, matmul_, n_in, n_out, *act_, off(x_off), off(out_off),
                     stride(), tokens(), matmul_rows(device_.info(), n_in, n_out), accumulate);
}

core::Status DeviceDecoder::project_qkv(const model::AttentionPlan& A, uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  const model::Architecture& arch = s.traits();
  const uint32_t n_q = A.n_q, n_kv = A.n_kv, n = tokens(), hd = A.head_dim;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  switch (A.projection) {
    case model::QkvProjection::fused:
      // Q, K and V rows of one matrix into the back-to-back q, k, v of the activation layout.
      GAUNTLET_TRY(project(L.wqkv, s.n_embd, n_q + 2 * n_kv, a.xb, a.q));
      break;
    case model::QkvProjection::query_gate:
      // qwen35: each head's [q | gate] side by side, split into q and gate.
      GAUNTLET_TRY(project(L.wq, s.n_embd, 2 * n_q, a.xb, a.q_gate));
      GAUNTLET_TRY(project(L.wk, s.n_embd, n_kv, a.xb, a.k));
      GAUNTLET_TRY(project(L.wv, s.n_embd, n_kv, a.xb, a.v));
      GAUNTLET_TRY(ops_.query_gate(act, QueryGate::split,
                                   {n_q, hd, off(a.q_gate), off(a.q), off(a.gate), stride()}, n));
      break;
    case model::QkvProjection::query_only:
      GAUNTLET_TRY(project(L.wq, s.n_embd, n_q, a.xb, a.q));
      break;
    case model::QkvProjection::k_as_v:
      // K projected twice, once into v, so that V is K's projection before K's norm
      // (src/models/gemma4.cpp).
      GAUNTLET_TRY(project(L.wq, s.n_embd, n_q, a.xb, a.q));
      GAUNTLET_TRY(project(L.wk, s.n_embd, n_kv, a.xb, a.k));
      GAUNTLET_TRY(project(L.wk, s.n_embd, n_kv, a.xb, a.v));
      break;
    case model::QkvProjection::separate:
      GAUNTLET_TRY(project(L.wq, s.n_embd, n_q, a.xb, a.q));
      GAUNTLET_TRY(project(L.wk, s.n_embd, n_kv, a.xb, a.k));
      GAUNTLET_TRY(project(L.wv, s.n_embd, n_kv, a.xb, a.v));
      break;
  }
  if (A.head_gate) GAUNTLET_TRY(project(L.attn_gate, s.n_embd, A.heads, a.xb, a.gate));
  if (arch.qkv_bias) {
    GAUNTLET_TRY(ops_.add_bias(act, *L.bq.buffer, {n_q, off(a.q), stride()}, n));
    GAUNTLET_TRY(ops_.add_bias(act, *L.bk.buffer, {n_kv, off(a.k), stride()}, n));
    GAUNTLET_TRY(ops_.add_bias(act, *L.bv.buffer, {n_kv, off(a.v), stride()}, n));
  }
  if (arch.qk_norm) {
    GAUNTLET_TRY(ops_.rmsnorm(act, *L.q_norm.buffer, matvec_.workgroup,
                              {hd, off(a.q), off(a.q), s.rms_eps, stride()}, A.heads, n));
    if (A.stores_kv) {
      GAUNTLET_TRY(ops_.rmsnorm(act, *L.k_norm.buffer, matvec_.workgroup,
                                {hd, off(a.k), off(a.k), s.rms_eps, stride()}, A.heads_kv, n));
    }
  }
  if (arch.v_norm && A.stores_kv) {
    GAUNTLET_TRY(ops_.rmsnorm(act, *ones_, matvec_.workgroup,
                              {hd, off(a.v), off(a.v), s.rms_eps, stride()}, A.heads_kv, n));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::run_layer(uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  const model::LayerPlan& P = plan_[l];
  // nemotron_h's layers are one branch each: a mixer or a feed-forward.
  if (P.mixer != model::Mixer::none) {
    GAUNTLET_TRY(ops_.rmsnorm(act, *L.attn_norm.buffer, matvec_.workgroup,
                              {s.n_embd, off(a.x), off(a.xb), s.rms_eps, stride()}, 1, tokens()));
  }
  switch (P.mixer) {
    case model::Mixer::attention:
      GAUNTLET_TRY(attention(l));
      break;
    case model::Mixer::gated_delta_net:
      GAUNTLET_TRY(recurrent(l));
      break;
    case model::Mixer::short_conv:
      GAUNTLET_TRY(short_conv(l));
      break;
    case model::Mixer::mamba2:
      GAUNTLET_TRY(mamba2(l));
      break;
    case model::Mixer::none:
      break;
  }
  if (P.ffn != model::FeedForward::none) GAUNTLET_TRY(feed_forward(P));
  if (P.per_layer_input) GAUNTLET_TRY(per_layer_embedding(l));
  // gemma4's layer_output_scale multiplies the whole residual stream (optional in llama.cpp's
  // loader).
  if (!P.output_scale || L.out_scale.buffer == nullptr) return core::Status::ok();
  return ops_.elementwise(act, Elementwise::scale,
                          {s.n_embd, off(a.x), 0, out_scales_[l], stride()}, tokens());
}

core::Status DeviceDecoder::recurrent(uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  const uint32_t n = tokens(), heads = s.ssm_heads;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(project(L.ssm_qkv, s.n_embd, s.ssm_channels(), a.xb, a.ssm_qkv));
  GAUNTLET_TRY(project(L.ssm_gate, s.n_embd, s.ssm_inner, a.xb, a.ssm_z));
  GAUNTLET_TRY(project(L.ssm_beta, s.n_embd, heads, a.xb, a.ssm_ba));
  GAUNTLET_TRY(project(L.ssm_alpha, s.n_embd, heads, a.xb, a.ssm_ba + heads));
  // Each sequence's tokens in pass order: the conv and the delta rule read the state its previous
  // token left (one work-item per channel, one workgroup per value head, of each sequence).
  const uint32_t per_seq = off(state_layout_.per_sequence), at = off(state_layout_.offset[l]);
  GAUNTLET_TRY(ops_.ssm_conv(
      act, *state_, *L.ssm_conv1d.buffer, *L.ssm_conv1d.buffer, *pass_buffer_,
      {s.ssm_channels(), s.ssm_conv, off(a.ssm_qkv), off(a.ssm_conv), at, per_seq, stride(), n},
      config_.sequences));
  const DeltaNetParams dp{s.ssm_state,
                          heads,
                          s.ssm_groups,
                          off(a.ssm_conv),
                          off(a.ssm_ba),
                          off(a.ssm_o),
                          off(at + s.ssm_conv_floats()),
                          per_seq,
                          stride(),
                          n,
                          s.rms_eps};
  GAUNTLET_TRY(ops_.delta_net(act, *state_, *L.ssm_dt_bias.buffer, *L.ssm_a.buffer, *pass_buffer_,
                              dp, config_.sequences));
  // The gated norm (build_norm_gated): each head's rmsnorm(o) * ssm_norm, then z = silu(z) * o.
  GAUNTLET_TRY(ops_.rmsnorm(act, *L.ssm_norm.buffer, matvec_.workgroup,
                            {s.ssm_state, off(a.ssm_o), off(a.ssm_o), s.rms_eps, stride()}, heads,
                            n));
  GAUNTLET_TRY(ops_.elementwise(act, Elementwise::swiglu,
                                {s.ssm_inner, off(a.ssm_z), off(a.ssm_o), 0, stride()}, n));
  return add_branch(L.ssm_out, s.ssm_inner, a.ssm_z, L.post_attn_norm);
}

core::Status DeviceDecoder::short_conv(uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(project(L.ssm_qkv, s.n_embd, 3 * s.n_embd, a.xb, a.ssm_qkv));
  SsmConvParams conv{s.n_embd,
                     s.ssm_conv,
                     off(a.ssm_qkv),
                     off(a.ssm_o),
                     off(state_layout_.offset[l]),
                     off(state_layout_.per_sequence),
                     stride(),
                     tokens()};
  conv.gated = 1;
  GAUNTLET_TRY(ops_.ssm_conv(*act_, *state_, *L.ssm_conv1d.buffer, *L.ssm_conv1d.buffer,
                             *pass_buffer_, conv, config_.sequences));
  return add_branch(L.ssm_out, s.n_embd, a.ssm_o, L.post_attn_norm);
}

core::Status DeviceDecoder::mamba2(uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  const uint32_t n = tokens(), inner = s.ssm_inner, groups = s.ssm_groups;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(project(L.ssm_qkv, s.n_embd, off(s.mamba2_in_proj()), a.xb, a.ssm_qkv));
  // Each sequence's tokens in pass order: the conv and the scan read the states its previous
  // token left (one work-item per channel of each sequence).
  const uint32_t per_seq = off(state_layout_.per_sequence), at = off(state_layout_.offset[l]);
  SsmConvParams conv{s.ssm_channels(), s.ssm_conv, off(a.ssm_qkv + inner),
                     off(a.ssm_conv),  at,         per_seq,
                     stride(),         n};
  const bool biased = L.ssm_conv_bias.buffer != nullptr;
  conv.biased = biased ? 1 : 0;
  backends::Buffer& conv_bias = biased ? *L.ssm_conv_bias.buffer : *L.ssm_conv1d.buffer;
  GAUNTLET_TRY(ops_.ssm_conv(act, *state_, *L.ssm_conv1d.buffer, conv_bias, *pass_buffer_, conv,
                             config_.sequences));
  const SsmScanParams scan{s.ssm_state,
                           inner / s.ssm_heads,
                           s.ssm_heads / groups,
                           groups,
                           inner,
                           off(a.ssm_conv),
                           off(a.ssm_qkv + inner + s.ssm_channels()),
                           off(a.ssm_qkv),
                           off(a.ssm_o),
                           off(at + s.ssm_conv_floats()),
                           per_seq,
                           stride(),
                           n};
  GAUNTLET_TRY(ops_.ssm_scan(act, *state_, *L.ssm_dt_bias.buffer, *L.ssm_a.buffer, *L.ssm_d.buffer,
                             *pass_buffer_, scan, config_.sequences));
  // The grouped norm: each group's row normed with its own weights.
  RmsnormParams norm{inner / groups, off(a.ssm_o), off(a.ssm_o), s.rms_eps, stride()};
  norm.weight_stride = inner / groups;
  GAUNTLET_TRY(ops_.rmsnorm(act, *L.ssm_norm.buffer, matvec_.workgroup, norm, groups, n));
  return add_branch(L.ssm_out, inner, a.ssm_o, L.post_attn_norm);
}

core::Status DeviceDecoder::attention(uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  const model::AttentionPlan& A = plan_[l].attention;
  const uint32_t hd = A.head_dim, n_q = A.n_q, n_kv = A.n_kv, n = tokens();
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(project_qkv(A, l));
  // A sliding layer keeps a ring of its last positions (planner::kv_layout); every token's K and
  // V is written before any token attends, and each attends only up to its own position. A layer
  // without KV of its own (gemma4's shared layers) turns Q only and reads layer kv_layer(l)'s.
  const uint32_t src = A.kv_layer;
  const bool own_kv = A.stores_kv;
  const uint32_t layer_off = off(kv_layout_.offset[src]);
  const uint32_t slots = kv_layout_.slots[src];
  const uint32_t seq_stride = off(kv_layout_.per_sequence);
  const RopeParams rope{off(a.q),
                        off(a.k),
                        off(a.v),
                        n_q / 2,
                        own_kv ? n_kv / 2 : 0u,
                        hd,
                        A.rope_dims,
                        layer_off,
                        static_cast<uint32_t>(s.traits().rope),
                        stride(),
                        slots,
                        seq_stride};
  backends::Buffer& table = *rope_tables_[A.rope_table];
  GAUNTLET_TRY(ops_.rope_kv(act, *k_cache_, *v_cache_, table, *pass_buffer_, config_.kv, rope, n));
  GAUNTLET_TRY(scale_queries(n_q));
  if (!rope_writes_kv(config_.kv)) GAUNTLET_TRY(store_kv(l, layer_off, slots, seq_stride));
  const AttentionParams att{off(a.q),       off(a.xb2), A.heads / A.heads_kv,
                            n_kv,           layer_off,  A.window,
                            A.scale,        stride(),   slots,
                            s.attn_softcap, seq_stride, s.traits().attn_sinks ? 1u : 0u};
  backends::Buffer& sinks = s.traits().attn_sinks ? *L.sinks.buffer : *pass_buffer_;
  const bool one_sequence =
      std::all_of(pass_.begin(), pass_.end(), [&](const auto& t) { return t.seq == pass_[0].seq; });
  if (n > 1 && one_sequence && !config_.flash_attention &&
      attention_by_queries(device_.info(), config_.kv, hd,
                           std::max(k_cache_->size(), v_cache_->size()))) {
    GAUNTLET_TRY(ops_.attention_queries(act, *k_cache_, *v_cache_, *pass_buffer_, sinks,
                                        attention_.workgroup, A.heads, hd, config_.kv, att, n));
  } else {
    GAUNTLET_TRY(ops_.attention(act, *k_cache_, *v_cache_, *pass_buffer_, sinks, attention_,
                                A.heads, hd, context_, config_.kv, att, n));
  }
  if (const uint32_t rot_v = reference::v_rotation(s, config_.kv, l); rot_v > 0) {
    GAUNTLET_TRY(rotate(a.xb2, n_q, rot_v));  // turned back
  }
  if (A.projection == model::QkvProjection::query_gate || A.head_gate) {
    const QueryGate mode = A.head_gate ? QueryGate::head_softplus : QueryGate::apply;
    GAUNTLET_TRY(ops_.query_gate(act, mode, {n_q, hd, 0, off(a.xb2), off(a.gate), stride()}, n));
  }
  return add_branch(L.wo, n_q, a.xb2, L.post_attn_norm, s.traits().out_bias ? &L.bo : nullptr);
}

// mistral3's temperature: each run of the pass's tokens whose factor is the same (it changes once
// every yarn_orig_context positions) scales its Q in one dispatch; a factor of 1 is left out.
core::Status DeviceDecoder::scale_queries(uint32_t n_q) {
  const auto& s = model_.shape;
  if (s.attn_temp_scale == 0.0f) return core::Status::ok();
  for (size_t first = 0; first < pass_.size();) {
    const float temp = model::attention_temperature(s, pass_[first].pos);
    size_t end = first + 1;
    while (end < pass_.size() && model::attention_temperature(s, pass_[end].pos) == temp) ++end;
    if (temp != 1.0f) {
      const auto at = static_cast<uint32_t>(first * stride() + layout_.q);
      GAUNTLET_TRY(ops_.elementwise(*act_, Elementwise::scale, {n_q, at, 0, temp, stride()},
                                    static_cast<uint32_t>(end - first)));
    }
    first = end;
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::rotate(uint64_t off, uint32_t n, uint32_t chunk) {
  const HadamardParams p{static_cast<uint32_t>(off), stride(),
                         1.0f / std::sqrt(static_cast<float>(chunk))};
  return ops_.hadamard(*act_, n, chunk, p, tokens());
}

// A quantized cache (or one whose K and V types differ): rope_kv turned q and k in place; the
// Walsh-Hadamard rotations llama.cpp applies to a quantized cache (reference/kv_rows.h) come next,
// then kv_store encodes the rows into the cache (and rounds Q to Q8_0 against a quantized K).
core::Status DeviceDecoder::store_kv(uint32_t l, uint32_t layer_off, uint32_t slots,
                                     uint32_t seq_stride) {
  const auto& s = model_.shape;
  const auto& a = layout_;
  const uint32_t n_q = s.n_embd_q(l), n_kv = s.has_kv(l) ? s.n_embd_kv(l) : 0;
  if (const uint32_t rot_k = reference::k_rotation(s, config_.kv, l); rot_k > 0) {
    GAUNTLET_TRY(rotate(a.q, n_q, rot_k));
    if (n_kv > 0) GAUNTLET_TRY(rotate(a.k, n_kv, rot_k));
  }
  if (const uint32_t rot_v = reference::v_rotation(s, config_.kv, l); rot_v > 0 && n_kv > 0) {
    GAUNTLET_TRY(rotate(a.v, n_kv, rot_v));
  }
  // A shared-KV layer writes no rows (n_blocks 0) but still rounds its Q.
  const bool round_q = model::is_quantized(config_.kv.k);
  const KvStoreParams p{static_cast<uint32_t>(a.k),
                        static_cast<uint32_t>(a.v),
                        n_kv / 32,
                        layer_off,
                        stride(),
                        slots,
                        seq_stride,
                        static_cast<uint32_t>(a.q),
                        round_q ? n_q / 32 : 0};
  if (p.n_blocks == 0 && p.n_q_blocks == 0) return core::Status::ok();
  return ops_.kv_store(*act_, *k_cache_, *v_cache_, *pass_buffer_, config_.kv, p, tokens());
}

core::Status DeviceDecoder::upload_pass() {
  const auto& s = model_.shape;
  std::vector<uint32_t> info;
  for (const auto& t : pass_) {
    info.push_back(t.pos);
    info.push_back(t.seq);
  }
  GAUNTLET_TRY(device_.upload(*pass_buffer_, std::as_bytes(std::span<const uint32_t>(info))));
  // cos/sin of each token's angles, computed in double as the reference does: table 0 for the
  // global layers, table 1 for the sliding ones (their base, and in gemma4 their rotary
  // dimensions, may differ; gemma4's rope_freqs turn only its global layers).
  for (uint32_t kind = 0; kind < 2; ++kind) {
    auto first = std::find_if(plan_.begin(), plan_.end(), [&](const model::LayerPlan& p) {
      return p.mixer == model::Mixer::attention && p.attention.rope_table == kind;
    });
    if (first == plan_.end()) continue;
    const uint32_t layer = first->index;
    const uint32_t dims = first->attention.rope_dims;
    const bool own = first->attention.rope_factors;
    const std::span<const float> factors =
        own ? std::span<const float>(rope_factors_) : std::span<const float>{};
    tables_.resize(size_t{dims} * pass_.size());
    for (size_t t = 0; t < pass_.size(); ++t) {
      model::rope_table(s, layer, factors, pass_[t].pos,
                        std::span<float>(tables_).subspan(t * dims, dims));
    }
    GAUNTLET_TRY(
        device_.upload(*rope_tables_[kind], std::as_bytes(std::span<const float>(tables_))));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::logits(std::vector<float>& out) {
  const auto& s = model_.shape;
  const auto& a = layout_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  const bool all = std::all_of(pass_.begin(), pass_.end(), [](const auto& t) { return t.logits; });
  if (all) {
    // Every token's logits (sequences decoded together): one product for the whole pass.
    GAUNTLET_TRY(ops_.rmsnorm(*act_, *output_norm_.buffer, matvec_.workgroup,
                              {s.n_embd, off(a.x), off(a.xb), s.rms_eps, stride()}, 1, tokens()));
    GAUNTLET_TRY(project(output_, s.n_embd, s.n_vocab, a.xb, a.logits));
  } else {
    // A prompt wants its last token's: a matvec on each token that asks.
    for (size_t t = 0; t < pass_.size(); ++t) {
      if (!pass_[t].logits) continue;
      const uint64_t at = t * layout_.total;
      GAUNTLET_TRY(ops_.rmsnorm(*act_, *output_norm_.buffer, matvec_.workgroup,
                                {s.n_embd, off(at + a.x), off(at + a.xb), s.rms_eps}));
      GAUNTLET_TRY(ops_.matvec(*output_.buffer, output_.type, matvec_, s.n_embd, s.n_vocab, *act_,
                               off(at + a.xb), off(at + a.logits),
                               matvec_rows(device_.info(), s.n_vocab, matvec_.workgroup)));
    }
  }
  if (s.logit_scale != 0.0f) {
    GAUNTLET_TRY(ops_.elementwise(*act_, Elementwise::scale,
                                  {s.n_vocab, off(a.logits), 0, 1.0f / s.logit_scale, stride()},
                                  tokens()));
  }
  if (s.final_softcap > 0) {
    GAUNTLET_TRY(ops_.elementwise(*act_, Elementwise::softcap,
                                  {s.n_vocab, off(a.logits), 0, s.final_softcap, stride()},
                                  tokens()));
  }
  for (size_t t = 0; t < pass_.size(); ++t) {
    if (!pass_[t].logits) continue;
    out.resize(out.size() + s.n_vocab);
    GAUNTLET_TRY(device_.download(*act_,
                                  std::as_writable_bytes(std::span<float>(out).last(s.n_vocab)),
                                  (t * layout_.total + a.logits) * sizeof(float)));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::run_layers() {
  const uint32_t end = std::min(config_.layers.last, model_.shape.n_layer);
  if (model_.shape.per_layer_embeddings() && config_.layers.first < end) {
    GAUNTLET_TRY(per_layer_inputs());
  }
  for (uint32_t l = config_.layers.first; l < end; ++l) GAUNTLET_TRY(run_layer(l));
  return core::Status::ok();
}

core::Status DeviceDecoder::upload_residuals(std::span<const float> x) {
  const uint32_t n = model_.shape.n_embd;
  for (size_t t = 0; t < pass_.size(); ++t) {
    GAUNTLET_TRY(device_.upload(*act_, std::as_bytes(x.subspan(t * n, n)),
                                (t * layout_.total + layout_.x) * sizeof(float)));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::download_residuals(std::span<float> x) {
  const uint32_t n = model_.shape.n_embd;
  for (size_t t = 0; t < pass_.size(); ++t) {
    GAUNTLET_TRY(device_.download(*act_, std::as_writable_bytes(x.subspan(t * n, n)),
                                  (t * layout_.total + layout_.x) * sizeof(float)));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::run_stage(std::span<const engine::PassToken> pass, std::span<float> x,
                                      std::vector<float>& logits_out) {
  if (pass.size() > capacity_ || x.size() != pass.size() * model_.shape.n_embd) {
    return core::make_error(core::ErrorKind::internal, "a stage pass of the wrong size");
  }
  pass_.clear();
  for (const auto& t : pass) pass_.push_back({t.token, t.pos, t.seq, t.logits});
  GAUNTLET_TRY(upload_pass());
  GAUNTLET_TRY(upload_residuals(x));
  GAUNTLET_TRY(run_layers());
  if (config_.layers.output) return logits(logits_out);
  return download_residuals(x);
}

core::Status DeviceDecoder::run_pass() {
  const auto& s = model_.shape;
  const auto& a = layout_;
  GAUNTLET_TRY(upload_pass());
  for (size_t t = 0; t < pass_.size(); ++t) {
    GAUNTLET_TRY(ops_.embed(*token_embd_.buffer, token_embd_.type, s.n_embd,
                            static_cast<uint32_t>(pass_[t].token), *act_,
                            static_cast<uint32_t>(t * layout_.total + a.x)));
  }
  if (const float m = s.embedding_multiplier(); m != 1.0f) {
    GAUNTLET_TRY(ops_.elementwise(*act_, Elementwise::scale,
                                  {s.n_embd, static_cast<uint32_t>(a.x), 0, m, stride()},
                                  tokens()));
  }
  GAUNTLET_TRY(run_layers());
  return logits(logits_);
}

core::Result<std::span<const float>> DeviceDecoder::forward(std::span<const BatchToken> batch) {
  if (!config_.layers.is_whole(model_.shape.n_layer)) {
    return core::make_error(core::ErrorKind::internal, "a share of the layers runs as a stage");
  }
  GAUNTLET_TRY(check_batch(batch, model_.shape.n_vocab, pos_, context_));
  logits_.clear();
  final_.clear();
  for (const PassRange& r : split_into_passes(batch, config_.micro_batch, capacity_)) {
    pass_.clear();
    for (size_t i = r.begin; i < r.end; ++i) {
      const BatchToken& b = batch[i];
      pass_.push_back({b.token, pos_[b.seq], b.seq, b.logits});
      ++pos_[b.seq];
    }
    GAUNTLET_TRY(run_pass());
    if (keep_final_) {
      final_.resize(final_.size() + pass_.size() * model_.shape.n_embd);
      GAUNTLET_TRY(
          download_residuals(std::span<float>(final_).last(pass_.size() * model_.shape.n_embd)));
    }
  }
  return std::span<const float>(logits_);
}

core::Result<DecoderCheckpoint> DeviceDecoder::checkpoint() {
  return save_checkpoint(device_, *state_, pos_);
}

core::Status DeviceDecoder::restore(const DecoderCheckpoint& saved) {
  return restore_checkpoint(device_, *state_, pos_, saved);
}

}  // namespace gauntlet::engine::device
