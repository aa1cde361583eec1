#include "engine/device/device_decoder.h"

#include <cmath>
#include <map>

#include "engine/model/rope.h"

namespace gauntlet::engine::device {

namespace {
using model::TensorType;
}

core::Result<std::unique_ptr<DeviceDecoder>> DeviceDecoder::create(backends::Device& device,
                                                                   const loader::DeviceModel& model,
                                                                   const DecodeConfig& config,
                                                                   KernelCache* kernels) {
  const uint32_t context = config.context == 0 ? model.shape.context : config.context;
  if (context == 0 || context > model.shape.context) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "context " + std::to_string(context) + " is outside 1.." +
                                std::to_string(model.shape.context));
  }
  if (config.batch != 1) {
    return core::make_error(core::ErrorKind::unsupported,
                            "batch " + std::to_string(config.batch) +
                                " is planner-only: the device decoder runs batch 1");
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
      matvec_(effective_matvec(config)),
      attention_(effective_attention(config)) {}

core::Status DeviceDecoder::bind() {
  std::map<std::string, Weight> by_name;
  for (const auto& t : model_.tensors) by_name[t.info.name] = {t.buffer.get(), t.info.type};
  // Every tensor of the architecture's list must be there; the others stay empty.
  for (const auto& want : model::model_tensors(model_.shape, model::FileType::f32)) {
    if (by_name.count(want.name) == 0) {
      return core::make_error(core::ErrorKind::invalid_argument,
                              "the loaded model has no tensor '" + want.name + "'");
    }
  }
  auto find = [&by_name](const std::string& name) {
    auto it = by_name.find(name);
    return it == by_name.end() ? Weight{} : it->second;
  };
  token_embd_ = find("token_embd.weight");
  output_norm_ = find("output_norm.weight");
  output_ = model_.shape.tied_output ? token_embd_ : find("output.weight");
  for (uint32_t l = 0; l < model_.shape.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    Layer L{};
    L.attn_norm = find(p + "attn_norm.weight");
    L.wq = find(p + "attn_q.weight");
    L.wk = find(p + "attn_k.weight");
    L.wv = find(p + "attn_v.weight");
    L.wqkv = find(p + "attn_qkv.weight");
    L.bq = find(p + "attn_q.bias");
    L.bk = find(p + "attn_k.bias");
    L.bv = find(p + "attn_v.bias");
    L.q_norm = find(p + "attn_q_norm.weight");
    L.k_norm = find(p + "attn_k_norm.weight");
    L.wo = find(p + "attn_output.weight");
    L.ffn_norm = find(p + "ffn_norm.weight");
    L.w_gate = find(p + "ffn_gate.weight");
    L.w_up = find(p + "ffn_up.weight");
    L.w_down = find(p + "ffn_down.weight");
    layers_.push_back(L);
  }
  if (Weight freqs = find("rope_freqs.weight"); freqs.buffer != nullptr) {
    rope_factors_.resize(model_.shape.rope_dims() / 2);
    GAUNTLET_TRY(device_.download(*freqs.buffer,
                                  std::as_writable_bytes(std::span<float>(rope_factors_)), 0));
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
  GAUNTLET_TRY(alloc(act_, planner::activation_bytes(s, context_, 1), "activations"));
  const uint64_t kv = planner::kv_cache_bytes(s, context_, 1, config_.kv) / 2;
  GAUNTLET_TRY(alloc(k_cache_, kv, "K cache"));
  GAUNTLET_TRY(alloc(v_cache_, kv, "V cache"));
  GAUNTLET_TRY(alloc(rope_table_, uint64_t{s.rope_dims()} * sizeof(float), "rope table"));
  table_.resize(s.rope_dims());
  logits_.resize(s.n_vocab);
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
  pos_ = position;
  return core::Status::ok();
}

core::Status DeviceDecoder::project_qkv(const Layer& L) {
  const auto& s = model_.shape;
  const auto& a = layout_;
  const model::Architecture& arch = s.traits();
  const uint32_t n_q = s.n_embd_q(), n_kv = s.n_embd_kv(), rows = kMatvecRows;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  if (arch.fused_qkv) {
    // Q, K and V rows of one matrix into the back-to-back q, k, v of the activation layout.
    GAUNTLET_TRY(ops_.matvec(*L.wqkv.buffer, L.wqkv.type, matvec_, s.n_embd, n_q + 2 * n_kv, act,
                             off(a.xb), off(a.q), rows));
  } else {
    GAUNTLET_TRY(ops_.matvec(*L.wq.buffer, L.wq.type, matvec_, s.n_embd, n_q, act, off(a.xb),
                             off(a.q), rows));
    GAUNTLET_TRY(ops_.matvec(*L.wk.buffer, L.wk.type, matvec_, s.n_embd, n_kv, act, off(a.xb),
                             off(a.k), rows));
    GAUNTLET_TRY(ops_.matvec(*L.wv.buffer, L.wv.type, matvec_, s.n_embd, n_kv, act, off(a.xb),
                             off(a.v), rows));
  }
  if (arch.qkv_bias) {
    GAUNTLET_TRY(ops_.add_bias(act, *L.bq.buffer, {n_q, off(a.q)}));
    GAUNTLET_TRY(ops_.add_bias(act, *L.bk.buffer, {n_kv, off(a.k)}));
    GAUNTLET_TRY(ops_.add_bias(act, *L.bv.buffer, {n_kv, off(a.v)}));
  }
  if (arch.qk_norm) {
    const uint32_t hd = s.head_dim();
    GAUNTLET_TRY(ops_.rmsnorm(act, *L.q_norm.buffer, matvec_.workgroup,
                              {hd, off(a.q), off(a.q), s.rms_eps}, s.n_head));
    GAUNTLET_TRY(ops_.rmsnorm(act, *L.k_norm.buffer, matvec_.workgroup,
                              {hd, off(a.k), off(a.k), s.rms_eps}, s.n_head_kv));
  }
  return core::Status::ok();
}

core::Status DeviceDecoder::feed_forward(const Layer& L) {
  const auto& s = model_.shape;
  const auto& a = layout_;
  const uint32_t rows = kMatvecRows;
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };
  GAUNTLET_TRY(ops_.rmsnorm(act, *L.ffn_norm.buffer, matvec_.workgroup,
                            {s.n_embd, off(a.x), off(a.xb), s.rms_eps}));
  if (s.traits().fused_gate_up) {
    // Gate rows then up rows: hb and hb2 = hb + n_ff.
    GAUNTLET_TRY(ops_.matvec(*L.w_up.buffer, L.w_up.type, matvec_, s.n_embd, 2 * s.n_ff, act,
                             off(a.xb), off(a.hb), rows));
  } else {
    GAUNTLET_TRY(ops_.matvec(*L.w_gate.buffer, L.w_gate.type, matvec_, s.n_embd, s.n_ff, act,
                             off(a.xb), off(a.hb), rows));
    GAUNTLET_TRY(ops_.matvec(*L.w_up.buffer, L.w_up.type, matvec_, s.n_embd, s.n_ff, act, off(a.xb),
                             off(a.hb2), rows));
  }
  GAUNTLET_TRY(ops_.elementwise(act, Elementwise::swiglu, {s.n_ff, off(a.hb), off(a.hb2)}));
  // x += W_down . h: the residual add is the matvec's own write.
  return ops_.matvec(*L.w_down.buffer, L.w_down.type, matvec_, s.n_ff, s.n_embd, act, off(a.hb),
                     off(a.x), rows, true);
}

core::Status DeviceDecoder::run_layer(uint32_t l) {
  const auto& s = model_.shape;
  const auto& L = layers_[l];
  const auto& a = layout_;
  const uint32_t hd = s.head_dim(), n_q = s.n_embd_q(), n_kv = s.n_embd_kv();
  backends::Buffer& act = *act_;
  auto off = [](uint64_t v) { return static_cast<uint32_t>(v); };

  GAUNTLET_TRY(ops_.rmsnorm(act, *L.attn_norm.buffer, matvec_.workgroup,
                            {s.n_embd, off(a.x), off(a.xb), s.rms_eps}));
  GAUNTLET_TRY(project_qkv(L));
  const uint64_t layer_off = uint64_t{l} * context_ * n_kv;
  const RopeParams rope{off(a.q),
                        off(a.k),
                        off(a.v),
                        n_q / 2,
                        n_kv / 2,
                        hd,
                        s.rope_dims(),
                        off(layer_off + uint64_t{pos_} * n_kv),
                        static_cast<uint32_t>(s.traits().rope)};
  GAUNTLET_TRY(ops_.rope_kv(act, *k_cache_, *v_cache_, *rope_table_, config_.kv, rope));
  const AttentionParams att{off(a.q),
                            off(a.xb2),
                            s.n_head / s.n_head_kv,
                            n_kv,
                            off(layer_off),
                            pos_ + 1,
                            1.0f / std::sqrt(static_cast<float>(hd))};
  GAUNTLET_TRY(ops_.attention(act, *k_cache_, *v_cache_, attention_, s.n_head, hd, context_,
                              config_.kv, att));
  // x += Wo . attention: the residual add is the matvec's own write.
  GAUNTLET_TRY(ops_.matvec(*L.wo.buffer, L.wo.type, matvec_, n_q, s.n_embd, act, off(a.xb2),
                           off(a.x), kMatvecRows, true));
  return feed_forward(L);
}

core::Result<std::span<const float>> DeviceDecoder::step(int32_t token) {
  const auto& s = model_.shape;
  if (token < 0 || static_cast<uint32_t>(token) >= s.n_vocab) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "token id " + std::to_string(token) + " is outside the vocabulary 0.." +
                                std::to_string(s.n_vocab - 1));
  }
  if (pos_ >= context_) {
    return core::make_error(
        core::ErrorKind::invalid_argument,
        "position " + std::to_string(pos_) + " is past the context of " + std::to_string(context_));
  }
  // cos/sin of this position's angles, computed in double as the reference does.
  model::rope_table(s, rope_factors_, pos_, table_);
  GAUNTLET_TRY(device_.upload(*rope_table_, std::as_bytes(std::span<const float>(table_))));
  const auto& a = layout_;
  GAUNTLET_TRY(ops_.embed(*token_embd_.buffer, token_embd_.type, s.n_embd,
                          static_cast<uint32_t>(token), *act_, static_cast<uint32_t>(a.x)));
  for (uint32_t l = 0; l < s.n_layer; ++l) GAUNTLET_TRY(run_layer(l));
  GAUNTLET_TRY(
      ops_.rmsnorm(*act_, *output_norm_.buffer, matvec_.workgroup,
                   {s.n_embd, static_cast<uint32_t>(a.x), static_cast<uint32_t>(a.xb), s.rms_eps}));
  GAUNTLET_TRY(ops_.matvec(*output_.buffer, output_.type, matvec_, s.n_embd, s.n_vocab, *act_,
                           static_cast<uint32_t>(a.xb), static_cast<uint32_t>(a.logits),
                           kMatvecRows));
  GAUNTLET_TRY(device_.download(*act_, std::as_writable_bytes(std::span<float>(logits_)),
                                a.logits * sizeof(float)));
  ++pos_;
  return std::span<const float>(logits_);
}

}  // namespace gauntlet::engine::device
