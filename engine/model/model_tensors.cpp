// The tensors a model of a shape holds, with the names and dimensions llama.cpp's loaders create,
// and the parameter counts that follow from them.
#include <algorithm>
#include <set>

#include "engine/model/shape.h"

namespace gauntlet::engine::model {

uint64_t TensorDesc::n_elements() const {
  uint64_t n = 1;
  for (uint64_t d : ne) n *= d;
  return n;
}

uint64_t TensorDesc::bytes() const {
  return n_elements() / block_elements(type) * block_bytes(type);
}

namespace {

// A layer's mixture of experts, names and dimensions as src/models/qwen2moe.cpp, qwen3moe.cpp and
// llama.cpp create them: the router (never quantized), the experts' gate, up and down stacked as
// 3-D tensors {n_in, n_out, n_expert}, and qwen2moe's shared expert with its gate vector.
template <typename Add>
void add_experts(Add& add, const ModelShape& s, const std::string& p, uint32_t l) {
  const uint64_t embd = s.n_embd, ff = s.expert_ff(), n = s.n_expert;
  add(p + "ffn_gate_inp.weight", {embd, n}, l);
  // nemotron_h_moe: the router's selection bias, ungated experts and an ungated shared expert.
  if (s.traits().ungated_experts) {
    add(p + "exp_probs_b.bias", {n}, l);
    add(p + "ffn_down_exps.weight", {ff, embd, n}, l);
    add(p + "ffn_up_exps.weight", {embd, ff, n}, l);
    const uint64_t sh = s.shared_expert_ff();
    add(p + "ffn_down_shexp.weight", {sh, embd}, l);
    add(p + "ffn_up_shexp.weight", {embd, sh}, l);
    return;
  }
  if (s.fused_expert_gate_up) {
    add(p + "ffn_gate_up_exps.weight", {embd, 2 * ff, n}, l);
    add(p + "ffn_down_exps.weight", {ff, embd, n}, l);
  } else {
    add(p + "ffn_gate_exps.weight", {embd, ff, n}, l);
    add(p + "ffn_down_exps.weight", {ff, embd, n}, l);
    add(p + "ffn_up_exps.weight", {embd, ff, n}, l);
  }
  // lfm2moe: the experts' selection bias (ffn_exp_probs_b, one value per expert).
  if (s.traits().expert_selection_bias) add(p + "exp_probs_b.bias", {n}, l);
  // gpt-oss (src/models/openai-moe.cpp): the router's bias and one bias row per expert.
  if (s.traits().expert_biases) {
    add(p + "ffn_gate_inp.bias", {n}, l);
    add(p + "ffn_gate_exps.bias", {ff, n}, l);
    add(p + "ffn_down_exps.bias", {embd, n}, l);
    add(p + "ffn_up_exps.bias", {ff, n}, l);
  }
  if (!s.shared_expert()) return;
  const uint64_t sh = s.shared_expert_ff();
  if (!s.traits().shared_expert_unscaled) add(p + "ffn_gate_inp_shexp.weight", {embd}, l);
  add(p + "ffn_gate_shexp.weight", {embd, sh}, l);
  add(p + "ffn_down_shexp.weight", {sh, embd}, l);
  add(p + "ffn_up_shexp.weight", {embd, sh}, l);
}

// A gated DeltaNet layer, names and dimensions as src/models/qwen35.cpp creates them
// (load_block_trunk's recurrent branch): the Q/K/V projection into the conv's channels, the
// output gate z, the conv1d (kernel width x channels), dt's bias and A (-exp(A_log)) per value
// head, beta's and alpha's projections, the gated norm over one value head, the output.
template <typename Add>
void add_gated_delta_net(Add& add, const ModelShape& s, const std::string& p, uint32_t l) {
  const uint64_t embd = s.n_embd, inner = s.ssm_inner, heads = s.ssm_heads;
  add(p + "attn_qkv.weight", {embd, s.ssm_channels()}, l);
  add(p + "attn_gate.weight", {embd, inner}, l);
  add(p + "ssm_conv1d.weight", {s.ssm_conv, s.ssm_channels()}, l);
  add(p + "ssm_dt.bias", {heads}, l);
  add(p + "ssm_a", {heads}, l);
  add(p + "ssm_beta.weight", {embd, heads}, l);
  add(p + "ssm_alpha.weight", {embd, heads}, l);
  add(p + "ssm_norm.weight", {s.ssm_head_dim()}, l);
  add(p + "ssm_out.weight", {inner, embd}, l);
}

// qwen35's MTP block after the trunk, as src/models/qwen35.cpp's load_block_mtp creates it: a
// full-attention layer with its gated query (Q and its gate in one projection), Q/K norms and a
// SwiGLU feed-forward, then the nextn projection of [embedding; hidden] and its two norms (the
// optional embed_tokens and shared head are left out: the model's own are used).
template <typename Add>
void add_mtp_block(Add& add, const ModelShape& s, uint32_t l) {
  const std::string p = "blk." + std::to_string(l) + ".";
  const uint64_t embd = s.n_embd, q = s.n_embd_q(), kv = s.n_embd_kv(), ff = s.n_ff;
  add(p + "attn_norm.weight", {embd}, l);
  add(p + "post_attention_norm.weight", {embd}, l);
  add(p + "attn_q.weight", {embd, 2 * q}, l);
  add(p + "attn_k.weight", {embd, kv}, l);
  add(p + "attn_v.weight", {embd, kv}, l);
  add(p + "attn_output.weight", {q, embd}, l);
  add(p + "attn_q_norm.weight", {uint64_t{s.head_dim()}}, l);
  add(p + "attn_k_norm.weight", {uint64_t{s.head_dim()}}, l);
  add(p + "ffn_gate.weight", {embd, ff}, l);
  add(p + "ffn_down.weight", {ff, embd}, l);
  add(p + "ffn_up.weight", {embd, ff}, l);
  add(p + "nextn.eh_proj.weight", {2 * embd, embd}, l);
  add(p + "nextn.enorm.weight", {embd}, l);
  add(p + "nextn.hnorm.weight", {embd}, l);
}

// A Mamba2 block as src/models/nemotron-h.cpp creates it: ssm_in into z, x, B, C and dt; the
// conv1d's taps and bias over x, B and C; dt's bias, A (-exp(A_log)) and D per head ({1, heads},
// without a "weight" suffix); the grouped norm {inner / groups, groups}; ssm_out.
template <typename Add>
void add_mamba2(Add& add, const ModelShape& s, const std::string& p, uint32_t l) {
  const uint64_t embd = s.n_embd, inner = s.ssm_inner, heads = s.ssm_heads;
  const uint64_t groups = s.ssm_groups;
  add(p + "ssm_in.weight", {embd, s.mamba2_in_proj()}, l);
  add(p + "ssm_conv1d.weight", {s.ssm_conv, s.ssm_channels()}, l);
  add(p + "ssm_conv1d.bias", {s.ssm_channels()}, l, true);
  add(p + "ssm_dt.bias", {heads}, l);
  add(p + "ssm_a", {1, heads}, l);
  add(p + "ssm_d", {1, heads}, l);
  add(p + "ssm_norm.weight", {inner / groups, groups}, l);
  add(p + "ssm_out.weight", {inner, embd}, l);
}

// A nemotron_h layer: its attn_norm, then one branch (the Mamba2 block, attention without
// biases or norms, or the ungated feed-forward).
template <typename Add>
void add_one_branch_layer(Add& add, const ModelShape& s, const std::string& p, uint32_t l) {
  const uint64_t embd = s.n_embd;
  add(p + "attn_norm.weight", {embd}, l);
  switch (s.mixer(l)) {
    case Mixer::mamba2:
      add_mamba2(add, s, p, l);
      return;
    case Mixer::none:
      if (s.moe()) {
        add_experts(add, s, p, l);
        return;
      }
      add(p + "ffn_up.weight", {embd, s.ff(l)}, l);
      add(p + "ffn_down.weight", {s.ff(l), embd}, l);
      return;
    default:
      add(p + "attn_q.weight", {embd, s.n_embd_q(l)}, l);
      add(p + "attn_k.weight", {embd, s.n_embd_kv(l)}, l);
      add(p + "attn_v.weight", {embd, s.n_embd_kv(l)}, l);
      add(p + "attn_output.weight", {s.n_embd_q(l), embd}, l);
  }
}

// A gemma4 layer as src/models/gemma4.cpp's load_arch_tensors creates it: Q of the layer's heads
// and head size; K (and V unless the global layers take K as V) and K's norm only on the layers
// that store KV; layer_output_scale; gemma's post norms and GELU-gated feed-forward.
// An lfm2 short-convolution block as src/models/lfm2.cpp creates it: the conv's taps {l_cache,
// n_embd}, in_proj into B, C and x, out_proj.
template <typename Add>
void add_short_conv(Add& add, const ModelShape& s, const std::string& p, uint32_t l) {
  const uint64_t embd = s.n_embd;
  add(p + "shortconv.conv.weight", {s.ssm_conv, embd}, l);
  add(p + "shortconv.in_proj.weight", {embd, 3 * embd}, l);
  add(p + "shortconv.out_proj.weight", {embd, embd}, l);
}

template <typename Add>
void add_per_layer_attention(Add& add, const ModelShape& s, const std::string& p, uint32_t l) {
  const uint64_t embd = s.n_embd, q = s.n_embd_q(l), kv = s.n_embd_kv(l), hd = s.head_dim(l);
  const uint64_t ff = s.ff(l);
  add(p + "attn_norm.weight", {embd}, l);
  add(p + "attn_q.weight", {embd, q}, l);
  if (s.has_kv(l)) add(p + "attn_k.weight", {embd, kv}, l);
  if (s.has_v(l)) add(p + "attn_v.weight", {embd, kv}, l);
  add(p + "attn_output.weight", {q, embd}, l);
  add(p + "attn_q_norm.weight", {hd}, l);
  if (s.has_kv(l)) add(p + "attn_k_norm.weight", {hd}, l);
  add(p + "post_attention_norm.weight", {embd}, l);
  // Optional in llama.cpp's loader (gemma4.cpp creates it with TENSOR_NOT_REQUIRED).
  if (s.traits().layer_output_scale) add(p + "layer_output_scale.weight", {1}, l, true);
  add(p + "ffn_norm.weight", {embd}, l);
  add(p + "ffn_gate.weight", {embd, ff}, l);
  add(p + "ffn_up.weight", {embd, ff}, l);
  add(p + "ffn_down.weight", {ff, embd}, l);
  add(p + "post_ffw_norm.weight", {embd}, l);
  if (s.moe()) {
    // The 26B-A4B's experts beside the dense feed-forward: the router's input scale, the experts'
    // own pre- and post-norms, the dense branch's post-norm, and the per-expert output scale
    // (the converter's router.per_expert_scale, llama.cpp's down_exps_s).
    add_experts(add, s, p, l);
    add(p + "ffn_gate_inp.scale", {embd}, l);
    add(p + "pre_ffw_norm_2.weight", {embd}, l);
    add(p + "post_ffw_norm_1.weight", {embd}, l);
    add(p + "post_ffw_norm_2.weight", {embd}, l);
    add(p + "ffn_down_exps.scale", {uint64_t{s.n_expert}}, l);
  }
  if (s.per_layer_embeddings()) {
    const uint64_t ple = s.n_embd_per_layer;
    add(p + "inp_gate.weight", {embd, ple}, l);
    add(p + "proj.weight", {ple, embd}, l);
    add(p + "post_norm.weight", {embd}, l);
  }
}

}  // namespace

std::vector<TensorDesc> model_tensors(const ModelShape& s, FileType format,
                                      std::span<const TensorTypeOverride> overrides,
                                      bool has_imatrix) {
  const Architecture& arch = s.traits();
  const uint64_t embd = s.n_embd, q = s.n_embd_q(), kv = s.n_embd_kv(), ff = s.n_ff;
  const uint64_t hd = s.head_dim(), vocab = s.n_vocab;
  std::vector<TensorDesc> t;
  // Types are given once every tensor is known: llama.cpp's counters (i_ffn_down, ...) number
  // the tensors in its loader's order (count_places).
  std::vector<TensorPlace> places;
  auto add = [&](std::string name, std::vector<uint64_t> ne, uint32_t layer,
                 bool optional = false) {
    places.push_back({.name = name,
                      .n_cols = ne[0],
                      .n_dims = static_cast<uint32_t>(ne.size()),
                      .layer = layer,
                      .n_layer = s.n_layer,
                      .tied_output = s.tied_output,
                      .n_gqa = s.n_head_kv == 0 ? 1 : s.n_head / s.n_head_kv,
                      .n_expert = s.n_expert,
                      .has_imatrix = has_imatrix,
                      .counter = std::nullopt,
                      .n_attention_wv = std::nullopt});
    const bool one_d = ne.size() == 1 || !name.ends_with("weight");
    t.push_back({std::move(name), std::move(ne), TensorType::f32, one_d, optional});
  };
  // Names and dimensions: llama.cpp src/llama-arch.cpp (LLM_TENSOR_NAMES) and each
  // architecture's create_tensor calls in src/models/<arch>.cpp.
  auto add_attention_extras = [&](uint32_t l, const std::string& p) {
    if (arch.qkv_bias) {
      add(p + "attn_q.bias", {q}, l);
      add(p + "attn_k.bias", {kv}, l);
      add(p + "attn_v.bias", {kv}, l);
    }
    if (arch.qk_norm) {
      add(p + "attn_q_norm.weight", {hd}, l);
      add(p + "attn_k_norm.weight", {hd}, l);
    }
    add(p + "attn_output.weight", {s.n_embd_q(l), embd}, l);
    if (arch.out_bias) add(p + "attn_output.bias", {embd}, l);
    // laguna's per-head output gate (llama_model_laguna: attn_gate {n_embd, n_head(il)}).
    if (arch.attn_head_gate) add(p + "attn_gate.weight", {embd, s.heads(l)}, l);
    if (arch.attn_sinks) add(p + "attn_sinks.weight", {s.n_head}, l);
  };
  add("token_embd.weight", {embd, vocab}, 0);
  if (s.per_layer_embeddings()) {
    const uint64_t all = uint64_t{s.n_embd_per_layer} * s.n_layer;
    add("per_layer_token_embd.weight", {all, vocab}, 0);
    add("per_layer_model_proj.weight", {embd, all}, 0);
    add("per_layer_proj_norm.weight", {uint64_t{s.n_embd_per_layer}}, 0);
  }
  // llama: rope_freqs {n_rot / 2}, one tensor shared by every layer (TENSOR_DUPLICATED).
  if (s.rope_freqs) add("rope_freqs.weight", {s.rope_dims() / 2}, 0);
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    if (arch.per_layer_attention) {
      add_per_layer_attention(add, s, p, l);
      continue;
    }
    if (arch.one_branch_layers) {
      add_one_branch_layer(add, s, p, l);
      continue;
    }
    add(p + "attn_norm.weight", {embd}, l);
    if (s.mixer(l) == Mixer::short_conv) {
      add_short_conv(add, s, p, l);
    } else if (s.mixer(l) == Mixer::mamba2) {
      add_mamba2(add, s, p, l);
    } else if (s.recurrent(l)) {
      add_gated_delta_net(add, s, p, l);
    } else if (arch.fused_qkv) {
      add(p + "attn_qkv.weight", {embd, q + 2 * kv}, l);
    } else {
      add(p + "attn_q.weight", {embd, s.n_embd_q_proj(l)}, l);
      add(p + "attn_k.weight", {embd, s.n_embd_kv(l)}, l);
      add(p + "attn_v.weight", {embd, s.n_embd_kv(l)}, l);
    }
    if (!s.recurrent(l)) add_attention_extras(l, p);
    add(p + std::string(arch.ffn_norm) + ".weight", {embd}, l);
    if (s.moe_layer(l)) {
      add_experts(add, s, p, l);
    } else if (arch.fused_gate_up) {
      add(p + "ffn_up.weight", {embd, 2 * ff}, l);
    } else {
      add(p + "ffn_gate.weight", {embd, ff}, l);
      add(p + "ffn_up.weight", {embd, ff}, l);
    }
    if (!s.moe_layer(l)) add(p + "ffn_down.weight", {ff, embd}, l);
    if (arch.post_norms) {
      add(p + "post_attention_norm.weight", {embd}, l);
      add(p + "post_ffw_norm.weight", {embd}, l);
    }
  }
  for (uint32_t l = s.n_layer; l < s.n_layer + s.n_layer_nextn; ++l) add_mtp_block(add, s, l);
  add(arch.output_norm, {embd}, 0);
  if (!s.tied_output) add("output.weight", {embd, vocab}, 0);
  count_places(places, format, overrides);
  for (size_t i = 0; i < t.size(); ++i) t[i].type = tensor_type_for(format, places[i], overrides);
  return t;
}

bool is_output_tensor(const std::string& name) {
  return name == "output.weight" || name == "output_norm.weight" ||
         name == "token_embd_norm.weight";
}

std::vector<TensorType> types_in(std::span<const TensorDesc> tensors) {
  std::vector<TensorType> types;
  for (const auto& t : all_tensor_types()) {
    for (const auto& d : tensors) {
      if (d.type == t.type) {
        types.push_back(t.type);
        break;
      }
    }
  }
  return types;
}

uint64_t parameter_count(const ModelShape& shape) {
  uint64_t n = 0;
  for (const auto& t : model_tensors(shape, FileType::f32)) {
    // RoPE factors are computed from the configuration, not trained.
    if (t.name != "rope_freqs.weight") n += t.n_elements();
  }
  return n;
}

uint64_t active_parameter_count(const ModelShape& shape) {
  const uint64_t idle_experts = shape.n_expert - shape.n_expert_used;
  const uint64_t matrices = shape.traits().ungated_experts ? 2 : 3;
  const uint64_t per_expert = matrices * shape.n_embd * shape.expert_ff();
  return parameter_count(shape) - uint64_t{shape.moe_layers()} * idle_experts * per_expert;
}

}  // namespace gauntlet::engine::model
