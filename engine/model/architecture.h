#pragma once
// The architectures the engine runs, each as a small record of what its graph does differently
// from llama's. The host reference, the device decoders, the tensor list and the planner all
// consult this record instead of branching on a name. The facts come from llama.cpp: the graph
// of each architecture in src/models/<name>.cpp, the rotary style in src/llama-model.cpp
// (llama_model_rope_type), the tensor names in src/llama-arch.cpp.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gauntlet::engine::model {

enum class Arch : uint32_t {
  llama,
  qwen2,
  qwen3,
  phi3,
  gemma2,
  gemma3,
  qwen2moe,
  qwen3moe,
  gpt_oss,
  qwen35,
  qwen35moe,
  gemma4,
  qwen3vl,
  lfm2,
  mistral3,
  lfm2moe,
  nemotron_h,
  nemotron_h_moe,
  granitehybrid,
  laguna,
  granite
};

// llama.cpp's LLAMA_ROPE_TYPE_NORM rotates adjacent pairs (x[2i], x[2i+1]) of a head;
// LLAMA_ROPE_TYPE_NEOX rotates x[i] with x[i + n_rot/2] ("the pairs of head values are offset
// by n_rot/2"). The values are what the rotary kernels take.
enum class RopeStyle : uint32_t { norm = 0, neox = 1 };

// The feed-forward's gated activation: llama.cpp's LLM_FFN_SILU (SwiGLU) or LLM_FFN_GELU (GeGLU,
// the tanh approximation), both LLM_FFN_PAR: act(gate) * up; or LLM_FFN_SWIGLU_OAI_MOE
// (ggml_swiglu_oai, ggml-cpu ops.cpp): x = min(gate, limit), y = clamp(up, -limit, limit),
// x / (1 + exp(-alpha x)) * (y + 1), alpha and limit from the record; or LLM_FFN_RELU_SQR
// (nemotron_h's ungated feed-forward: max(x, 0)^2 of ffn_up x).
enum class Activation : uint32_t { silu = 1, gelu = 2, swiglu_oai = 3, relu_sqr = 4 };

// How build_moe_ffn turns the router's logits into the picks' weights (llama.cpp's
// llama_expert_gating_func_type): SOFTMAX, a softmax over every expert whose top k are picked
// with their probabilities; SOFTMAX_WEIGHT, the top k logits picked and a softmax over those k.
// SIGMOID (lfm2moe, laguna): each expert's sigmoid, the top k picked (by sigmoid plus the
// score-correction bias exp_probs_b where the file has one) with their unbiased sigmoids.
enum class ExpertGating : uint32_t { softmax = 0, softmax_weight = 1, sigmoid = 2 };

