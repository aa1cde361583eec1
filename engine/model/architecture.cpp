#include "engine/model/architecture.h"

namespace gauntlet::engine::model {

namespace {

// Rotary styles: llama.cpp src/llama-model.cpp, llama_model_rope_type (LLM_ARCH_LLAMA is NORM;
// QWEN2, QWEN3, PHI3, GEMMA2, GEMMA3, QWEN2MOE, QWEN3MOE and OPENAI_MOE are NEOX).
constexpr Architecture kArchitectures[] = {
    // src/models/llama.cpp: separate Q/K/V without bias, SwiGLU of ffn_gate and ffn_up
    // (LLM_FFN_SILU, LLM_FFN_PAR), rope_freqs factors where the file has them.
    // With experts (Mixtral), build_moe_ffn(..., LLM_FFN_SILU, norm_w = true, softmax gating).
    {.arch = Arch::llama,
     .name = "llama",
     .graph = "src/models/llama.cpp",
     .experts = true,
     .norm_expert_weights = true},
    // src/models/qwen2.cpp: Qcur = wq * cur + bq (likewise K and V), then RoPE.
    {.arch = Arch::qwen2,
     .name = "qwen2",
     .graph = "src/models/qwen2.cpp",
     .rope = RopeStyle::neox,
     .qkv_bias = true,
     .q_width_is_embd = true},
    // src/models/qwen3.cpp: Qcur = build_norm(Qcur, attn_q_norm, LLM_NORM_RMS) per head (and K)
    // before ggml_rope_ext; head size n_embd_head_k from attention.key_length.
    {.arch = Arch::qwen3,
     .name = "qwen3",
     .graph = "src/models/qwen3.cpp",
     .rope = RopeStyle::neox,
     .qk_norm = true},
    // src/models/phi3.cpp: build_qkv splits attn_qkv into Q, K, V; build_ffn(ffn_up, ...,
    // LLM_FFN_SWIGLU, LLM_FFN_SEQ): silu of the first half of ffn_up's output times the second.
    // llama.cpp turns Phi-3's sliding window off (load_arch_hparams: "Phi SWA is currently
    // disabled"), so every layer is global here too.
    {.arch = Arch::phi3,
     .name = "phi3",
     .graph = "src/models/phi3.cpp",
     .rope = RopeStyle::neox,
     .fused_qkv = true,
     .fused_gate_up = true,
     .q_width_is_embd = true},
    // src/models/gemma2-iswa.cpp: inpL * sqrtf(n_embd); post norms; LLM_FFN_GELU gated; final
    // logits cap * tanh(x / cap). src/llama-model.cpp (LLM_ARCH_GEMMA2): n_swa 4096 unless the
    // file says otherwise, set_swa_pattern(2) (even layers slide), attn_soft_cap on, soft-caps
    // 50 and 30 unless the file says otherwise. The query scale llama.cpp applies is
    // 1/sqrt(head_dim) (f_attention_scale; 1/sqrt(n_embd/n_head) only for the 27B).
    {.arch = Arch::gemma2,
     .name = "gemma2",
     .graph = "src/models/gemma2-iswa.cpp",
     .rope = RopeStyle::neox,
     .embed_scale = true,
     .post_norms = true,
     .always_tied = true,
     .activation = Activation::gelu,
     .attn_softcap = 50.0f,
     .final_softcap = 30.0f,
     .swa_pattern = 2,
     .default_window = 4096},
    // src/models/gemma3.cpp (the iswa graph): as gemma2 plus Q/K RMSNorm before RoPE, no
    // soft-capping; src/llama-model.cpp (LLM_ARCH_GEMMA3): set_swa_pattern(6) (five sliding
    // layers to one global), sliding layers' RoPE base 10000 and scale 1.
    {.arch = Arch::gemma3,
     .name = "gemma3",
     .graph = "src/models/gemma3.cpp",
     .rope = RopeStyle::neox,
     .qk_norm = true,
     .embed_scale = true,
     .post_norms = true,
     .activation = Activation::gelu,
     .swa_pattern = 6,
     .default_window = 512,
     .local_rope_base = 10000.0f},
    // src/models/qwen2moe.cpp: qwen2's attention (Q/K/V biases); build_moe_ffn with softmax
    // gating and norm_w = false, plus the shared expert (LLM_FFN_SILU, LLM_FFN_PAR) times
    // ggml_silu(g) / g of g = ffn_gate_inp_shexp . x, i.e. sigmoid(g). Throws without experts.
    {.arch = Arch::qwen2moe,
     .name = "qwen2moe",
     .graph = "src/models/qwen2moe.cpp",
     .rope = RopeStyle::neox,
     .qkv_bias = true,
     .output_required = true,
     .q_width_is_embd = true,
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .shared_expert = true},
    // src/models/qwen3moe.cpp: qwen3's attention (per-head Q/K norm); build_moe_ffn with softmax
    // gating and norm_w = true. Throws without experts.
    {.arch = Arch::qwen3moe,
     .name = "qwen3moe",
     .graph = "src/models/qwen3moe.cpp",
     .rope = RopeStyle::neox,
     .qk_norm = true,
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .norm_expert_weights = true},
    // src/models/openai-moe.cpp (gpt-oss): Q/K/V and output biases, per-head sinks in the softmax,
    // scale 1/sqrt(n_rot), the RMSNorm before the experts named post_attention_norm;
    // build_moe_ffn with router and expert biases, LLM_FFN_SWIGLU_OAI_MOE (alpha 1.702, limit 7
    // in src/llama-graph.cpp), norm_w = false, LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT.
    // load_arch_hparams: the window from attention.sliding_window, load_swa_pattern(ml, 2)
    // (even layers slide), the sliding layers' RoPE base and scale the model's.
    {.arch = Arch::gpt_oss,
     .name = "gpt-oss",
     .graph = "src/models/openai-moe.cpp",
     .rope = RopeStyle::neox,
     .qkv_bias = true,
     .out_bias = true,
     .attn_sinks = true,
     .ffn_norm = "post_attention_norm",
     .output_required = true,
     .rotates_whole_head = true,
     .swa_pattern = 2,
     .default_window = 128,
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .expert_gating = ExpertGating::softmax_weight,
     .expert_biases = true,
     .expert_activation = Activation::swiglu_oai,
     .swiglu_alpha = 1.702f,
     .swiglu_limit = 7.0f},
    // src/models/qwen35.cpp: attn_norm, then a gated DeltaNet (three layers in four) or a gated
    // attention layer (Q/K norm, IMROPE), the residual, post_attention_norm as the feed-forward's
    // norm, SwiGLU. src/llama-model.cpp: LLM_ARCH_QWEN35 is LLAMA_ROPE_TYPE_IMROPE (NEOX pairs).
    {.arch = Arch::qwen35,
     .name = "qwen35",
     .graph = "src/models/qwen35.cpp",
     .rope = RopeStyle::neox,
     .ffn_norm = "post_attention_norm",
     .qk_norm = true,
     .gated_delta_net = true,
     .attn_output_gate = true,
     .rope_sections = true},
    // src/models/qwen35moe.cpp: qwen35's layers (the norm before the experts is
    // post_attention_norm); build_moe_ffn with softmax gating and norm_w = true, plus the shared
    // expert times ggml_sigmoid(ffn_gate_inp_shexp . x).
    {.arch = Arch::qwen35moe,
     .name = "qwen35moe",
     .graph = "src/models/qwen35moe.cpp",
     .rope = RopeStyle::neox,
     .ffn_norm = "post_attention_norm",
     .qk_norm = true,
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .norm_expert_weights = true,
     .shared_expert = true,
     .gated_delta_net = true,
     .attn_output_gate = true,
     .rope_sections = true},
    // src/models/gemma4.cpp: gemma3's layer (embedding times sqrt(n_embd), Q/K norm, post norms,
    // GELU-gated feed-forward) with per-layer head shapes (256-wide sliding heads, 512-wide global
    // ones), attention scale 1, V normed without a weight, proportional RoPE (rope_freqs) on the
    // global layers and rope.freq_base_swa (10000 unless the file says) on the sliding ones, the
    // last shared_kv_layers layers reading an earlier layer's cache, layer_output_scale, and the
    // final soft-cap (30 unless the file says: llama_hparams' f_final_logit_softcapping).
    {.arch = Arch::gemma4,
     .name = "gemma4",
     .graph = "src/models/gemma4.cpp",
     .rope = RopeStyle::neox,
     .qk_norm = true,
     .embed_scale = true,
     .post_norms = true,
     .activation = Activation::gelu,
     .final_softcap = 30.0f,
     .swa_pattern = 6,
     .default_window = 512,
     .local_rope_base = 10000.0f,
     // The 26B-A4B: GELU-gated experts n_ff_exp wide, picked by softmax, weights renormalised
     // (build_moe_ffn(..., LLM_FFN_GELU, true, ...)), beside the dense feed-forward.
     .experts = true,
     .expert_length_key = true,
     .norm_expert_weights = true,
     .expert_activation = Activation::gelu,
     .per_layer_attention = true,
     .attn_scale_one = true,
     .v_norm = true,
     .rope_freqs_global_only = true,
     .layer_output_scale = true},
    // src/models/qwen3vl.cpp (Qwen3-VL's text decoder): qwen3's layer (per-head Q/K norm, SwiGLU)
    // with IMROPE over the whole head (GGML_ASSERT(n_embd_head == n_rot); llama_model_rope_type
    // gives LLM_ARCH_QWEN3VL LLAMA_ROPE_TYPE_IMROPE, NEOX pairs) by rope.dimension_sections, and
    // the deepstack slices, zero for text. The vision projector is a separate file (mmproj, its
    // general.architecture "clip"), which the engine refuses by that name.
    {.arch = Arch::qwen3vl,
     .name = "qwen3vl",
     .graph = "src/models/qwen3vl.cpp",
     .rope = RopeStyle::neox,
     .qk_norm = true,
     .rotates_whole_head = true,
     .rope_sections = true,
     .deepstack = true},
    // src/models/lfm2.cpp (LiquidAI LFM2/LFM2.5): a hybrid of gated short-convolution blocks and
    // attention layers with per-head Q/K RMSNorm, each followed by a SwiGLU feed-forward; the final
    // norm is token_embd_norm. llama_model_rope_type: LLM_ARCH_LFM2 is NEOX.
    {.arch = Arch::lfm2,
     .name = "lfm2",
     .graph = "src/models/lfm2.cpp",
     .rope = RopeStyle::neox,
     .output_norm = "token_embd_norm.weight",
     .qk_norm = true,
     .short_conv = true},
    // src/models/mistral3.cpp (Ministral 3, Devstral 2): llama's layer (NORM rotation, SwiGLU,
    // softmax-gated experts with norm_w where the file has them), YaRN with the file's beta_fast,
    // beta_slow and log multiplier, and Q times Llama 4's temperature (llama_model_rope_type:
    // LLM_ARCH_MISTRAL3 is NORM).
    {.arch = Arch::mistral3,
     .name = "mistral3",
     .graph = "src/models/mistral3.cpp",
     .experts = true,
     .norm_expert_weights = true,
     .yarn_keys = true,
     .attn_temperature = true},
    // src/models/lfm2moe.cpp (LiquidAI LFM2-8B-A1B): lfm2's short-convolution and attention layers,
    // the first leading_dense_block_count with a SwiGLU feed-forward and the rest with experts
    // n_ff_exp wide: build_moe_ffn(..., LLM_FFN_SILU, norm_w = true, the file's gating) with the
    // selection bias exp_probs_b.
    {.arch = Arch::lfm2moe,
     .name = "lfm2moe",
     .graph = "src/models/lfm2moe.cpp",
     .rope = RopeStyle::neox,
     .output_norm = "token_embd_norm.weight",
     .qk_norm = true,
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .norm_expert_weights = true,
     .expert_gating = ExpertGating::sigmoid,
     .short_conv = true,
     .gating_key = true,
     .dense_lead = true,
     .expert_selection_bias = true},
    // src/models/nemotron-h.cpp (NVIDIA Nemotron-H): a layer is a Mamba2 block where its
    // head_count_kv and feed_forward_length are 0, an attention layer (no RoPE, scale
    // 1/sqrt(head_dim)) where only feed_forward_length is 0, else a squared-ReLU feed-forward
    // (LLM_FFN_RELU_SQR, LLM_FFN_PAR without a gate); every one normed by attn_norm.
    {.arch = Arch::nemotron_h,
     .name = "nemotron_h",
     .graph = "src/models/nemotron-h.cpp",
     .ffn_norm = "attn_norm",
     .activation = Activation::relu_sqr,
     .mamba2 = true,
     .one_branch_layers = true,
     .no_rope = true,
     .ungated_ffn = true},
    // src/models/nemotron-h.cpp with experts (Nemotron 3 Nano): every feed-forward layer is
    // build_moe_ffn(..., LLM_FFN_RELU_SQR, expert_weights_norm, expert_weights_scale, SIGMOID)
    // of ungated experts picked with exp_probs_b, plus an ungated shared expert added as it is.
    {.arch = Arch::nemotron_h_moe,
     .name = "nemotron_h_moe",
     .graph = "src/models/nemotron-h.cpp",
     .ffn_norm = "attn_norm",
     .activation = Activation::relu_sqr,
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .shared_expert = true,
     .expert_gating = ExpertGating::sigmoid,
     .expert_activation = Activation::relu_sqr,
     .expert_selection_bias = true,
     .mamba2 = true,
     .one_branch_layers = true,
     .no_rope = true,
     .ungated_ffn = true,
     .ungated_experts = true,
     .expert_weights_keys = true,
     .shared_expert_unscaled = true},
    // src/models/granite-hybrid.cpp (IBM Granite 4.0-H): attn_norm, a Mamba2 block where the
    // layer's head_count_kv is 0 or attention (NORM RoPE where rope.scaling.finetuned says so,
    // Granite's attention scale), the residual times residual_scale, ffn_norm, a SwiGLU
    // feed-forward or softmax-gated experts (norm_w) with a SwiGLU shared expert added as it is;
    // the embedding times embedding_scale and the logits over logit_scale.
    {.arch = Arch::granitehybrid,
     .name = "granitehybrid",
     .graph = "src/models/granite-hybrid.cpp",
     .experts = true,
     .norm_expert_weights = true,
     .shared_expert = true,
     .mamba2 = true,
     .shared_expert_unscaled = true,
     .shared_expert_if_sized = true,
     .granite_multipliers = true},
    // src/models/laguna.cpp (Poolside Laguna): attn_norm, attention with per-layer query heads,
    // Q/K norm and NEOX RoPE (YaRN on the global layers, plain on the sliding ones), each head's
    // output times softplus of attn_gate, ffn_norm, then a SwiGLU feed-forward on the
    // leading_dense_block_count first layers and elsewhere build_moe_ffn(..., LLM_FFN_SILU,
    // expert_weights_norm, expert_weights_scale, SIGMOID) with exp_probs_b plus a SwiGLU shared
    // expert added as it is (llama_model_rope_type: LLM_ARCH_LAGUNA is NEOX).
    {.arch = Arch::laguna,
     .name = "laguna",
     .graph = "src/models/laguna.cpp",
     .rope = RopeStyle::neox,
     .qk_norm = true,
     .swa_pattern = 4,  // with no attention.sliding_window (Laguna M.1) no layer slides
     .experts = true,
     .requires_experts = true,
     .expert_length_key = true,
     .shared_expert = true,
     .expert_gating = ExpertGating::sigmoid,
     .dense_lead = true,
     .expert_selection_bias = true,
     .expert_weights_keys = true,
     .shared_expert_unscaled = true,
     .swa_dense_first = true,
     .sliding_plain_rope = true,
     .per_layer_heads = true,
     .attn_head_gate = true},
    // src/models/granite.cpp (IBM Granite 3.x): granitehybrid's attention layers everywhere, the
    // same multipliers and the same feed-forward (a SwiGLU, or softmax-gated experts with norm_w
    // and a shared expert where the file gives its width).
    {.arch = Arch::granite,
     .name = "granite",
     .graph = "src/models/granite.cpp",
     .experts = true,
     .norm_expert_weights = true,
     .shared_expert = true,
     .shared_expert_unscaled = true,
     .shared_expert_if_sized = true,
     .granite_multipliers = true},
};

}  // namespace

const Architecture& architecture(Arch arch) {
  for (const auto& a : kArchitectures) {
    if (a.arch == arch) return a;
  }
  return kArchitectures[0];
}

core::Result<Arch> parse_architecture(std::string_view name) {
  for (const auto& a : kArchitectures) {
    if (name == a.name) return a.arch;
  }
  return core::make_error(core::ErrorKind::unsupported,
                          "architecture '" + std::string(name) +
                              "' is not one the engine runs (it runs " + known_architectures() +
                              ")");
}

std::string known_architectures(std::string_view separator) {
  std::string s;
  for (const auto& a : kArchitectures) {
    if (!s.empty()) s += separator;
    s += a.name;
  }
  return s;
}

}  // namespace gauntlet::engine::model
