#pragma once
// The shape of a model (its architecture and dimensions), the presets with real dimensions, and
// the list of tensors such a model has (names as llama.cpp writes them). Writer, validator and
// planner all take the tensor list from here, so that they agree.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/model/architecture.h"
#include "engine/model/file_type.h"
#include "engine/model/tensor_type.h"

namespace gauntlet::engine::model {

// A layer's token mixer: attention over a KV cache, or a recurrent block with a fixed state per
// sequence (llama.cpp's hparams.is_recr per layer).
enum class Mixer : uint8_t {
  attention,
  gated_delta_net,  // qwen35: a causal conv1d, then the delta rule's state matrix per head
  short_conv,       // lfm2: a gated causal conv1d over the embedding (Architecture::short_conv)
  mamba2,           // nemotron_h: a causal conv1d, then the selective scan per head
  none,             // nemotron_h's feed-forward layers: no mixer, the feed-forward alone
};

struct ModelShape {
  std::string name = "custom";
  Arch arch = Arch::llama;
  uint32_t n_embd = 0;
  uint32_t n_layer = 0;
  // Multi-token-prediction (MTP, "nextn") blocks the file holds after the n_layer trunk layers
  // (nextn_predict_layers; block_count counts both). llama.cpp skips their tensors unless an MTP
  // draft context asks for them: the decode and the plan leave them out.
  uint32_t n_layer_nextn = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t n_ff = 0;
  uint32_t n_vocab = 0;
  uint32_t context = 0;
  uint32_t key_length = 0;  // the head dimension (attention.key_length); 0: n_embd / n_head
  uint32_t rope_dim = 0;    // 0: the head dimension
  float rope_freq_base = 10000.0f;
  float rope_freq_scale = 1.0f;  // linear or YaRN RoPE scaling: 1 / rope.scaling.factor
  // YaRN (rope.scaling.type "yarn"): the angles blend interpolation and extrapolation by
  // frequency, over rope.scaling.original_context_length (0: the context), and the cos/sin are
  // scaled by rope.scaling.attn_factor times llama.cpp's magnitude correction (model/rope.h).
  bool yarn = false;
  uint32_t yarn_orig_context = 0;
  float rope_attn_factor = 1.0f;
  // mistral3's YaRN keys (rope.scaling.yarn_beta_fast, _beta_slow, yarn_log_multiplier; llama.cpp's
  // defaults 32, 1 and 0) and Llama 4's query temperature (attention.temperature_scale, 0: none):
  // Q is multiplied by 1 + scale * ln(floor(pos / yarn_orig_context) + 1).
  float yarn_beta_fast = 32.0f, yarn_beta_slow = 1.0f, yarn_log_mul = 0.0f;
  float attn_temp_scale = 0.0f;
  bool rope_freqs = false;  // a rope_freqs.weight tensor of per-frequency factors (Llama 3.1+)
  // blk.N.ffn_gate_up_exps: each expert's gate and up rows in one stack, gate first (llama.cpp's
  // create_tensor_gate_up_exps, read before the separate ffn_gate_exps / ffn_up_exps).
  bool fused_expert_gate_up = false;
  float rms_eps = 1e-5f;
  bool tied_output = false;  // no output.weight: logits use token_embd
  // Sliding-window attention (attention.sliding_window): a sliding layer (see `sliding`) attends to
  // the last `sliding_window` positions; 0: none.
  uint32_t sliding_window = 0;
  float attn_softcap = 0.0f;   // attention-logit soft-cap (attn_logit_softcapping); 0: none
  float final_softcap = 0.0f;  // final-logit soft-cap (final_logit_softcapping); 0: none
  // A mixture of experts (n_expert > 0): each layer's router picks n_expert_used of n_expert
  // experts, n_ff_exp rows wide where the architecture reads expert_feed_forward_length (0 there:
  // n_ff / n_expert_used, as llama.cpp), else n_ff wide; qwen2moe adds a shared expert of
  // n_ff_shexp rows (0: n_ff).
  uint32_t n_expert = 0;
  uint32_t n_expert_used = 0;
  // lfm2moe: the first n_layer_dense_lead layers have a dense feed-forward (n_ff wide), the others
  // experts; expert_gating_func as llama.cpp numbers it (1 softmax, 2 sigmoid, 3 softmax of the
  // picked; 0: the architecture's).
  uint32_t n_layer_dense_lead = 0;
  uint32_t expert_gating_func = 0;
  uint32_t n_ff_exp = 0;
  uint32_t n_ff_shexp = 0;
  // nemotron_h_moe's expert_weights_norm and expert_weights_scale (build_moe_ffn's norm_w and
  // w_scale; 0: none): the picks' weights over their sum, then times the scale.
  bool expert_weights_norm = false;
  float expert_weights_scale = 0.0f;
  // granitehybrid's multipliers (0: none): the embedding times embedding_scale, each branch's
  // output times residual_scale before its residual add, the attention's scale, the logits over
  // logit_scale; and whether its attention turns RoPE (rope.scaling.finetuned).
  float embedding_scale = 0.0f, residual_scale = 0.0f, attention_scale = 0.0f, logit_scale = 0.0f;
  bool rope = true;
  // A gated DeltaNet's dimensions (qwen35; lfm2's short convolution has only ssm_conv, from
  // shortconv.l_cache; src/llama-arch.cpp's ssm.* keys): the causal conv1d's
  // width (ssm.conv_kernel), the key head size (ssm.state_size), the key heads (ssm.group_count),
  // the value heads (ssm.time_step_rank) and their total width (ssm.inner_size). Layer l is
  // recurrent unless (l + 1) is a multiple of full_attention_interval (0: 4, as llama.cpp).
  uint32_t ssm_conv = 0;
  uint32_t ssm_state = 0;
  uint32_t ssm_groups = 0;
  uint32_t ssm_heads = 0;
  uint32_t ssm_inner = 0;
  uint32_t full_attention_interval = 0;
  // rope.dimension_sections: rotary pairs per position component (time, height, width, extra).
  std::array<uint32_t, 4> rope_sections{};
  // qwen3vl's n_deepstack_layers: the layers after which llama.cpp adds the vision encoder's
  // deepstack features, zero for text (Architecture::deepstack); kept only to be written back.
  uint32_t n_deepstack_layers = 0;
  // Per-layer attention shapes (gemma4; src/models/gemma4.cpp, llama_hparams' per-layer arrays):
  // which layers slide (attention.sliding_window_pattern; empty: the architecture's swa_pattern),
  // the head counts per layer (attention.head_count / head_count_kv as arrays; empty: n_head,
  // n_head_kv), the sliding layers' head dimension (attention.key_length_swa; 0: head_dim()) and
  // rotary dimension (rope.dimension_count_swa; 0: their head dimension) and RoPE base
  // (rope.freq_base_swa; 0: the architecture's local base).
  std::vector<uint8_t> swa_layers;
  std::vector<uint32_t> layer_heads, layer_heads_kv;
  uint32_t key_length_swa = 0;
  uint32_t rope_dim_swa = 0;
  float rope_freq_base_swa = 0.0f;
  // The last shared_kv_layers layers store no K or V: each reads the cache of the last sliding or
  // the last global layer before them (llama.cpp's layer_reuse_cb for gemma4: n_layer_kv_from_start
  // - 2 for a sliding layer, - 1 for a global one), (attention.shared_kv_layers).
  uint32_t shared_kv_layers = 0;
  // The global layers have no attn_v: V is the K projection (gemma4's use_alternative_attention).
  bool k_as_v = false;
  // Per-layer embeddings (gemma4's E2B/E4B; embedding_length_per_layer_input, 0: none): a second
  // token table of n_embd_per_layer values per layer, mixed with a projection of the embedding
  // and fed to each layer through its gate (src/models/gemma4.cpp, project_per_layer_inputs).
  uint32_t n_embd_per_layer = 0;
  // Feed-forward widths per layer (feed_forward_length as an array; empty: n_ff everywhere): the
  // E2B's shared-KV layers are twice as wide (the converter's use_double_wide_mlp).
  std::vector<uint32_t> layer_ff;

