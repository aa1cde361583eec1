#pragma once
// The tensors of one layer that a decoder binds, written once: each slot's field and its tensor's
// name after "blk.N." (llama.cpp's LLM_TENSOR_NAMES, src/llama-arch.cpp). The host reference's
// weights (views into the mapped file) and the device decoder's (device buffers) are both
// LayerSlots of their own handle, bound by bind_layer from a lookup by name, so that a new tensor
// is one line of this table. A slot the layer has no tensor for stays an empty handle. The names
// and dimensions a file holds (what the writer, the planner and the loader's checks read) are
// model_tensors's.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/model/shape.h"

// X(field, tensor name)
#define GAUNTLET_LAYER_SLOTS(X)                                                                 \
  X(attn_norm, "attn_norm.weight")                                                              \
  X(wq, "attn_q.weight")                                                                        \
  X(wk, "attn_k.weight")                                                                        \
  X(wv, "attn_v.weight")                                                                        \
  X(wqkv, "attn_qkv.weight") /* fused Q/K/V (phi3) */                                           \
  X(bq, "attn_q.bias")       /* Q/K/V biases (qwen2) */                                         \
  X(bk, "attn_k.bias")                                                                          \
  X(bv, "attn_v.bias")                                                                          \
  X(q_norm, "attn_q_norm.weight") /* per-head Q/K RMSNorm */                                    \
  X(k_norm, "attn_k_norm.weight")                                                               \
  X(wo, "attn_output.weight")                                                                   \
  X(bo, "attn_output.bias")                       /* gpt-oss */                                 \
  X(sinks, "attn_sinks.weight")                   /* gpt-oss: one logit per head */             \
  X(attn_gate, "attn_gate.weight")                /* laguna's per-head gate {n_embd, heads} */  \
  X(post_attn_norm, "post_attention_norm.weight") /* gemma's norms of each branch */            \
  X(post_ffn_norm, "post_ffw_norm.weight")                                                      \
  X(out_scale, "layer_output_scale.weight") /* gemma4: the layer's output times it */           \
  X(ffn_norm, "ffn_norm.weight")                                                                \
  X(w_gate, "ffn_gate.weight")                                                                  \
  X(w_up, "ffn_up.weight")                                                                      \
  X(w_down, "ffn_down.weight")                                                                  \
  /* A mixture of experts: the router, the stacks, the shared expert and its gate vector. */    \
  X(router, "ffn_gate_inp.weight")                                                              \
  X(gate_exps, "ffn_gate_exps.weight")                                                          \
  X(up_exps, "ffn_up_exps.weight")                                                              \
  X(down_exps, "ffn_down_exps.weight")                                                          \
  X(gate_up_exps, "ffn_gate_up_exps.weight") /* gate rows first per expert */                   \
  X(shexp_gate, "ffn_gate_inp_shexp.weight")                                                    \
  X(w_gate_shexp, "ffn_gate_shexp.weight")                                                      \
  X(w_up_shexp, "ffn_up_shexp.weight")                                                          \
  X(w_down_shexp, "ffn_down_shexp.weight")                                                      \
  /* gpt-oss: the router's bias and the experts' bias rows ({n_out, n_expert}). */              \
  X(router_b, "ffn_gate_inp.bias")                                                              \
  X(gate_exps_b, "ffn_gate_exps.bias")                                                          \
  X(up_exps_b, "ffn_up_exps.bias")                                                              \
  X(down_exps_b, "ffn_down_exps.bias")                                                          \
  X(selection_bias, "exp_probs_b.bias") /* the experts' selection bias */                       \
  /* A recurrent block: qwen35's gated DeltaNet (attn_qkv into the conv's channels, the */      \
  /* output gate z, the conv1d, dt's bias, A, beta's and alpha's projections, the gated */      \
  /* norm, the output); Mamba2's conv bias and D; lfm2's and Mamba2's by their names */         \
  /* (slot_tensor_name). */                                                                     \
  X(ssm_qkv, "attn_qkv.weight")                                                                 \
  X(ssm_gate, "attn_gate.weight")                                                               \
  X(ssm_conv1d, "ssm_conv1d.weight")                                                            \
  X(ssm_conv_bias, "ssm_conv1d.bias")                                                           \
  X(ssm_dt_bias, "ssm_dt.bias")                                                                 \
  X(ssm_a, "ssm_a")                                                                             \
  X(ssm_d, "ssm_d")                                                                             \
  X(ssm_beta, "ssm_beta.weight")                                                                \
  X(ssm_alpha, "ssm_alpha.weight")                                                              \
  X(ssm_norm, "ssm_norm.weight")                                                                \
  X(ssm_out, "ssm_out.weight")                                                                  \
  /* gemma4's per-layer embedding (the gate into n_embd_per_layer, the projection back, */      \
  /* its norm) and its 26B-A4B layer (the router's input scale, the per-expert output */        \
  /* scale, the experts' pre-norm, the post-norms of the dense (1) and experts' (2) branch). */ \
  X(ple_gate, "inp_gate.weight")                                                                \
  X(ple_proj, "proj.weight")                                                                    \
  X(ple_post_norm, "post_norm.weight")                                                          \
  X(router_scale, "ffn_gate_inp.scale")                                                         \
  X(down_exps_scale, "ffn_down_exps.scale")                                                     \
  X(pre_ffn_norm_2, "pre_ffw_norm_2.weight")                                                    \
  X(post_ffn_norm_1, "post_ffw_norm_1.weight")                                                  \
  X(post_ffn_norm_2, "post_ffw_norm_2.weight")

namespace gauntlet::engine::model {

template <class Handle>
struct LayerSlots {
#define GAUNTLET_SLOT_FIELD(field, name) Handle field{};
  GAUNTLET_LAYER_SLOTS(GAUNTLET_SLOT_FIELD)
#undef GAUNTLET_SLOT_FIELD
};

// A slot's tensor name in a file of `shape`: the table's, or the architecture's own where it
// names the same role otherwise (the norm before the feed-forward; lfm2's short-convolution
// in_proj, conv and out_proj; Mamba2's ssm_in, which holds z, x, B, C and dt).
std::string slot_tensor_name(const ModelShape& shape, std::string_view field,
                             std::string_view name);

// Layer `layer`'s slots, each find("blk.<layer>.<name>"): a handle, empty where the file (or the
// share) has no such tensor.
template <class Handle, class Find>
LayerSlots<Handle> bind_layer(const ModelShape& shape, uint32_t layer, Find&& find) {
  LayerSlots<Handle> slots;
  const std::string prefix = "blk." + std::to_string(layer) + ".";
#define GAUNTLET_SLOT_BIND(field, name) \
  slots.field = find(prefix + slot_tensor_name(shape, #field, name));
  GAUNTLET_LAYER_SLOTS(GAUNTLET_SLOT_BIND)
#undef GAUNTLET_SLOT_BIND
  return slots;
}

}  // namespace gauntlet::engine::model
