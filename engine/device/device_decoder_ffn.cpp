// DeviceDecoder's feed-forward family: the dense FFN, the mixture of experts (on the device or in
// host memory), the dense branch beside the experts and the per-layer embeddings.
#include <algorithm>
#include <cmath>

#include "engine/device/device_decoder.h"
#include "engine/reference/experts.h"

namespace gauntlet::engine::device {

namespace {
using model::TensorType;
}

void DeviceDecoder::set_host_experts(const model::ModelWeights& weights, unsigned threads) {
  host_experts_.weights = &weights;
  host_experts_.pool = std::make_unique<reference::ThreadPool>(threads);
  host_experts_.layout = planner::experts_layout(model_.shape);
}

core::Status DeviceDecoder::host_experts(uint32_t layer) {
  auto& h = host_experts_;
  const auto& s = model_.shape;
  if (h.weights == nullptr) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "the experts of layer " + std::to_string(layer) +
                                " are on the host, but the decoder has no host weights");
  }
  const uint32_t n = tokens();
  h.act.resize(size_t{n} * h.layout.total);
  const size_t row = size_t{s.n_embd} * sizeof(float);
  auto at = [&](uint32_t t) { return (uint64_t{t} * stride() + layout_.xb) * sizeof(float); };
  auto host_row = [&](uint32_t t) {
    return std::as_writable_bytes(
        std::span<float>(h.act.data() + size_t{t} * h.layout.total + h.layout.xb, s.n_embd));
  };
  for (uint32_t t = 0; t < n; ++t) GAUNTLET_TRY(device_.download(*act_, host_row(t), at(t)));
  if (s.dense_beside_experts()) {
    // gemma4's router reads its own input.
    for (uint32_t t = 0; t < n; ++t) {
      GAUNTLET_TRY(device_.download(
          *act_,
          std::as_writable_bytes(std::span<float>(
              h.act.data() + size_t{t} * h.layout.total + h.layout.router_in, s.n_embd)),
          (uint64_t{t} * stride() + layout_.router_in) * sizeof(float)));
    }
  }
  reference::experts_ffn(s, h.weights->layers[layer], h.act.data(), n, h.layout, *h.pool);
  for (uint32_t t = 0; t < n; ++t) {
    GAUNTLET_TRY(device_.upload(*act_, host_row(t).first(row), at(t)));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::feed_forward(const model::LayerPlan& P) {
  const uint32_t layer = P.index;
  const Layer& L = layers_[layer];
  const auto& s = model_.shape;
  const auto& a = layout_;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(ops_.rmsnorm(act, *L.ffn_norm.buffer, matvec_.workgroup,
                            {s.n_embd, off(a.x), off(a.xb), s.rms_eps, stride()}, 1, tokens()));
  switch (P.ffn) {
    case model::FeedForward::dense_beside_experts:
      GAUNTLET_TRY(dense_beside_experts(layer));
      break;
    case model::FeedForward::experts:
      GAUNTLET_TRY(config_.layers.holds_experts(layer) ? experts(L) : host_experts(layer));
      break;
    case model::FeedForward::gated:
    case model::FeedForward::fused_gate_up:
      return dense_feed_forward(P);
    case model::FeedForward::ungated:
      return ungated_feed_forward(P);
    case model::FeedForward::none:
      return core::Status::ok();
  }
  // The experts' sum is in xb: post-normed where the architecture has post norms, then added.
  if (s.traits().post_norms) {
    GAUNTLET_TRY(ops_.rmsnorm(act, *L.post_ffn_norm.buffer, matvec_.workgroup,
                              {s.n_embd, off(a.xb), off(a.xb), s.rms_eps, stride()}, 1, tokens()));
  }
  return add_residual();
}

core::Status DeviceDecoder::dense_feed_forward(const model::LayerPlan& P) {
  const Layer& L = layers_[P.index];
  const auto& s = model_.shape;
  const auto& a = layout_;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  // The layer's width (gemma4's E2B: its shared-KV layers' double-wide feed-forward).
  const uint32_t ff = P.ff;
  if (P.ffn == model::FeedForward::fused_gate_up) {
    // Gate rows then up rows: hb and hb2 = hb + n_ff.
    GAUNTLET_TRY(project(L.w_up, s.n_embd, 2 * ff, a.xb, a.hb));
  } else {
    GAUNTLET_TRY(project(L.w_gate, s.n_embd, ff, a.xb, a.hb));
    GAUNTLET_TRY(project(L.w_up, s.n_embd, ff, a.xb, a.hb2));
  }
  const Elementwise gated =
      s.traits().activation == model::Activation::gelu ? Elementwise::geglu : Elementwise::swiglu;
  GAUNTLET_TRY(ops_.elementwise(act, gated, {ff, off(a.hb), off(a.hb2), 0, stride()}, tokens()));
  return add_branch(L.w_down, ff, a.hb, L.post_ffn_norm);
}

core::Status DeviceDecoder::ungated_feed_forward(const model::LayerPlan& P) {
  const Layer& L = layers_[P.index];
  const auto& s = model_.shape;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(project(L.w_up, s.n_embd, P.ff, layout_.xb, layout_.hb));
  GAUNTLET_TRY(ops_.elementwise(*act_, Elementwise::relu_sqr,
                                {P.ff, off(layout_.hb), 0, 0, stride()}, tokens()));
  return add_branch(L.w_down, P.ff, layout_.hb, L.post_ffn_norm);
}

core::Status DeviceDecoder::dense_beside_experts(uint32_t layer) {
  const Layer& L = layers_[layer];
  const auto& s = model_.shape;
  const auto& a = layout_;
  const uint32_t n = tokens(), wg = matvec_.workgroup;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  auto norm = [&](const Weight& w, uint64_t in, uint64_t out) {
    return ops_.rmsnorm(act, *w.buffer, wg, {s.n_embd, off(in), off(out), s.rms_eps, stride()}, 1,
                        n);
  };
  GAUNTLET_TRY(project(L.w_gate, s.n_embd, s.n_ff, a.xb, a.hb));
  GAUNTLET_TRY(project(L.w_up, s.n_embd, s.n_ff, a.xb, a.hb2));
  GAUNTLET_TRY(
      ops_.elementwise(act, Elementwise::geglu, {s.n_ff, off(a.hb), off(a.hb2), 0, stride()}, n));
  GAUNTLET_TRY(project(L.w_down, s.n_ff, s.n_embd, a.hb, a.mlp));
  GAUNTLET_TRY(norm(L.post_ffn_norm_1, a.mlp, a.mlp));
  GAUNTLET_TRY(norm(L.pre_ffn_norm_2, a.x, a.xb));
  // The router's input: rmsnorm(x) * ffn_gate_inp.scale / sqrt(n_embd), the scale vector taken as
  // the norm's weight (the reference multiplies by 1 / sqrt(n_embd) first: a rounding apart).
  GAUNTLET_TRY(norm(L.router_scale, a.x, a.router_in));
  GAUNTLET_TRY(ops_.elementwise(
      act, Elementwise::scale,
      {s.n_embd, off(a.router_in), 0, 1.0f / std::sqrt(static_cast<float>(s.n_embd)), stride()},
      n));
  GAUNTLET_TRY(config_.layers.holds_experts(layer) ? experts(L) : host_experts(layer));
  GAUNTLET_TRY(norm(L.post_ffn_norm_2, a.xb, a.xb));
  return ops_.elementwise(act, Elementwise::add, {s.n_embd, off(a.xb), off(a.mlp), 0, stride()}, n);
}

core::Status DeviceDecoder::per_layer_inputs() {
  const auto& s = model_.shape;
  const auto& a = layout_;
  const uint32_t n = tokens(), ple = s.n_embd_per_layer, all = ple * s.n_layer;
  // Every layer's input at ple_in, the table's row after them (planner::activation_layout).
  const uint64_t ple_row = a.ple_in + all;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  auto scale = [&](uint64_t at, uint32_t count, float value) {
    return ops_.elementwise(act, Elementwise::scale, {count, off(at), 0, value, stride()}, n);
  };
  // As reference::per_layer_embedding computes its layer's slice, step for step.
  for (uint32_t t = 0; t < n; ++t) {
    const auto token = static_cast<uint32_t>(pass_[t].token);
    GAUNTLET_TRY(ops_.embed(*token_embd_.buffer, token_embd_.type, s.n_embd, token, act,
                            off(t * layout_.total + a.ple_x)));
    GAUNTLET_TRY(ops_.embed(*per_layer_token_embd_.buffer, per_layer_token_embd_.type, all, token,
                            act, off(t * layout_.total + ple_row)));
  }
  if (s.traits().embed_scale) {
    GAUNTLET_TRY(scale(a.ple_x, s.n_embd, std::sqrt(static_cast<float>(s.n_embd))));
  }
  GAUNTLET_TRY(project(per_layer_model_proj_, s.n_embd, all, a.ple_x, a.ple_in));
  GAUNTLET_TRY(scale(a.ple_in, all, 1.0f / std::sqrt(static_cast<float>(s.n_embd))));
  GAUNTLET_TRY(ops_.rmsnorm(act, *per_layer_proj_norm_.buffer, matvec_.workgroup,
                            {ple, off(a.ple_in), off(a.ple_in), s.rms_eps, stride()}, s.n_layer,
                            n));
  GAUNTLET_TRY(scale(ple_row, all, std::sqrt(static_cast<float>(ple))));
  GAUNTLET_TRY(
      ops_.elementwise(act, Elementwise::add, {all, off(a.ple_in), off(ple_row), 0, stride()}, n));
  return scale(a.ple_in, all, 1.0f / std::sqrt(2.0f));
}

core::Status DeviceDecoder::per_layer_embedding(uint32_t layer) {
  const Layer& L = layers_[layer];
  const auto& s = model_.shape;
  const auto& a = layout_;
  const uint32_t ple = s.n_embd_per_layer;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(project(L.ple_gate, s.n_embd, ple, a.x, a.ple_gate));
  GAUNTLET_TRY(ops_.elementwise(
      *act_, Elementwise::geglu,
      {ple, off(a.ple_gate), off(a.ple_in + uint64_t{layer} * ple), 0, stride()}, tokens()));
  return add_branch(L.ple_proj, ple, a.ple_gate, L.ple_post_norm);
}

core::Status DeviceDecoder::project_experts(const Weight& stack, uint32_t n_in, uint32_t n_out,
                                            uint64_t x_off, uint32_t x_slot, uint64_t out_off,
                                            uint32_t out_slot) {
  const auto& s = model_.shape;
  if (tokens() > 1) {
    MatmulParams p{};
    p.x_off = static_cast<uint32_t>(x_off);
    p.out_off = static_cast<uint32_t>(out_off);
    p.stride = stride();
    p.n_tok = tokens();
    p.groups_off = static_cast<uint32_t>(layout_.expert_groups);
    p.group_len = planner::expert_group_len(s);
    p.k = s.n_expert_used;
    p.x_slot = x_slot;
    p.out_slot = out_slot;
    return ops_.matmul_experts(*stack.buffer, stack.type, matmul_, n_in, n_out, s.n_expert, *act_,
                               p, matmul_rows(device_.info(), n_in, n_out));
  }
  MatvecParams p{};
  p.x_off = static_cast<uint32_t>(x_off);
  p.out_off = static_cast<uint32_t>(out_off);
  p.stride = stride();
  p.sel_off = static_cast<uint32_t>(layout_.selected);
  p.slots = s.n_expert_used;
  p.x_slot = x_slot;
  p.out_slot = out_slot;
  return ops_.matvec_experts(*stack.buffer, stack.type, matvec_, n_in, n_out, s.n_expert, *act_, p,
                             tokens(), matvec_rows(device_.info(), n_out, matvec_.workgroup));
}

core::Status DeviceDecoder::experts(const Layer& L) {
  const auto& s = model_.shape;
  const auto& a = layout_;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  const model::Architecture& arch = s.traits();
  const uint32_t k = s.n_expert_used, ff = s.expert_ff(), n = tokens();
  // gemma4's router reads its own input (dense_beside_experts), the experts the pre-norm's output.
  const uint64_t router_in = s.dense_beside_experts() ? a.router_in : a.xb;
  GAUNTLET_TRY(project(L.router, s.n_embd, s.n_expert, router_in, a.router));
  if (arch.expert_biases) {
    GAUNTLET_TRY(ops_.add_bias(act, *L.router_b.buffer, {s.n_expert, off(a.router), stride()}, n));
  }
  const bool biased = L.selection_bias.buffer != nullptr;
  GAUNTLET_TRY(ops_.route(
      act, biased ? *L.selection_bias.buffer : *pass_buffer_,
      {s.n_expert, k, off(a.router), off(a.selected), s.norm_expert_weights() ? 1u : 0u, stride(),
       n, static_cast<uint32_t>(s.gating()), biased ? 1u : 0u, s.expert_weights_scale}));
  // A pass of several tokens multiplies each expert's matrix once per tile of the picks it got.
  if (n > 1) {
    GAUNTLET_TRY(ops_.group_experts(
        act, {s.n_expert, k, off(a.selected), off(a.router), off(a.expert_groups),
              planner::expert_group_len(s), stride(), n, matmul_.tokens}));
  }
  uint32_t gate_step = ff;
  const bool ungated = arch.ungated_experts;
  if (ungated) {
    // nemotron_h_moe: each pick's up where the gate goes, activated in place.
    GAUNTLET_TRY(project_experts(L.up_exps, s.n_embd, ff, a.xb, 0, a.experts_gate, ff));
    GAUNTLET_TRY(ops_.elementwise(act, Elementwise::relu_sqr,
                                  {k * ff, off(a.experts_gate), 0, 0, stride()}, n));
  } else if (s.fused_expert_gate_up) {
    // Each pick's gate and up side by side (2 ff from experts_gate on, which the layout keeps
    // beside experts_up): one gated activation per pick.
    gate_step = 2 * ff;
    GAUNTLET_TRY(
        project_experts(L.gate_up_exps, s.n_embd, 2 * ff, a.xb, 0, a.experts_gate, 2 * ff));
    const Elementwise gated = arch.expert_activation == model::Activation::gelu
                                  ? Elementwise::geglu
                                  : Elementwise::swiglu;
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t gate = off(a.experts_gate) + j * gate_step;
      GAUNTLET_TRY(ops_.elementwise(act, gated, {ff, gate, gate + ff, 0, stride()}, n));
    }
  } else {
    GAUNTLET_TRY(project_experts(L.gate_exps, s.n_embd, ff, a.xb, 0, a.experts_gate, ff));
    GAUNTLET_TRY(project_experts(L.up_exps, s.n_embd, ff, a.xb, 0, a.experts_up, ff));
    GAUNTLET_TRY(add_expert_bias(L.up_exps_b, ff, a.experts_up, ff));
    GAUNTLET_TRY(add_expert_bias(L.gate_exps_b, ff, a.experts_gate, ff));
    // The picks' gate and up slots lie back to back: one activation over all of them.
    const Elementwise gated =
        arch.expert_activation == model::Activation::swiglu_oai ? Elementwise::swiglu_oai
        : arch.expert_activation == model::Activation::gelu     ? Elementwise::geglu
                                                                : Elementwise::swiglu;
    GAUNTLET_TRY(ops_.elementwise(act, gated,
                                  {k * ff, off(a.experts_gate), off(a.experts_up),
                                   arch.swiglu_limit, stride(), arch.swiglu_alpha},
                                  n));
  }
  GAUNTLET_TRY(project_experts(L.down_exps, ff, s.n_embd, a.experts_gate, gate_step, a.experts_out,
                               s.n_embd));
  GAUNTLET_TRY(add_expert_bias(L.down_exps_b, s.n_embd, a.experts_out, s.n_embd));
  const bool shared = s.shared_expert();
  if (shared && ungated) {
    const uint32_t sh = s.shared_expert_ff();
    GAUNTLET_TRY(project(L.w_up_shexp, s.n_embd, sh, a.xb, a.hb));
    GAUNTLET_TRY(ops_.elementwise(act, Elementwise::relu_sqr, {sh, off(a.hb), 0, 0, stride()}, n));
    GAUNTLET_TRY(project(L.w_down_shexp, sh, s.n_embd, a.hb, a.xb));
  } else if (shared) {
    const uint32_t sh = s.shared_expert_ff();
    if (!arch.shared_expert_unscaled) {
      GAUNTLET_TRY(project(L.shexp_gate, s.n_embd, 1, a.xb, a.selected + 2 * k));
    }
    GAUNTLET_TRY(project(L.w_gate_shexp, s.n_embd, sh, a.xb, a.hb));
    GAUNTLET_TRY(project(L.w_up_shexp, s.n_embd, sh, a.xb, a.hb2));
    GAUNTLET_TRY(
        ops_.elementwise(act, Elementwise::swiglu, {sh, off(a.hb), off(a.hb2), 0, stride()}, n));
    GAUNTLET_TRY(project(L.w_down_shexp, sh, s.n_embd, a.hb, a.xb));
  }
  // gemma4's ffn_down_exps.scale: each pick's output times its expert's scale.
  const bool scaled = L.down_exps_scale.buffer != nullptr;
  return ops_.combine(act, scaled ? *L.down_exps_scale.buffer : *pass_buffer_,
                      {s.n_embd, k, off(a.experts_out), off(a.selected), off(a.xb),
                       !shared                       ? 0u
                       : arch.shared_expert_unscaled ? 2u
                                                     : 1u,
                       stride(), scaled ? 1u : 0u},
                      n);
}