  uint32_t head_dim() const {
    return key_length != 0 ? key_length : (n_head == 0 ? 0 : n_embd / n_head);
  }
  uint32_t n_embd_q() const { return head_dim() * n_head; }  // Q and the attention output
  uint32_t n_embd_kv() const { return head_dim() * n_head_kv; }
  // The attention layers' Q projection: each head [q | gate] where the architecture gates the
  // attention output (qwen35).
  uint32_t n_embd_q_proj() const { return n_embd_q_proj(0); }
  uint32_t n_embd_q_proj(uint32_t layer) const {
    return traits().attn_output_gate ? 2 * n_embd_q(layer) : n_embd_q(layer);
  }
  uint32_t attention_interval() const {
    return full_attention_interval == 0 ? 4 : full_attention_interval;
  }
  // Whether layer l is a gated DeltaNet (llama_model_qwen35::load_arch_hparams: recurrent unless
  // (il + 1) % full_attention_interval == 0).
  // An lfm2 layer is a short convolution where its head_count_kv is 0 (llama_model_lfm2:
  // is_recr_impl[il] = n_head_kv(il) == 0).
  // A nemotron_h layer is a Mamba2 block where its head_count_kv and feed_forward_length are both
  // 0 (llama_model_nemotron_h::load_arch_hparams), a feed-forward where its feed_forward_length is
  // not 0, else an attention layer.
  bool recurrent(uint32_t layer) const {
    if (traits().short_conv) return heads_kv(layer) == 0;
    if (traits().mamba2) {
      return heads_kv(layer) == 0 && (!traits().one_branch_layers || ff(layer) == 0);
    }
    return traits().gated_delta_net && (layer + 1) % attention_interval() != 0;
  }
  Mixer mixer(uint32_t layer) const {
    if (recurrent(layer)) {
      return traits().short_conv ? Mixer::short_conv
             : traits().mamba2   ? Mixer::mamba2
                                 : Mixer::gated_delta_net;
    }
    if (traits().one_branch_layers && ff(layer) != 0) return Mixer::none;
    return Mixer::attention;
  }
  // Whether layer l attends (has attention heads and, unless shared, a KV cache).
  bool attends(uint32_t layer) const { return mixer(layer) == Mixer::attention; }
  uint32_t recurrent_layers() const {
    uint32_t n = 0;
    for (uint32_t l = 0; l < n_layer; ++l) n += recurrent(l) ? 1 : 0;
    return n;
  }
  uint32_t ssm_head_dim() const { return ssm_heads == 0 ? 0 : ssm_inner / ssm_heads; }
  // The conv1d's channels: Q and K (key heads x state_size each), then V (inner_size), or
  // Mamba2's x (inner_size), B and C (groups x state_size each); a short convolution's are the
  // embedding's (llama_hparams::n_embd_r for LFM2).
  uint32_t ssm_channels() const {
    return traits().short_conv ? n_embd : ssm_inner + 2 * ssm_groups * ssm_state;
  }
  // Floats of one sequence's state per recurrent layer (llama_hparams::n_embd_r, n_embd_s): the
  // conv's last ssm_conv - 1 inputs per channel, and the delta rule's state_size x inner_size.
  uint64_t ssm_conv_floats() const {
    return uint64_t{ssm_conv == 0 ? 0 : ssm_conv - 1} * ssm_channels();
  }
  uint64_t ssm_delta_floats() const { return uint64_t{ssm_state} * ssm_inner; }
  // Mamba2's ssm_in rows: z and x (inner_size each), B and C (groups x state_size each), then dt
  // (one per head).
  uint64_t mamba2_in_proj() const { return uint64_t{ssm_channels()} + ssm_inner + ssm_heads; }
  uint32_t rope_dims() const { return rope_dim == 0 ? head_dim() : rope_dim; }
  const Architecture& traits() const { return architecture(arch); }
  bool moe() const { return n_expert > 0; }
  // Whether layer l's feed-forward is the experts (not one of lfm2moe's leading dense layers;
  // every feed-forward layer of nemotron_h_moe).
  bool moe_layer(uint32_t layer) const {
    if (traits().one_branch_layers) return moe() && mixer(layer) == Mixer::none;
    return moe() && layer >= n_layer_dense_lead;
  }
  uint32_t moe_layers() const {
    uint32_t n = 0;
    for (uint32_t l = 0; l < n_layer; ++l) n += moe_layer(l) ? 1 : 0;
    return n;
  }
  bool norm_expert_weights() const {
    return traits().expert_weights_keys ? expert_weights_norm : traits().norm_expert_weights;
  }
  ExpertGating gating() const {
    switch (expert_gating_func) {
      case 1:
        return ExpertGating::softmax;
      case 2:
        return ExpertGating::sigmoid;
      case 3:
        return ExpertGating::softmax_weight;
      default:
        return traits().expert_gating;
    }
  }
  bool per_layer_embeddings() const { return n_embd_per_layer > 0; }
  uint32_t ff(uint32_t layer) const { return layer < layer_ff.size() ? layer_ff[layer] : n_ff; }
  uint32_t max_ff() const;
  // gemma4's mixture (26B-A4B): the routed experts run beside the dense feed-forward, each with
  // its own norms, the router reading the unweighted norm of the residual times ffn_gate_inp.scale.
  bool dense_beside_experts() const { return moe() && traits().per_layer_attention; }
  uint32_t expert_ff() const {
    if (!traits().expert_length_key) return n_ff;
    return n_ff_exp != 0 ? n_ff_exp : (n_expert_used == 0 ? 0 : n_ff / n_expert_used);
  }
  uint32_t shared_expert_ff() const { return n_ff_shexp != 0 ? n_ff_shexp : n_ff; }
  bool shared_expert() const {
    return moe() && traits().shared_expert && (!traits().shared_expert_if_sized || n_ff_shexp != 0);
  }
  // The attention's query scale (llama.cpp's kq_scale): the file's attention.scale where it gives
  // one, 1 where Q and K are normed instead (gemma4), else 1/sqrt(head_dim).
  float query_scale(uint32_t layer) const;
  // What the token embedding is multiplied by: sqrt(n_embd) (gemma), embedding_scale (granite),
  // or 1.
  float embedding_multiplier() const;
  // Whether layer l is a sliding layer by the pattern (llama_hparams::is_swa), and whether it
  // slides (with a window).
  bool swa_layer(uint32_t layer) const {
    if (!swa_layers.empty()) return layer < swa_layers.size() && swa_layers[layer] != 0;
    const uint32_t pattern = traits().swa_pattern;
    if (pattern == 0) return false;
    return traits().swa_dense_first ? layer % pattern != 0 : layer % pattern < pattern - 1;
  }
  bool sliding(uint32_t layer) const { return sliding_window != 0 && swa_layer(layer); }
  // The RoPE base and linear scale of a layer: a sliding layer of gemma3 and gemma4 has its own.
  float local_rope_base() const {
    return rope_freq_base_swa != 0 ? rope_freq_base_swa : traits().local_rope_base;
  }
  float rope_base(uint32_t layer) const {
    return sliding(layer) && local_rope_base() != 0 ? local_rope_base() : rope_freq_base;
  }
  float rope_scale(uint32_t layer) const {
    return plain_rope(layer) || (sliding(layer) && local_rope_base() != 0) ? 1.0f : rope_freq_scale;
  }
  // Whether a layer turns plain RoPE whatever the model's scaling (laguna's sliding layers).
  bool plain_rope(uint32_t layer) const { return traits().sliding_plain_rope && sliding(layer); }
  // Layer l's attention shape (llama_hparams::n_head(il), n_head_kv(il), n_embd_head_k(il),
  // n_rot(il)); without per-layer arrays every layer's is the model's.
  uint32_t heads(uint32_t layer) const {
    return layer < layer_heads.size() ? layer_heads[layer] : n_head;
  }
  uint32_t heads_kv(uint32_t layer) const {
    return layer < layer_heads_kv.size() ? layer_heads_kv[layer] : n_head_kv;
  }
  uint32_t head_dim(uint32_t layer) const {
    return swa_layer(layer) && key_length_swa != 0 ? key_length_swa : head_dim();
  }
  uint32_t rope_dims(uint32_t layer) const {
    if (!swa_layer(layer)) return rope_dims();
    if (rope_dim_swa != 0) return rope_dim_swa;
    return key_length_swa != 0 ? key_length_swa : rope_dims();
  }
  uint32_t n_embd_q(uint32_t layer) const { return head_dim(layer) * heads(layer); }
  uint32_t n_embd_kv(uint32_t layer) const { return head_dim(layer) * heads_kv(layer); }
  // The largest over the layers: what one token's Q, K, V and scores take.
  uint32_t max_n_embd_q() const;
  uint32_t max_n_embd_kv() const;
  uint32_t max_heads() const;
  // Whether layer l stores K and V, and the layer whose cache it attends to.
  bool has_kv(uint32_t layer) const { return layer + shared_kv_layers < n_layer; }
  uint32_t kv_layer(uint32_t layer) const {
    if (has_kv(layer)) return layer;
    const uint32_t from = n_layer - shared_kv_layers;
    return from - (swa_layer(layer) ? 2 : 1);
  }
  // Layer l's V: its own projection, or K's where the global layers have no attn_v.
  bool has_v(uint32_t layer) const { return has_kv(layer) && !(k_as_v && !swa_layer(layer)); }
};

// Fills what the architecture gives by default and the shape leaves at 0: the sliding window
// and the soft-caps (llama.cpp's hparams defaults for gemma2).
void apply_architecture_defaults(ModelShape& shape);

// Checks that the dimensions make a llama model (head counts divide, even rotary dimensions,
// rows of whole 32-element blocks, ...); the error names the offending dimension.
core::Status validate_shape(const ModelShape& shape);

// The presets with published dimensions ("llama-3.1-8b", "qwen2.5-0.5b", "qwen3-0.6b",
// "phi-3-mini-4k", "mistral-7b-v0.3", ...) and small ones for tests ("test-tiny", ...).
core::Result<ModelShape> preset_shape(const std::string& name);
std::vector<std::string> preset_names();
// "n_embd=64,n_layer=2,n_head=4,n_head_kv=2,n_ff=128,n_vocab=256,context=128" (n_head_kv defaults
// to n_head; also arch=llama|qwen2|...|gpt-oss, head_dim, rope_dim, rope_freq_base,
// rms_eps, tied=0|1, rope_freqs=0|1, window, attn_softcap, final_softcap, n_expert, n_expert_used,
// n_ff_exp, n_ff_shexp, yarn_factor (YaRN with that rope.scaling.factor), yarn_orig_ctx; for qwen35
// ssm_conv, ssm_state, ssm_groups, ssm_heads, ssm_inner, full_attention_interval,
// rope_sections=T:H:W:E (also qwen3vl's, with deepstack=N); for gemma4 head_dim (the global
// layers'), head_dim_swa, rope_dim_swa, rope_freq_base_swa, n_head_kv_global, swa_pattern=P (P - 1
// sliding layers, then a global one), shared_kv, k_as_v=0|1, double_wide_mlp=0|1 (the shared-KV
// layers' feed-forward 2 n_ff wide), n_embd_per_layer (per-layer embeddings),
// n_expert/n_expert_used/n_ff_exp (the 26B-A4B's experts beside the dense FFN); for lfm2
// attn_layers=A:B:... (the attention layers; the others are short convolutions) and ssm_conv; for
// lfm2moe also dense_lead and gating; for mistral3 yarn_beta_fast, yarn_beta_slow, yarn_log_mul
// and attn_temp_scale; for nemotron_h layers=M*-... (apply_layer_pattern) and ssm_conv, ssm_state,
// ssm_groups, ssm_heads, ssm_inner; for nemotron_h_moe also expert_norm=0|1 and expert_scale; for
// granitehybrid layers=M*... and the Mamba2 dims, rope=0|1, embedding_scale, residual_scale,
// attention_scale and logit_scale; for laguna window, n_head_swa (the sliding layers' query
// heads), rope_dim_swa, rope_freq_base_swa, dense_lead, expert_norm and expert_scale).
core::Result<ModelShape> parse_dims(const std::string& text);
// A Mamba2 hybrid's layers, one character per layer (nemotron_h's hybrid_override_pattern): M a
// Mamba2 block, * an attention layer (n_head_kv KV heads), and in nemotron_h - or E a
// feed-forward (n_ff wide; the experts in nemotron_h_moe).
core::Status apply_layer_pattern(ModelShape& shape, std::string_view pattern);
// A command line's shape: dims when it has an '=', else a preset's name.
core::Result<ModelShape> parse_shape(const std::string& text);

struct TensorDesc {
  std::string name;
  std::vector<uint64_t> ne;  // fastest-first: a 2-D weight is {n_in, n_out}
  TensorType type = TensorType::f32;
  // Always f32, never quantized: 1-D (a norm, a bias, sinks or RoPE factors) or a name that does
  // not end in "weight" (gpt-oss's per-expert biases, llama-quant.cpp's rule).
  bool is_vector = false;
  // llama.cpp's loader creates it with TENSOR_NOT_REQUIRED: a file may leave it out.
  bool optional = false;
  uint64_t bytes() const;
  uint64_t n_elements() const;
};

// Every tensor of the model in file order, each with the type llama.cpp's quantizer gives it in
// a file of `format` (norms f32; see file_type.h), or the type of the first override that names
// it; `has_imatrix`: quantized with an importance matrix (some of llama.cpp's rules depend on it).
std::vector<TensorDesc> model_tensors(const ModelShape& shape, FileType format,
                                      std::span<const TensorTypeOverride> overrides = {},
                                      bool has_imatrix = false);
// Whether a tensor belongs to the output layer (llama.cpp's LLM_TENSOR_LAYER_OUTPUT).
bool is_output_tensor(const std::string& name);
// The tensor types a list holds, each once, in ggml id order.
std::vector<TensorType> types_in(std::span<const TensorDesc> tensors);
// Trained parameters, a tied embedding counted once (as model cards count them): every expert.
uint64_t parameter_count(const ModelShape& shape);
// The parameters one token uses: the routed experts it does not pick left out.
uint64_t active_parameter_count(const ModelShape& shape);

// The most experts a file may have and the most a token may use: what the router kernels hold.
inline constexpr uint32_t kMaxExperts = 256;
inline constexpr uint32_t kMaxExpertsUsed = 16;
// The conv1d width the recurrent kernels take, and the largest delta-rule head they hold.
inline constexpr uint32_t kSsmConvWidth = 4;
inline constexpr uint32_t kMaxSsmState = 256;

}  // namespace gauntlet::engine::model
