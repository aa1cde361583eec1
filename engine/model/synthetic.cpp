#include "engine/model/synthetic.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "engine/model/tokenizer_meta.h"

namespace gauntlet::engine::model {

namespace {

uint64_t name_hash(const std::string& name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// The factors llama.cpp's converter writes as rope_freqs.weight for a Llama 3.1 rope_scaling
// (convert_hf_to_gguf.py, LlamaModel.generate_extra_tensors): factor 8, low_freq_factor 1,
// high_freq_factor 4, original_max_position_embeddings 8192.
std::vector<float> llama3_rope_factors(const ModelShape& shape) {
  constexpr double kFactor = 8, kLow = 1, kHigh = 4, kOldContext = 8192;
  const double low_wavelen = kOldContext / kLow, high_wavelen = kOldContext / kHigh;
  const uint32_t dims = shape.rope_dims();
  std::vector<float> factors;
  for (uint32_t i = 0; i < dims; i += 2) {
    const double freq = 1.0 / std::pow(static_cast<double>(shape.rope_freq_base), double(i) / dims);
    const double wavelen = 2 * M_PI / freq;
    if (wavelen < high_wavelen) {
      factors.push_back(1.0f);
    } else if (wavelen > low_wavelen) {
      factors.push_back(static_cast<float>(kFactor));
    } else {
      const double smooth = (kOldContext / wavelen - kLow) / (kHigh - kLow);
      factors.push_back(static_cast<float>(1 / ((1 - smooth) / kFactor + smooth)));
    }
  }
  return factors;
}

// gemma4's proportional RoPE as llama.cpp's converter writes it (Gemma4Model
// generate_extra_tensors): the first partial_rotary_factor (0.25) of the global head's pairs
// turn (factor 1), the others keep still (factor 1e30).
std::vector<float> proportional_rope_factors(const ModelShape& shape) {
  const uint32_t pairs = shape.rope_dims() / 2, turning = shape.head_dim() / 8;
  std::vector<float> factors(pairs, 1e30f);
  std::fill_n(factors.begin(), std::min(turning, pairs), 1.0f);
  return factors;
}

MetaValue array_of(MetaType type, const std::vector<uint32_t>& values) {
  MetaValue a;
  a.type = MetaType::array;
  a.array_type = type;
  for (uint32_t v : values) {
    MetaValue e;
    e.type = type;
    e.u = v;
    e.i = v;
    a.array.push_back(e);
  }
  a.array_count = a.array.size();
  return a;
}

// gemma4's keys (src/llama-arch.cpp; Gemma4Model.set_gguf_parameters writes them): the global
// layers' head size and rotary dimension in key_length / rope.dimension_count, the sliding ones'
// in *_swa, the pattern as one bool per layer, per-layer KV head counts as an array, the shared
// KV layers, and embedding_length_per_layer_input (required by llama.cpp's loader; 0: none).
void set_per_layer_attention(GgufWriter& w, const ModelShape& shape) {
  const std::string p = std::string(shape.traits().name) + ".";
  w.set_u32(p + "attention.key_length", shape.head_dim());
  w.set_u32(p + "attention.value_length", shape.head_dim());
  const uint32_t swa_head = shape.key_length_swa != 0 ? shape.key_length_swa : shape.head_dim();
  w.set_u32(p + "attention.key_length_swa", swa_head);
  w.set_u32(p + "attention.value_length_swa", swa_head);
  w.set_u32(p + "rope.dimension_count_swa",
            shape.rope_dim_swa != 0 ? shape.rope_dim_swa : swa_head);
  w.set_f32(p + "rope.freq_base_swa", shape.local_rope_base());
  std::vector<uint32_t> pattern;
  for (uint32_t l = 0; l < shape.n_layer; ++l) pattern.push_back(shape.swa_layer(l) ? 1 : 0);
  w.set_meta(p + "attention.sliding_window_pattern", array_of(MetaType::boolean, pattern));
  if (!shape.layer_heads.empty()) {
    w.set_meta(p + "attention.head_count", array_of(MetaType::u32, shape.layer_heads));
  }
  if (!shape.layer_heads_kv.empty()) {
    w.set_meta(p + "attention.head_count_kv", array_of(MetaType::u32, shape.layer_heads_kv));
  }
  if (!shape.layer_ff.empty()) {
    w.set_meta(p + "feed_forward_length", array_of(MetaType::u32, shape.layer_ff));
  }
  w.set_u32(p + "attention.shared_kv_layers", shape.shared_kv_layers);
  w.set_u32(p + "embedding_length_per_layer_input", shape.n_embd_per_layer);
}

void set_hyper_parameters(GgufWriter& w, const ModelShape& shape) {
  // Keys as llama.cpp's src/llama-arch.cpp (LLM_KV_NAMES) spells them, "%s" being the arch.
  const std::string p = std::string(shape.traits().name) + ".";
  w.set_u32(p + "context_length", shape.context);
  w.set_u32(p + "embedding_length", shape.n_embd);
  w.set_u32(p + "block_count", shape.n_layer + shape.n_layer_nextn);
  if (shape.n_layer_nextn > 0) w.set_u32(p + "nextn_predict_layers", shape.n_layer_nextn);
  w.set_u32(p + "feed_forward_length", shape.n_ff);
  w.set_u32(p + "attention.head_count", shape.n_head);
  w.set_u32(p + "attention.head_count_kv", shape.n_head_kv);
  if (shape.key_length != 0) {
    w.set_u32(p + "attention.key_length", shape.key_length);
    w.set_u32(p + "attention.value_length", shape.key_length);
  }
  w.set_u32(p + "rope.dimension_count", shape.rope_dims());
  w.set_f32(p + "rope.freq_base", shape.rope_freq_base);
  if (shape.yarn) {
    w.set_string(p + "rope.scaling.type", "yarn");
    w.set_f32(p + "rope.scaling.factor", 1.0f / shape.rope_freq_scale);
    if (shape.yarn_orig_context != 0) {
      w.set_u32(p + "rope.scaling.original_context_length", shape.yarn_orig_context);
    }
  } else if (shape.rope_freq_scale != 1.0f) {
    w.set_string(p + "rope.scaling.type", "linear");
    w.set_f32(p + "rope.scaling.factor", 1.0f / shape.rope_freq_scale);
  }
  w.set_f32(p + "attention.layer_norm_rms_epsilon", shape.rms_eps);
  if (shape.traits().swa_pattern != 0 &&
      (shape.sliding_window != 0 || !shape.traits().per_layer_heads)) {
    w.set_u32(p + "attention.sliding_window", shape.sliding_window);
  }
  if (shape.attn_softcap != 0) w.set_f32(p + "attn_logit_softcapping", shape.attn_softcap);
  if (shape.final_softcap != 0) w.set_f32(p + "final_logit_softcapping", shape.final_softcap);
  if (shape.traits().gated_delta_net || shape.traits().mamba2) {
    w.set_u32(p + "ssm.conv_kernel", shape.ssm_conv);
    w.set_u32(p + "ssm.state_size", shape.ssm_state);
    w.set_u32(p + "ssm.group_count", shape.ssm_groups);
    w.set_u32(p + "ssm.time_step_rank", shape.ssm_heads);
    w.set_u32(p + "ssm.inner_size", shape.ssm_inner);
  }
  if (shape.traits().gated_delta_net) {
    w.set_u32(p + "full_attention_interval", shape.attention_interval());
  }
  if (shape.traits().mamba2 && !shape.layer_heads_kv.empty()) {
    // The Mamba2 hybrids: head_count_kv per layer, 0 on the Mamba2 layers.
    w.set_meta(p + "attention.head_count_kv", array_of(MetaType::u32, shape.layer_heads_kv));
  }
  if (shape.traits().one_branch_layers) {
    // nemotron_h: the feed-forward layers by their feed_forward_length (0 elsewhere), and the
    // norm's epsilon under the key its loader requires.
    w.set_meta(p + "feed_forward_length", array_of(MetaType::u32, shape.layer_ff));
    w.set_f32(p + "attention.layer_norm_epsilon", shape.rms_eps);
  }
  if (shape.traits().granite_multipliers) {
    const std::pair<const char*, float> multipliers[] = {{"embedding_scale", shape.embedding_scale},
                                                         {"residual_scale", shape.residual_scale},
                                                         {"attention.scale", shape.attention_scale},
                                                         {"logit_scale", shape.logit_scale}};
    for (const auto& [key, value] : multipliers) {
      if (value != 0.0f) w.set_f32(p + key, value);
    }
    MetaValue rope;
    rope.type = MetaType::boolean;
    rope.u = shape.rope ? 1 : 0;
    w.set_meta(p + "rope.scaling.finetuned", rope);
  }
  if (shape.traits().gating_key) {
    // llama.cpp's numbering: 1 softmax, 2 sigmoid, 3 softmax of the picked.
    const ExpertGating g = shape.gating();
    w.set_u32(p + "expert_gating_func", g == ExpertGating::sigmoid          ? 2
                                        : g == ExpertGating::softmax_weight ? 3
                                                                            : 1);
  }
  if (shape.traits().dense_lead) {
    w.set_u32(p + "leading_dense_block_count", shape.n_layer_dense_lead);
  }
  if (shape.traits().yarn_keys && shape.yarn) {
    w.set_f32(p + "rope.scaling.yarn_beta_fast", shape.yarn_beta_fast);
    w.set_f32(p + "rope.scaling.yarn_beta_slow", shape.yarn_beta_slow);
    w.set_f32(p + "rope.scaling.yarn_log_multiplier", shape.yarn_log_mul);
  }
  if (shape.traits().attn_temperature && shape.attn_temp_scale != 0.0f) {
    w.set_f32(p + "attention.temperature_scale", shape.attn_temp_scale);
  }
  if (shape.traits().short_conv) {
    // lfm2: the conv's taps, and head_count_kv per layer (0 on the short-convolution layers).
    w.set_u32(p + "shortconv.l_cache", shape.ssm_conv);
    if (!shape.layer_heads_kv.empty()) {
      w.set_meta(p + "attention.head_count_kv", array_of(MetaType::u32, shape.layer_heads_kv));
    }
  }
  if (shape.traits().rope_sections) {
    // An array of 4 int32, as llama.cpp's converter writes it (add_rope_dimension_sections).
    MetaValue sections;
    sections.type = MetaType::array;
    sections.array_type = MetaType::i32;
    for (uint32_t n : shape.rope_sections) {
      MetaValue e;
      e.type = MetaType::i32;
      e.i = n;
      sections.array.push_back(e);
    }
    sections.array_count = sections.array.size();
    w.set_meta(p + "rope.dimension_sections", std::move(sections));
  }
  if (shape.traits().deepstack) w.set_u32(p + "n_deepstack_layers", shape.n_deepstack_layers);
  if (shape.traits().per_layer_heads) {
    // laguna's converter: head_count one per layer, and the sliding layers' RoPE where they slide.
    if (!shape.layer_heads.empty()) {
      w.set_meta(p + "attention.head_count", array_of(MetaType::u32, shape.layer_heads));
    }
    if (shape.sliding_window != 0) {
      w.set_f32(p + "rope.freq_base_swa",
                shape.rope_freq_base_swa != 0 ? shape.rope_freq_base_swa : shape.rope_freq_base);
      w.set_u32(p + "rope.dimension_count_swa",
                shape.rope_dim_swa != 0 ? shape.rope_dim_swa : shape.rope_dims());
    }
  }
  if (shape.traits().per_layer_attention) set_per_layer_attention(w, shape);
  if (shape.moe()) {
    w.set_u32(p + "expert_count", shape.n_expert);
    w.set_u32(p + "expert_used_count", shape.n_expert_used);
    if (shape.traits().expert_length_key) {
      w.set_u32(p + "expert_feed_forward_length", shape.expert_ff());
    }
    if (shape.shared_expert()) {
      w.set_u32(p + "expert_shared_feed_forward_length", shape.shared_expert_ff());
    }
    if (shape.traits().expert_weights_keys) {
      MetaValue norm;
      norm.type = MetaType::boolean;
      norm.u = shape.expert_weights_norm ? 1 : 0;
      w.set_meta(p + "expert_weights_norm", norm);
      w.set_f32(p + "expert_weights_scale", shape.expert_weights_scale);
    }
  }
}

// The router's logits spread several units apart, so that the experts a token picks are not
// decided by the last bits of a device's arithmetic (a near tie would make two exact devices pick
// differently, which tells nothing about either).
constexpr float kRouterScale = 4.0f;

}  // namespace

core::Result<GgufWriter> synthetic_writer(const ModelShape& shape, FileType format, uint64_t seed,
                                          std::span<const TensorTypeOverride> overrides,
                                          const Imatrix* imatrix) {
  GAUNTLET_TRY(validate_shape(shape));
  const auto tensors = model_tensors(shape, format, overrides, imatrix != nullptr);
  GAUNTLET_TRY(check_importance(tensors, imatrix));
  GgufWriter w;
  w.set_string("general.architecture", shape.traits().name);
  w.set_string("general.name", shape.name);
  w.set_u32("general.file_type", static_cast<uint32_t>(format));
  w.set_u32("general.quantization_version", 2);  // GGML_QNT_VERSION
  w.set_u64("gauntlet.synthetic_seed", seed);
  set_hyper_parameters(w, shape);
  add_minimal_tokenizer(w, shape.n_vocab);
  for (const auto& t : tensors) {
    const uint64_t tensor_seed = seed ^ name_hash(t.name);
    // Rows are generated in order, so one generator per tensor gives the same values each time.
    auto rng = std::make_shared<core::Rng>(tensor_seed);
    const uint64_t n_in = t.ne[0];
    if (t.name == "rope_freqs.weight") {
      auto factors = shape.traits().rope_freqs_global_only ? proportional_rope_factors(shape)
                                                           : llama3_rope_factors(shape);
      w.add_tensor(t.name, t.ne, t.type, [factors = std::move(factors)](uint64_t, float* out) {
        std::copy(factors.begin(), factors.end(), out);
      });
      continue;
    }
    // A gated DeltaNet's A = -exp(A_log) is negative, so that exp(softplus(alpha + dt_bias) * A)
    // is a decay; within [-1, -0.2] the state keeps the last few tokens without forgetting them
    // at once.
    if (t.name.ends_with(".ssm_a")) {
      w.add_tensor(t.name, t.ne, t.type, [rng, n_in, tensor_seed](uint64_t row, float* out) {
        if (row == 0) *rng = core::Rng(tensor_seed);
        for (uint64_t i = 0; i < n_in; ++i) out[i] = rng->uniform(-1.0f, -0.2f);
      });
      continue;
    }
    // The shared expert's gate is a vector of weights, not a norm: its dot product with the normed
    // input is of order one, so that its sigmoid neither saturates nor stays at one half.
    const bool gate_vector = t.name.ends_with("ffn_gate_inp_shexp.weight");
    // Mamba2's grouped norm is a 2-D tensor of norm weights.
    if ((t.is_vector && !gate_vector) || t.name.ends_with("_norm.weight")) {
      // Norm weights near 1; biases around 0, large enough to move the attention; attention
      // sinks of the order of the scores, so that some heads give them much of their weight.
      const bool bias = t.name.ends_with(".bias"), sinks = t.name.ends_with("attn_sinks.weight");
      const float centre = bias || sinks ? 0.0f : 1.0f;
      const float spread = sinks ? 2.0f : bias ? 0.5f : 0.2f;
      w.add_tensor(t.name, t.ne, t.type,
                   [rng, n_in, tensor_seed, centre, spread](uint64_t row, float* out) {
                     if (row == 0) *rng = core::Rng(tensor_seed);
                     for (uint64_t i = 0; i < n_in; ++i)
                       out[i] = centre + rng->uniform(-spread, spread);
                   });
      continue;
    }
    // Embeddings are looked up, not multiplied, so they get unit scale; a tied one is also the
    // output matrix, where at unit scale the fed token's own row would win every step, so it is
    // kept small beside what the layers add (also after gemma's sqrt(n_embd) scale).
    const bool embedding = t.name == "token_embd.weight";
    const float tied_scale =
        0.1f / (shape.traits().embed_scale ? std::sqrt(static_cast<float>(shape.n_embd)) : 1.0f);
    // gemma4's router reads its input divided by sqrt(n_embd): its weights are that much larger.
    const float router_input =
        shape.dense_beside_experts() ? std::sqrt(static_cast<float>(shape.n_embd)) : 1.0f;
    const float router =
        t.name.ends_with("ffn_gate_inp.weight") ? kRouterScale * router_input : 1.0f;
    const float a = !embedding          ? router * std::sqrt(3.0f / static_cast<float>(n_in))
                    : shape.tied_output ? tied_scale
                                        : 1.0f;
    w.add_tensor(t.name, t.ne, t.type, [rng, n_in, a, tensor_seed](uint64_t row, float* out) {
      if (row == 0) *rng = core::Rng(tensor_seed);
      for (uint64_t i = 0; i < n_in; ++i) out[i] = rng->uniform(-a, a);
    });
  }
  if (imatrix) {
    for (const auto& t : tensors) {
      if (const auto* values = importance_for(t, *imatrix)) w.set_importance(t.name, *values);
    }
  }
  return w;
}

core::Status write_synthetic_model(const ModelShape& shape, FileType format, uint64_t seed,
                                   const std::filesystem::path& path, bool overwrite,
                                   std::span<const TensorTypeOverride> overrides,
                                   const Imatrix* imatrix) {
  auto w = synthetic_writer(shape, format, seed, overrides, imatrix);
  if (!w) return w.error();
  return w->write(path, overwrite);
}

}  // namespace gauntlet::engine::model