core::Status DeviceDecoder::add_expert_bias(const Weight& bias, uint32_t n, uint64_t off,
                                            uint32_t slot_step) {
  if (!model_.shape.traits().expert_biases) return core::Status::ok();
  BiasParams p{n, static_cast<uint32_t>(off), stride()};
  p.sel_off = static_cast<uint32_t>(layout_.selected);
  p.slots = model_.shape.n_expert_used;
  p.slot_step = slot_step;
  return ops_.add_bias(*act_, *bias.buffer, p, tokens());
}

core::Status DeviceDecoder::add_branch(const Weight& w, uint32_t n_in, uint64_t x_off,
                                       const Weight& post_norm, const Weight* bias) {
  const auto& s = model_.shape;
  const auto& a = layout_;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  // x += W . h: the residual add is the product's own write.
  if (!s.traits().post_norms && bias == nullptr && s.residual_scale == 0.0f) {
    return project(w, n_in, s.n_embd, x_off, a.x, true);
  }
  // gemma: x += post_norm(W . h); gpt-oss: x += W . h + b, the bias added before the residual as
  // the graph adds it.
  GAUNTLET_TRY(project(w, n_in, s.n_embd, x_off, a.xb));
  if (bias != nullptr) {
    GAUNTLET_TRY(ops_.add_bias(act, *bias->buffer, {s.n_embd, off(a.xb), stride()}, tokens()));
  }
  if (s.traits().post_norms) {
    GAUNTLET_TRY(ops_.rmsnorm(act, *post_norm.buffer, matvec_.workgroup,
                              {s.n_embd, off(a.xb), off(a.xb), s.rms_eps, stride()}, 1, tokens()));
  }
  return add_residual();
}

core::Status DeviceDecoder::add_residual() {
  const auto& s = model_.shape;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  // granite: the branch times residual_scale before its add.
  if (s.residual_scale != 0.0f) {
    GAUNTLET_TRY(ops_.elementwise(*act_, Elementwise::scale,
                                  {s.n_embd, off(layout_.xb), 0, s.residual_scale, stride()},
                                  tokens()));
  }
  return ops_.elementwise(*act_, Elementwise::add,
                          {s.n_embd, off(layout_.x), off(layout_.xb), 0, stride()}, tokens());
}

}  // namespace gauntlet::engine::device
