// validate_shape: whether a shape's dimensions make a model llama.cpp loads and the kernels hold.
#include <string>
#include <utility>

#include "engine/model/shape.h"
#include "engine/model/shape_error.h"
#include "engine/model/tokenizer_meta.h"

namespace gauntlet::engine::model {

using detail::bad_shape;

namespace {

// The expert counts llama.cpp's loaders demand (load_hparams: n_expert_used <= n_expert, and
// each MoE graph throws without experts), and what the router kernels hold.
core::Status validate_experts(const ModelShape& s) {
  const Architecture& a = s.traits();
  if (!s.moe()) {
    if (a.requires_experts) {
      return bad_shape(std::string(a.name) + " needs experts: n_expert must be positive");
    }
    if (s.n_expert_used != 0) return bad_shape("n_expert_used is set but n_expert is 0");
    return core::Status::ok();
  }
  if (!a.experts) {
    return bad_shape(std::string(a.name) + " has no mixture of experts (n_expert " +
                     std::to_string(s.n_expert) + ")");
  }
  if (s.n_expert > kMaxExperts) {
    return bad_shape("n_expert " + std::to_string(s.n_expert) + " is above the " +
                     std::to_string(kMaxExperts) + " experts the router kernels hold");
  }
  if (s.n_expert_used == 0 || s.n_expert_used > s.n_expert) {
    return bad_shape("n_expert_used " + std::to_string(s.n_expert_used) + " must be within 1.." +
                     std::to_string(s.n_expert) + " (n_expert)");
  }
  if (s.n_expert_used > kMaxExpertsUsed) {
    return bad_shape("n_expert_used " + std::to_string(s.n_expert_used) + " is above the " +
                     std::to_string(kMaxExpertsUsed) + " experts per token the kernels hold");
  }
  if (s.n_layer_dense_lead != 0 && (!a.dense_lead || s.n_layer_dense_lead >= s.n_layer)) {
    return bad_shape("leading_dense_block_count " + std::to_string(s.n_layer_dense_lead) +
                     " must be below n_layer " + std::to_string(s.n_layer) +
                     ", and only lfm2moe and laguna have leading dense layers");
  }
  if (s.expert_gating_func > 3 || (s.expert_gating_func != 0 && !a.gating_key)) {
    return bad_shape("expert_gating_func " + std::to_string(s.expert_gating_func) +
                     " is not 1 (softmax), 2 (sigmoid) or 3, or the architecture reads none");
  }
  if (a.expert_biases && s.fused_expert_gate_up) {
    return bad_shape(std::string(a.name) +
                     " has separate gate and up expert stacks (llama.cpp's loader creates no "
                     "ffn_gate_up_exps for it)");
  }
  constexpr uint32_t kBlock = 32;
  if (s.expert_ff() == 0 || s.expert_ff() % kBlock != 0 ||
      (s.shared_expert() && s.shared_expert_ff() % kBlock != 0)) {
    return bad_shape("the experts' widths (n_ff_exp " + std::to_string(s.expert_ff()) +
                     ", n_ff_shexp " +
                     std::to_string(s.shared_expert() ? s.shared_expert_ff() : 0) +
                     ") must be positive multiples of " + std::to_string(kBlock));
  }
  return core::Status::ok();
}

// gemma4's per-layer arrays (one value per layer, llama.cpp's get_key_or_arr / get_arr) and its
// shared KV (each shared layer reads a layer of its own kind and shape); errors name the key.
core::Status validate_per_layer_attention(const ModelShape& s) {
  const std::pair<const char*, size_t> arrays[] = {
      {"attention.sliding_window_pattern", s.swa_layers.size()},
      {"attention.head_count", s.layer_heads.size()},
      {"attention.head_count_kv", s.layer_heads_kv.size()},
      {"feed_forward_length", s.layer_ff.size()}};
  for (const auto& [key, size] : arrays) {
    if (size != 0 && size != s.n_layer) {
      return bad_shape(std::string(key) + " has " + std::to_string(size) + " values for " +
                       std::to_string(s.n_layer) + " layers");
    }
  }
  if (s.shared_kv_layers > 0 && !s.traits().per_layer_attention) {
    return bad_shape(std::string(s.traits().name) + " has no shared KV layers");
  }
  if (s.shared_kv_layers + 2 > s.n_layer && s.shared_kv_layers > 0) {
    return bad_shape("attention.shared_kv_layers " + std::to_string(s.shared_kv_layers) +
                     " leaves fewer than 2 of the " + std::to_string(s.n_layer) +
                     " layers storing KV (llama.cpp asserts n_layer_kv_from_start >= 2)");
  }
  if (s.per_layer_embeddings() &&
      (!s.traits().per_layer_attention || s.n_embd_per_layer % 32 != 0)) {
    return bad_shape("embedding_length_per_layer_input " + std::to_string(s.n_embd_per_layer) +
                     " must be a multiple of 32, and only gemma4 has per-layer embeddings");
  }
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string at = " of layer " + std::to_string(l);
    // nemotron_h's Mamba2 and attention layers have no feed-forward (feed_forward_length 0).
    const bool feeds_forward = !s.traits().one_branch_layers || s.mixer(l) == Mixer::none;
    if (feeds_forward && (s.ff(l) == 0 || s.ff(l) % 32 != 0)) {
      return bad_shape("feed_forward_length " + std::to_string(s.ff(l)) + at +
                       " must be a positive multiple of 32");
    }
    if (!s.attends(l)) continue;  // no attention heads
    if (s.heads(l) == 0 || s.heads_kv(l) == 0 || s.heads(l) % s.heads_kv(l) != 0) {
      return bad_shape("attention.head_count " + std::to_string(s.heads(l)) + at +
                       " is not a positive multiple of attention.head_count_kv " +
                       std::to_string(s.heads_kv(l)));
    }
    if (s.head_dim(l) % 2 != 0 || s.rope_dims(l) % 2 != 0 || s.rope_dims(l) > s.head_dim(l) ||
        s.n_embd_q(l) % 32 != 0) {
      return bad_shape("the head dimension " + std::to_string(s.head_dim(l)) + at +
                       " (attention.key_length_swa / key_length) must be even, hold its rotary "
                       "dimension " +
                       std::to_string(s.rope_dims(l)) +
                       ", and make whole 32-element rows with its heads");
    }
    const uint32_t src = s.kv_layer(l);
    if (src != l && (s.swa_layer(src) != s.swa_layer(l) || s.n_embd_kv(src) != s.n_embd_kv(l) ||
                     s.head_dim(src) != s.head_dim(l))) {
      return bad_shape("attention.shared_kv_layers " + std::to_string(s.shared_kv_layers) +
                       ": layer " + std::to_string(l) + " would read layer " + std::to_string(src) +
                       "'s KV, which is of another kind or shape");
    }
  }
  return core::Status::ok();
}

// Whether any layer has a feed-forward (every layer but nemotron_h's Mamba2 and attention ones).
bool feeds_forward_somewhere(const ModelShape& s) {
  if (!s.traits().one_branch_layers) return true;
  for (uint32_t l = 0; l < s.n_layer; ++l) {
    if (s.mixer(l) == Mixer::none) return true;
  }
  return false;
}

// A recurrent block's ssm.* dimensions, each named where it is 0.
core::Status ssm_dims_positive(const ModelShape& s) {
  const std::pair<const char*, uint32_t> dims[] = {{"ssm.state_size", s.ssm_state},
                                                   {"ssm.group_count", s.ssm_groups},
                                                   {"ssm.time_step_rank", s.ssm_heads},
                                                   {"ssm.inner_size", s.ssm_inner}};
  for (const auto& [name, value] : dims) {
    if (value == 0) return bad_shape(std::string(name) + " must be positive");
  }
  return core::Status::ok();
}

// Mamba2's dimensions, as llama.cpp's build_mamba2_layer asserts them (d_inner a multiple of the
// heads and of the groups; ggml_ssm_scan: the heads a multiple of the groups) and the conv kernels
// take them (2..kSsmConvWidth taps).
core::Status validate_mamba2(const ModelShape& s) {
  GAUNTLET_TRY(ssm_dims_positive(s));
  if (s.ssm_conv < 2 || s.ssm_conv > kSsmConvWidth) {
    return bad_shape("ssm.conv_kernel " + std::to_string(s.ssm_conv) +
                     " is not a conv1d width the recurrent kernels support (2.." +
                     std::to_string(kSsmConvWidth) + ")");
  }
  if (s.ssm_heads % s.ssm_groups != 0 || s.ssm_inner % s.ssm_heads != 0) {
    return bad_shape("ssm.group_count " + std::to_string(s.ssm_groups) +
                     " must divide ssm.time_step_rank (the heads) " + std::to_string(s.ssm_heads) +
                     ", and the heads ssm.inner_size " + std::to_string(s.ssm_inner));
  }
  // granitehybrid's loader asserts 2 * n_embd == d_inner.
  if (s.traits().granite_multipliers && s.ssm_inner != 2 * s.n_embd) {
    return bad_shape("ssm.inner_size " + std::to_string(s.ssm_inner) + " must be 2 n_embd (" +
                     std::to_string(2 * s.n_embd) + ") in granitehybrid");
  }
  if (s.ssm_state > kMaxSsmState || (s.ssm_inner / s.ssm_groups) % 32 != 0) {
    return bad_shape("ssm.state_size " + std::to_string(s.ssm_state) + " must be at most " +
                     std::to_string(kMaxSsmState) + ", and ssm.inner_size / ssm.group_count " +
                     std::to_string(s.ssm_inner / s.ssm_groups) + " a multiple of 32");
  }
  return core::Status::ok();
}

// The gated DeltaNet's dimensions, as llama.cpp's qwen35 graph needs them (src/models/qwen35.cpp:
// head_v_dim = inner_size / time_step_rank must equal state_size, the value heads a multiple of
// the key heads) and the recurrent kernels take them (conv width 4, heads up to kMaxSsmState).
core::Status validate_recurrent(const ModelShape& s) {
  // lfm2's short convolution: llama.cpp asserts n_shortconv_l_cache > 1; the conv kernels hold
  // kSsmConvWidth taps.
  if (s.traits().short_conv && (s.ssm_conv < 2 || s.ssm_conv > kSsmConvWidth)) {
    return bad_shape("shortconv.l_cache " + std::to_string(s.ssm_conv) + " is not within 2.." +
                     std::to_string(kSsmConvWidth));
  }
  if (s.traits().mamba2) return validate_mamba2(s);
  if (!s.traits().gated_delta_net) return core::Status::ok();
  if (s.ssm_conv != kSsmConvWidth) {
    return bad_shape("ssm.conv_kernel " + std::to_string(s.ssm_conv) +
                     " is not a conv1d width the recurrent kernels support (" +
                     std::to_string(kSsmConvWidth) + ")");
  }
  GAUNTLET_TRY(ssm_dims_positive(s));
  if (s.ssm_heads % s.ssm_groups != 0) {
    return bad_shape("ssm.time_step_rank (value heads) " + std::to_string(s.ssm_heads) +
                     " is not a multiple of ssm.group_count (key heads) " +
                     std::to_string(s.ssm_groups));
  }
  if (s.ssm_inner != s.ssm_heads * s.ssm_state) {
    return bad_shape("ssm.inner_size " + std::to_string(s.ssm_inner) +
                     " is not ssm.time_step_rank " + std::to_string(s.ssm_heads) +
                     " x ssm.state_size " + std::to_string(s.ssm_state) +
                     " (the delta rule's value heads are as wide as its key heads)");
  }
  if (s.ssm_state > kMaxSsmState || s.ssm_state % 16 != 0) {
    return bad_shape("ssm.state_size " + std::to_string(s.ssm_state) +
                     " must be a multiple of 16 up to " + std::to_string(kMaxSsmState));
  }
  if (s.n_layer < s.attention_interval()) {
    return bad_shape("n_layer " + std::to_string(s.n_layer) +
                     " has no attention layer (every full_attention_interval " +
                     std::to_string(s.attention_interval()) + "-th layer is one)");
  }
  return core::Status::ok();
}

// IMROPE's sections (ggml-cpu's rope_multi asserts that the first three are not all 0; rope_table
// says which pairs they turn).
core::Status validate_rope_sections(const ModelShape& s) {
  const auto& r = s.rope_sections;
  const uint32_t pairs = r[0] + r[1] + r[2] + r[3];
  if (s.traits().rope_sections && (r[0] + r[1] + r[2] == 0 || pairs > s.rope_dims() / 2)) {
    return bad_shape(
        "rope.dimension_sections [" + std::to_string(r[0]) + ", " + std::to_string(r[1]) + ", " +
        std::to_string(r[2]) + ", " + std::to_string(r[3]) +
        "] must name rotary pairs, at most rope_dim / 2 = " + std::to_string(s.rope_dims() / 2));
  }
  return core::Status::ok();
}

}  // namespace