struct Architecture {
  Arch arch = Arch::llama;
  const char* name = "";   // general.architecture, and the prefix of the metadata keys
  const char* graph = "";  // the llama.cpp file that defines the graph
  RopeStyle rope = RopeStyle::norm;
  bool qkv_bias = false;  // F32 biases attn_{q,k,v}.bias added to the projections (qwen2)
  bool out_bias = false;  // attn_output.bias added to the attention's output projection
  // attn_sinks.weight: one logit per head that joins each softmax's denominator and nothing else
  // (ggml_soft_max_ext with sinks: max = max(max, sink), sum += exp(sink - max)).
  bool attn_sinks = false;
  // The name of the norm before the feed-forward ("blk.N.<name>.weight"): gpt-oss and qwen35 call
  // it post_attention_norm (LLM_TENSOR_ATTN_POST_NORM).
  const char* ffn_norm = "ffn_norm";
  // The final norm's tensor: lfm2's is token_embd_norm.weight (LLM_TENSOR_OUTPUT_NORM_LFM2).
  const char* output_norm = "output_norm.weight";
  bool qk_norm = false;        // per-head RMSNorm of Q and K (attn_{q,k}_norm) before RoPE
  bool fused_qkv = false;      // one attn_qkv projection whose rows are Q, then K, then V (phi3)
  bool fused_gate_up = false;  // one ffn_up of 2 * n_ff rows: gate then up (phi3)
  bool embed_scale = false;    // the token embedding is scaled by sqrt(n_embd) (gemma)
  // post_attention_norm and post_ffw_norm on each branch before its residual add (gemma)
  bool post_norms = false;
  // The loader creates no output.weight: the logits always use token_embd (src/llama-model.cpp's
  // LLM_ARCH_GEMMA2 "same as tok_embd, duplicated to allow offloading"; a file with one is refused
  // there with "wrong number of tensors").
  bool always_tied = false;
  // The loader requires an output.weight (qwen2moe.cpp and openai-moe.cpp create it without
  // TENSOR_NOT_REQUIRED): a tied file is refused there with "missing tensor 'output.weight'".
  bool output_required = false;
  // The loader sizes attn_q and attn_output n_embd wide (qwen2.cpp, phi3.cpp, qwen2moe.cpp create
  // them {n_embd, n_embd}), so n_head * head_dim must be n_embd.
  bool q_width_is_embd = false;
  // The rotary dimension must be the head dimension: openai-moe.cpp sizes the heads by n_rot.
  // (llama's loader also throws "invalid n_rot" for another one, but the reference's tests run
  // partial NORM rotation through llama shapes, so llama is not held to it.)
  bool rotates_whole_head = false;
  Activation activation = Activation::silu;
  // Defaults where the metadata gives none (llama.cpp's hparams): the attention-logit and
  // final-logit soft-caps cap * tanh(x / cap), 0 for none.
  float attn_softcap = 0.0f;
  float final_softcap = 0.0f;
  // Sliding-window attention: layer il attends to the last `window` positions when
  // il % swa_pattern < swa_pattern - 1 (llama_hparams::set_swa_pattern); 0: every layer global.
  uint32_t swa_pattern = 0;
  uint32_t default_window = 0;
  float local_rope_base = 0.0f;  // RoPE base of the sliding layers; 0: the model's
  // A mixture of experts in the feed-forward (src/llama-graph.cpp build_moe_ffn, as each graph
  // calls it): `experts` says whether the architecture may have one (llama does when its file
  // names experts, as Mixtral's does) and `requires_experts` that every file of it must.
  bool experts = false;
  bool requires_experts = false;
  // Experts n_ff_exp rows wide from expert_feed_forward_length (qwen2moe, qwen3moe); llama's
  // experts are n_ff wide (src/models/llama.cpp creates ffn_*_exps with n_ff).
  bool expert_length_key = false;
  // The selected experts' weights divided by their sum (build_moe_ffn's norm_w): each graph passes
  // its own constant; none reads expert_weights_norm from the file.
  bool norm_expert_weights = false;
  // qwen2moe: a shared expert (ffn_{gate,up,down}_shexp) beside the routed ones, its output scaled
  // by sigmoid(ffn_gate_inp_shexp . x).
  bool shared_expert = false;
  ExpertGating expert_gating = ExpertGating::softmax;
  // ffn_gate_inp.bias added to the router's logits and ffn_{gate,up,down}_exps.bias (one row per
  // expert) to each pick's products (build_moe_ffn's gate_inp_b, ggml_add_id).
  bool expert_biases = false;
  Activation expert_activation = Activation::silu;
  float swiglu_alpha = 0.0f, swiglu_limit = 0.0f;  // Activation::swiglu_oai's constants
  // qwen35: layers that are not every full_attention_interval-th are a gated DeltaNet
  // (src/models/qwen35.cpp build_layer_attn_linear, src/models/delta-net-base.cpp): a causal
  // conv1d with a per-sequence state, then a delta-rule update of an f32 state matrix per head.
  // Only the other layers are attention layers with a KV cache.
  bool gated_delta_net = false;
  // The attention layers' Q projection is twice as wide, each head [q | gate], and the attention
  // output is multiplied by sigmoid(gate) before attn_output (qwen35 build_layer_attn).
  bool attn_output_gate = false;
  // Rotary angles by rope.dimension_sections (llama.cpp's LLAMA_ROPE_TYPE_IMROPE, ggml's
  // ggml_mrope_cache_init with is_imrope): for text every section's position is the token's
  // except the fourth's, which is 0 (llm_graph_input_pos::set_input).
  bool rope_sections = false;
  // qwen3vl: after each of the first n_deepstack_layers layers the graph adds a slice of the input
  // embedding past its first n_embd values (src/models/qwen3vl.cpp); for text tokens llama.cpp
  // pads the token embedding with zeros to that width (llm_graph_context::build_inp_embd), so a
  // text decode adds nothing and only the key is kept, to be written back.
  bool deepstack = false;
  // gemma4 (src/models/gemma4.cpp): per-layer head counts and head dimensions, the sliding
  // pattern, the sliding layers' RoPE base and the shared-KV layers from the file
  // (ModelShape's per-layer fields); the attention's scale is 1 (f_attention_scale, Q and K being
  // normed); V is normed per head without a weight (ggml_rms_norm); rope_freqs turns only the
  // global layers (proportional RoPE); each layer's output is multiplied by layer_output_scale.
  bool per_layer_attention = false;
  bool attn_scale_one = false;
  bool v_norm = false;
  bool rope_freqs_global_only = false;
  bool layer_output_scale = false;
  // lfm2 (src/models/lfm2.cpp): the layers without KV heads (head_count_kv 0 in the per-layer
  // array) are gated short convolutions: in_proj gives B, C and x; the causal depthwise conv
  // (shortconv.l_cache taps, a state of the last l_cache - 1 inputs) runs over B * x, and
  // C times its output goes through out_proj.
  bool short_conv = false;
  // mistral3 (src/models/mistral3.cpp load_arch_hparams): the file may give YaRN's beta_fast,
  // beta_slow and log multiplier, and Llama 4's attention.temperature_scale, which multiplies Q
  // after RoPE by a factor that grows with the position (ModelShape::attn_temp_scale).
  bool yarn_keys = false;
  bool attn_temperature = false;
  // lfm2moe (src/models/lfm2moe.cpp): the gating function from the file's expert_gating_func
  // (required), leading_dense_block_count dense layers before the experts, and the experts'
  // selection bias exp_probs_b (build_moe_ffn's exp_probs_b: added to the probabilities only to
  // pick the experts).
  bool gating_key = false;
  bool dense_lead = false;
  bool expert_selection_bias = false;
  // nemotron_h (src/models/nemotron-h.cpp, build_mamba2_layer in src/models/mamba-base.cpp): the
  // recurrent layers are Mamba2 blocks (ssm_in into z, x, B, C and dt; a causal conv with bias
  // over x, B and C; the selective scan; y + D x gated by silu(z); a grouped RMS norm; ssm_out).
  // Each layer is one branch: a Mamba2 block, an attention layer or a feed-forward (the layer
  // with a feed_forward_length), normed by its attn_norm; the attention turns no RoPE; the
  // feed-forward is ungated (act(ffn_up x), then ffn_down).
  bool mamba2 = false;
  bool one_branch_layers = false;
  bool no_rope = false;
  bool ungated_ffn = false;
  // nemotron_h_moe: the experts and the shared expert are ungated too (ffn_up_exps, the
  // activation, ffn_down_exps; the shared expert added without a gate of its own), and the file
  // gives the picks' renormalisation and scale (expert_weights_norm, expert_weights_scale).
  bool ungated_experts = false;
  bool expert_weights_keys = false;
  // The shared expert is added as it is, with no ffn_gate_inp_shexp (nemotron_h_moe,
  // granitehybrid); granitehybrid has one only where the file gives its width
  // (expert_shared_feed_forward_length).
  bool shared_expert_unscaled = false;
  bool shared_expert_if_sized = false;
  // granitehybrid (src/models/granite-hybrid.cpp): Granite's multipliers from the file
  // (embedding_scale, residual_scale, attention.scale, logit_scale) and RoPE on or off by
  // rope.scaling.finetuned (the converter writes false for Granite 4.0-H: no RoPE).
  bool granite_multipliers = false;
  // laguna (src/models/laguna.cpp): the sliding pattern starts with its global layer
  // (load_swa_pattern(ml, 4, dense_first = true): layer il slides unless il % pattern == 0); the
  // sliding layers turn plain RoPE (no YaRN, scale 1, their own base and rotary dimension:
  // rope.freq_base_swa, rope.dimension_count_swa); attention.head_count may be one count per
  // layer; and attn_gate (one row per head) gives each head's output a factor softplus(gate . x)
  // before attn_output.
  bool swa_dense_first = false;
  bool sliding_plain_rope = false;
  bool per_layer_heads = false;
  bool attn_head_gate = false;
};

const Architecture& architecture(Arch arch);
// The error names the architecture and the ones the engine runs.
core::Result<Arch> parse_architecture(std::string_view name);
// The names, `separator` between them.
std::string known_architectures(std::string_view separator = ", ");

}  // namespace gauntlet::engine::model