core::Status validate_shape(const ModelShape& s) {
  const std::pair<const char*, uint32_t> dims[] = {
      {"n_embd", s.n_embd},       {"n_layer", s.n_layer}, {"n_head", s.n_head},
      {"n_head_kv", s.n_head_kv}, {"n_ff", s.n_ff},       {"n_vocab", s.n_vocab},
      {"context", s.context}};
  for (const auto& [name, value] : dims) {
    // A nemotron_h model may have no feed-forward layer (its feed_forward_length all 0).
    if (value == 0 && name == std::string("n_ff") && !feeds_forward_somewhere(s)) continue;
    if (value == 0) return bad_shape(std::string(name) + " must be positive");
  }
  if (s.traits().always_tied && !s.tied_output) {
    return bad_shape(std::string(s.traits().name) +
                     " has no output.weight: its logits use token_embd (llama.cpp's loader "
                     "refuses a file with one)");
  }
  if (s.traits().output_required && s.tied_output) {
    return bad_shape(std::string(s.traits().name) +
                     " needs an output.weight: llama.cpp's loader requires one (tied=0)");
  }
  if (s.traits().q_width_is_embd && s.n_embd_q() != s.n_embd) {
    return bad_shape(std::string(s.traits().name) + "'s n_head * head_dim " +
                     std::to_string(s.n_embd_q()) + " must be n_embd " + std::to_string(s.n_embd) +
                     " (llama.cpp's loader sizes attn_q and attn_output n_embd wide)");
  }
  if (s.traits().rotates_whole_head && s.rope_dims() != s.head_dim()) {
    return bad_shape(std::string(s.traits().name) + "'s rope_dim " + std::to_string(s.rope_dims()) +
                     " must be the head dimension " + std::to_string(s.head_dim()) +
                     " (llama.cpp's loader refuses another n_rot)");
  }
  if (s.key_length == 0 && s.n_embd % s.n_head != 0) {
    return bad_shape("n_embd " + std::to_string(s.n_embd) + " is not a multiple of n_head " +
                     std::to_string(s.n_head) + " (and no key_length gives the head dimension)");
  }
  if (s.n_head % s.n_head_kv != 0) {
    return bad_shape("n_head " + std::to_string(s.n_head) + " is not a multiple of n_head_kv " +
                     std::to_string(s.n_head_kv));
  }
  if (s.head_dim() % 2 != 0)
    return bad_shape("the head dimension must be even for rotary embedding");
  if (s.rope_dims() % 2 != 0 || s.rope_dims() > s.head_dim()) {
    return bad_shape("rope_dim " + std::to_string(s.rope_dims()) +
                     " must be even and at most the head dimension " +
                     std::to_string(s.head_dim()));
  }
  // Every quantized type has 32-element blocks or falls back to one (file_type.cpp).
  constexpr uint32_t kBlock = 32;
  if (s.n_embd % kBlock != 0 || s.n_ff % kBlock != 0 || s.n_embd_q() % kBlock != 0) {
    return bad_shape("n_embd " + std::to_string(s.n_embd) + ", n_ff " + std::to_string(s.n_ff) +
                     " and n_head * head_dim " + std::to_string(s.n_embd_q()) +
                     " must be multiples of " + std::to_string(kBlock));
  }
  if (s.n_vocab < kMinimalTokenizerVocab) {
    return bad_shape("n_vocab " + std::to_string(s.n_vocab) + " is below " +
                     std::to_string(kMinimalTokenizerVocab) +
                     " (the smallest vocabulary with the byte token for a newline)");
  }
  if (!(s.rope_freq_base > 0) || !(s.rms_eps > 0)) {
    return bad_shape("rope_freq_base and rms_eps must be positive");
  }
  GAUNTLET_TRY(validate_recurrent(s));
  GAUNTLET_TRY(validate_rope_sections(s));
  if (!s.traits().granite_multipliers &&
      (s.embedding_scale != 0 || s.residual_scale != 0 || s.attention_scale != 0 ||
       s.logit_scale != 0 || !s.rope)) {
    return bad_shape(std::string(s.traits().name) +
                     " has none of Granite's multipliers and always turns RoPE");
  }
  if (s.attn_temp_scale != 0 && !s.traits().attn_temperature) {
    return bad_shape(std::string(s.traits().name) +
                     " has no attention temperature (attn_temp_scale " +
                     std::to_string(s.attn_temp_scale) + ")");
  }
  if (!s.traits().yarn_keys &&
      (s.yarn_beta_fast != 32.0f || s.yarn_beta_slow != 1.0f || s.yarn_log_mul != 0.0f)) {
    return bad_shape(std::string(s.traits().name) +
                     " reads no YaRN beta or log multiplier (llama.cpp's loader ignores them)");
  }
  // src/models/qwen35.cpp's load_block_mtp: one MTP block (build_mtp asserts n_layer_nextn == 1).
  if (s.n_layer_nextn != 0 && (s.arch != Arch::qwen35 || s.n_layer_nextn != 1)) {
    return bad_shape("nextn_predict_layers " + std::to_string(s.n_layer_nextn) + ": only " +
                     "qwen35's single MTP block is read (" + std::string(s.traits().name) + ")");
  }
  if (s.n_deepstack_layers != 0 && !s.traits().deepstack) {
    return bad_shape(std::string(s.traits().name) +
                     " has no deepstack layers (n_deepstack_layers " +
                     std::to_string(s.n_deepstack_layers) + ")");
  }
  // src/models/qwen3vl.cpp adds the slices after the last layer has kept only the output rows
  // (inp_out_ids), and ggml_add then asserts (ggml_can_repeat) for a prompt of several tokens:
  // llama.cpp 3.22.1 aborted on a 2-layer file with n_deepstack_layers 2.
  if (s.n_deepstack_layers >= s.n_layer && s.n_deepstack_layers != 0) {
    return bad_shape("n_deepstack_layers " + std::to_string(s.n_deepstack_layers) +
                     " must be below n_layer " + std::to_string(s.n_layer) +
                     " (llama.cpp's qwen3vl graph cannot add a slice after the last layer)");
  }
  GAUNTLET_TRY(validate_per_layer_attention(s));
  return validate_experts(s);
}

}  // namespace gauntlet::engine::model
