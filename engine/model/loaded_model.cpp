#include "engine/model/loaded_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gauntlet::engine::model {

namespace {

core::Error bad_model(const std::string& what) {
  return core::make_error(core::ErrorKind::invalid_argument, "not a usable model: " + what);
}

std::string dims_text(const std::vector<uint64_t>& ne) {
  std::string s = "[";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

core::Result<uint32_t> required_u32(const GgufInfo& info, const std::string& key, uint32_t max) {
  auto v = info.get_uint(key);
  if (!v) return bad_model("metadata '" + key + "' is missing or not a non-negative integer");
  if (*v == 0 || *v > max) {
    return bad_model("metadata '" + key + "' = " + std::to_string(*v) + " is outside 1.." +
                     std::to_string(max));
  }
  return static_cast<uint32_t>(*v);
}

// Features of real files that the engine does not run, refused by name before loading.
core::Status refuse_unsupported_features(const GgufInfo& info, const std::string& arch) {
  if (auto scaling = info.get_string(arch + ".rope.scaling.type");
      scaling && *scaling != "none" && *scaling != "linear" && *scaling != "yarn") {
    return bad_model("RoPE scaling '" + *scaling + "' (" + arch +
                     ".rope.scaling.type); the engine runs none, linear, yarn and rope_freqs "
                     "factors");
  }
  for (const auto& t : info.tensors) {
    // llama.cpp src/llama-arch.cpp: LLM_TENSOR_ROPE_FACTORS_LONG / _SHORT (Phi-3 128k).
    if (t.name.starts_with("rope_factors_long") || t.name.starts_with("rope_factors_short")) {
      return bad_model("LongRoPE factors (tensor '" + t.name + "')");
    }
    if (t.name.starts_with("v.") || t.name.starts_with("mm.")) {
      return bad_model("a vision tower (tensor '" + t.name + "')");
    }
  }
  return core::Status::ok();
}

// Optional integer keys, each read into its field when the file has it; a value that is not an
// integer within 0..2^20 is refused naming the key.
core::Status read_optional_counts(const GgufInfo& info, const std::string& p,
                                  std::span<const std::pair<const char*, uint32_t*>> keys) {
  for (const auto& [key, target] : keys) {
    if (!info.meta(p + key)) continue;
    auto v = info.get_uint(p + key);
    if (!v || *v > (1u << 20)) {
      return bad_model("metadata '" + p + key + "' is not an integer within 0.." +
                       std::to_string(1u << 20));
    }
    *target = static_cast<uint32_t>(*v);
  }
  return core::Status::ok();
}

// The mixture-of-experts keys (src/llama-arch.cpp: expert_count, expert_used_count,
// expert_feed_forward_length, expert_shared_feed_forward_length); a count of 0 is read as given,
// so that validate_shape names it.
core::Status read_experts(const GgufInfo& info, const std::string& p, ModelShape& s) {
  const std::pair<const char*, uint32_t*> keys[] = {
      {"expert_count", &s.n_expert},
      {"expert_used_count", &s.n_expert_used},
      {"expert_feed_forward_length", &s.n_ff_exp},
      {"expert_shared_feed_forward_length", &s.n_ff_shexp}};
  return read_optional_counts(info, p, keys);
}

// A gated DeltaNet's keys (llama_model_qwen35::load_arch_hparams): ssm.conv_kernel,
// ssm.inner_size, ssm.state_size, ssm.time_step_rank and ssm.group_count required,
// full_attention_interval optional. A value of 0 is read as given, so that validate_shape names it.
// Mamba2's (llama_model_nemotron_h::load_arch_hparams) are the same but full_attention_interval.
core::Status read_recurrent(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!s.traits().gated_delta_net && !s.traits().mamba2) return core::Status::ok();
  const std::pair<const char*, uint32_t*> keys[] = {
      {"ssm.conv_kernel", &s.ssm_conv},   {"ssm.inner_size", &s.ssm_inner},
      {"ssm.state_size", &s.ssm_state},   {"ssm.time_step_rank", &s.ssm_heads},
      {"ssm.group_count", &s.ssm_groups}, {"full_attention_interval", nullptr}};
  for (const auto& [key, target] : keys) {
    const bool optional = target == nullptr;
    if (optional && !info.meta(p + key)) continue;
    auto v = info.get_uint(p + key);
    if (!v || *v > (1u << 20)) {
      return bad_model("metadata '" + p + key + "' is missing or not an integer within 0.." +
                       std::to_string(1u << 20));
    }
    *(optional ? &s.full_attention_interval : target) = static_cast<uint32_t>(*v);
  }
  return core::Status::ok();
}

// IMROPE's rope.dimension_sections, required (an array of up to 4: llama_model_qwen35's and
// llama_model_qwen3vl's get_key_or_arr(..., 4, true)), and qwen3vl's optional n_deepstack_layers.
core::Status read_rope_sections(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (s.traits().deepstack) {
    const std::pair<const char*, uint32_t*> keys[] = {
        {"n_deepstack_layers", &s.n_deepstack_layers}};
    GAUNTLET_TRY(read_optional_counts(info, p, keys));
  }
  if (!s.traits().rope_sections) return core::Status::ok();
  const MetaValue* sections = info.meta(p + "rope.dimension_sections");
  if (sections == nullptr || sections->type != MetaType::array || sections->array_count > 4 ||
      sections->array.size() != sections->array_count) {
    return bad_model("metadata '" + p +
                     "rope.dimension_sections' is missing or not an array of up to 4 integers");
  }
  for (size_t i = 0; i < sections->array.size(); ++i) {
    const MetaValue& e = sections->array[i];
    const int64_t v =
        e.type == MetaType::i32 || e.type == MetaType::i64 ? e.i : static_cast<int64_t>(e.u);
    if (v < 0 || v > (1 << 16)) {
      return bad_model("metadata '" + p + "rope.dimension_sections' holds " + std::to_string(v) +
                       ", not a count of rotary pairs");
    }
    s.rope_sections[i] = static_cast<uint32_t>(v);
  }
  return core::Status::ok();
}

// One value per layer from an array key (llama.cpp's get_key_or_arr throws on another length:
// "key has wrong array length"); a scalar key gives no array.
core::Status read_layer_array(const GgufInfo& info, const std::string& key, uint32_t n_layer,
                              std::vector<uint32_t>& out) {
  const MetaValue* m = info.meta(key);
  if (m == nullptr || m->type != MetaType::array) return core::Status::ok();
  if (m->array_count != n_layer || m->array.size() != n_layer) {
    return bad_model("metadata '" + key + "' has " + std::to_string(m->array_count) +
                     " values for " + std::to_string(n_layer) + " layers");
  }
  out.clear();
  for (const MetaValue& e : m->array) {
    const int64_t v = e.type == MetaType::i32 || e.type == MetaType::i64 ||
                              e.type == MetaType::i8 || e.type == MetaType::i16
                          ? e.i
                          : static_cast<int64_t>(e.u);
    if (v < 0 || v > 65536) {
      return bad_model("metadata '" + key + "' holds " + std::to_string(v) + ", not a count");
    }
    out.push_back(static_cast<uint32_t>(v));
  }
  return core::Status::ok();
}

// rope.freq_base_swa, optional: the sliding layers' RoPE base.
core::Status read_swa_rope_base(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!info.meta(p + "rope.freq_base_swa")) return core::Status::ok();
  auto f = info.get_float(p + "rope.freq_base_swa");
  if (!f || !(*f > 0)) {
    return bad_model("metadata '" + p + "rope.freq_base_swa' is not a positive float");
  }
  s.rope_freq_base_swa = static_cast<float>(*f);
  return core::Status::ok();
}

// gemma4's per-layer attention keys (llama_model_gemma4::load_arch_hparams and llama.cpp's
// load_hparams): the sliding pattern (required, one bool per layer), per-layer head counts,
// the sliding layers' head size, rotary dimension and RoPE base, the shared KV layers, and
// embedding_length_per_layer_input (0: no per-layer embeddings). A file
// whose global layers have no attn_v takes K as V.
core::Status read_per_layer_attention(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!s.traits().per_layer_attention) return core::Status::ok();
  std::vector<uint32_t> pattern;
  GAUNTLET_TRY(read_layer_array(info, p + "attention.sliding_window_pattern", s.n_layer, pattern));
  if (pattern.empty()) {
    return bad_model("metadata '" + p +
                     "attention.sliding_window_pattern' is missing or not an array (one bool "
                     "per layer)");
  }
  s.swa_layers.assign(pattern.begin(), pattern.end());
  GAUNTLET_TRY(read_layer_array(info, p + "attention.head_count", s.n_layer, s.layer_heads));
  GAUNTLET_TRY(read_layer_array(info, p + "attention.head_count_kv", s.n_layer, s.layer_heads_kv));
  GAUNTLET_TRY(read_layer_array(info, p + "feed_forward_length", s.n_layer, s.layer_ff));
  if (!s.layer_ff.empty()) s.n_ff = s.layer_ff[0];
  if (!s.layer_heads.empty()) s.n_head = s.layer_heads[0];
  if (!s.layer_heads_kv.empty()) s.n_head_kv = s.layer_heads_kv[0];
  if (s.n_head_kv == 0) s.n_head_kv = s.n_head;  // head_count_kv defaults to head_count
  const std::pair<const char*, uint32_t*> keys[] = {
      {"attention.key_length_swa", &s.key_length_swa},
      {"rope.dimension_count_swa", &s.rope_dim_swa},
      {"attention.shared_kv_layers", &s.shared_kv_layers}};
  GAUNTLET_TRY(read_optional_counts(info, p, keys));
  if (s.shared_kv_layers > s.n_layer) {
    return bad_model("metadata '" + p +
                     "attention.shared_kv_layers' = " + std::to_string(s.shared_kv_layers) +
                     " exceeds the " + std::to_string(s.n_layer) + " layers");
  }
  if (auto v = info.get_uint(p + "attention.value_length_swa");
      v && s.key_length_swa != 0 && *v != s.key_length_swa) {
    return bad_model("metadata '" + p + "attention.value_length_swa' = " + std::to_string(*v) +
                     " differs from attention.key_length_swa " + std::to_string(s.key_length_swa) +
                     " (llama.cpp's gemma4 requires them equal)");
  }
  GAUNTLET_TRY(read_swa_rope_base(info, p, s));
  if (auto v = info.get_uint(p + "embedding_length_per_layer_input")) {
    if (*v > (1u << 16)) {
      return bad_model("metadata '" + p + "embedding_length_per_layer_input' = " +
                       std::to_string(*v) + " is not a width");
    }
    s.n_embd_per_layer = static_cast<uint32_t>(*v);
  }
  for (uint32_t l = 0; l + s.shared_kv_layers < s.n_layer; ++l) {
    if (s.swa_layer(l)) continue;
    s.k_as_v = info.find("blk." + std::to_string(l) + ".attn_v.weight") == nullptr;
    break;
  }
  return core::Status::ok();
}

// laguna's attention keys (llama_model_laguna::load_arch_hparams, llama.cpp's load_hparams):
// attention.head_count as a count or one per layer, and where the file has a sliding window the
// pattern (an array of one bool per layer where given, else every layer but each fourth from 0)
// and the sliding layers' RoPE base and rotary dimension.
core::Status read_per_layer_heads(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!s.traits().per_layer_heads) return core::Status::ok();
  GAUNTLET_TRY(read_layer_array(info, p + "attention.head_count", s.n_layer, s.layer_heads));
  if (!s.layer_heads.empty()) s.n_head = s.layer_heads[0];
  if (s.sliding_window == 0) return core::Status::ok();
  std::vector<uint32_t> pattern;
  GAUNTLET_TRY(read_layer_array(info, p + "attention.sliding_window_pattern", s.n_layer, pattern));
  s.swa_layers.assign(pattern.begin(), pattern.end());
  const std::pair<const char*, uint32_t*> keys[] = {{"rope.dimension_count_swa", &s.rope_dim_swa}};
  GAUNTLET_TRY(read_optional_counts(info, p, keys));
  GAUNTLET_TRY(read_swa_rope_base(info, p, s));
  return core::Status::ok();
}

// mistral3's optional keys (llama_model_mistral3::load_arch_hparams): YaRN's beta_fast, beta_slow
// and log multiplier, and the attention temperature, which needs an original context
// ("invalid n_ctx_orig_yarn for attention temperature scaling" there).
core::Status read_mistral3_keys(const GgufInfo& info, const std::string& p, ModelShape& s) {
  const std::pair<const char*, float*> keys[] = {
      {"rope.scaling.yarn_beta_fast", s.traits().yarn_keys ? &s.yarn_beta_fast : nullptr},
      {"rope.scaling.yarn_beta_slow", s.traits().yarn_keys ? &s.yarn_beta_slow : nullptr},
      {"rope.scaling.yarn_log_multiplier", s.traits().yarn_keys ? &s.yarn_log_mul : nullptr},
      {"attention.temperature_scale", s.traits().attn_temperature ? &s.attn_temp_scale : nullptr}};
  for (const auto& [key, target] : keys) {
    if (target == nullptr || !info.meta(p + key)) continue;
    auto f = info.get_float(p + key);
    if (!f || !std::isfinite(*f)) return bad_model("metadata '" + p + key + "' is not a float");
    *target = static_cast<float>(*f);
  }
  return core::Status::ok();
}

// lfm2moe's expert keys (llama_model_lfm2moe::load_arch_hparams): expert_gating_func, required,
// and leading_dense_block_count, optional.
core::Status read_expert_gating(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (s.traits().dense_lead) {
    const std::pair<const char*, uint32_t*> keys[] = {
        {"leading_dense_block_count", &s.n_layer_dense_lead}};
    GAUNTLET_TRY(read_optional_counts(info, p, keys));
  }
  if (!s.traits().gating_key) return core::Status::ok();
  auto gating = info.get_uint(p + "expert_gating_func");
  if (!gating || *gating < 1 || *gating > 3) {
    return bad_model("metadata '" + p +
                     "expert_gating_func' is missing or not 1 (softmax), 2 (sigmoid) or 3 "
                     "(softmax of the picked)");
  }
  s.expert_gating_func = static_cast<uint32_t>(*gating);
  return core::Status::ok();
}

// A hybrid's per-layer arrays: head_count_kv, whose 0 entries make a layer recurrent (lfm2's and
// nemotron_h's is_recr_impl), and feed_forward_length, whose entries make a nemotron_h layer a
// feed-forward; the model's KV heads and width are the largest layer's (where any layer has
// them: a hybrid without attention or feed-forward layers keeps the scalar defaults).
core::Status read_hybrid_layers(const GgufInfo& info, const std::string& p, ModelShape& s) {
  auto largest = [](const std::vector<uint32_t>& v, uint32_t& target) {
    if (!v.empty() && *std::max_element(v.begin(), v.end()) > 0) {
      target = *std::max_element(v.begin(), v.end());
    }
  };
  GAUNTLET_TRY(read_layer_array(info, p + "attention.head_count_kv", s.n_layer, s.layer_heads_kv));
  largest(s.layer_heads_kv, s.n_head_kv);
  if (!s.traits().one_branch_layers) return core::Status::ok();
  GAUNTLET_TRY(read_layer_array(info, p + "attention.head_count", s.n_layer, s.layer_heads));
  GAUNTLET_TRY(read_layer_array(info, p + "feed_forward_length", s.n_layer, s.layer_ff));
  largest(s.layer_heads, s.n_head);
  largest(s.layer_ff, s.n_ff);
  return core::Status::ok();
}

// nemotron_h_moe's optional expert_weights_norm (a bool) and expert_weights_scale
// (llama_model_nemotron_h::load_arch_hparams).
core::Status read_expert_weights(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!s.traits().expert_weights_keys) return core::Status::ok();
  if (const MetaValue* norm = info.meta(p + "expert_weights_norm")) {
    if (norm->type != MetaType::boolean) {
      return bad_model("metadata '" + p + "expert_weights_norm' is not a bool");
    }
    s.expert_weights_norm = norm->u != 0;
  }
  if (info.meta(p + "expert_weights_scale")) {
    auto scale = info.get_float(p + "expert_weights_scale");
    if (!scale || !std::isfinite(*scale) || *scale < 0) {
      return bad_model("metadata '" + p + "expert_weights_scale' is not a float of 0 or more");
    }
    s.expert_weights_scale = static_cast<float>(*scale);
  }
  return core::Status::ok();
}

// granitehybrid's optional multipliers and rope.scaling.finetuned (a bool, true unless given:
// llama_model_granite_hybrid::load_arch_hparams).
core::Status read_granite_keys(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!s.traits().granite_multipliers) return core::Status::ok();
  const std::pair<const char*, float*> keys[] = {{"embedding_scale", &s.embedding_scale},
                                                 {"residual_scale", &s.residual_scale},
                                                 {"attention.scale", &s.attention_scale},
                                                 {"logit_scale", &s.logit_scale}};
  for (const auto& [key, target] : keys) {
    if (!info.meta(p + key)) continue;
    auto f = info.get_float(p + key);
    if (!f || !std::isfinite(*f)) return bad_model("metadata '" + p + key + "' is not a float");
    *target = static_cast<float>(*f);
  }
  if (const MetaValue* rope = info.meta(p + "rope.scaling.finetuned")) {
    if (rope->type != MetaType::boolean) {
      return bad_model("metadata '" + p + "rope.scaling.finetuned' is not a bool");
    }
    s.rope = rope->u != 0;
  }
  return core::Status::ok();
}

// lfm2's keys (llama_model_lfm2::load_arch_hparams): shortconv.l_cache, required, and
// head_count_kv, whose 0 entries make a layer a short convolution; the model's KV heads are the
// attention layers'.
core::Status read_short_conv(const GgufInfo& info, const std::string& p, ModelShape& s) {
  if (!s.traits().short_conv) return core::Status::ok();
  auto l_cache = info.get_uint(p + "shortconv.l_cache");
  if (!l_cache || *l_cache < 2 || *l_cache > kSsmConvWidth) {
    return bad_model("metadata '" + p + "shortconv.l_cache' is missing or not within 2.." +
                     std::to_string(kSsmConvWidth));
  }
  s.ssm_conv = static_cast<uint32_t>(*l_cache);
  return read_hybrid_layers(info, p, s);
}

}  // namespace

core::Result<ModelShape> read_model_shape(const GgufInfo& info) {
  auto arch_name = info.get_string("general.architecture");
  if (!arch_name) return bad_model("metadata 'general.architecture' is missing");
  // A multimodal model's projector (mmproj) is its own file, which llama.cpp's mtmd loads beside
  // the text model (tools/mtmd/clip.cpp reads general.architecture "clip").
  if (*arch_name == "clip") {
    return bad_model(
        "architecture 'clip' is a vision projector (mmproj), not a text model: the engine runs "
        "the text decoder's file (qwen3vl, ...) and no projector");
  }
  auto arch = parse_architecture(*arch_name);
  if (!arch) return bad_model(arch.error().message);
  GAUNTLET_TRY(refuse_unsupported_features(info, *arch_name));
  const std::string p = *arch_name + ".";
  constexpr uint32_t kMaxDim = 1u << 20;
  ModelShape s;
  s.arch = *arch;
  s.name = info.get_string("general.name").value_or("gguf");
  const std::pair<const char*, std::pair<uint32_t*, uint32_t>> required[] = {
      {"embedding_length", {&s.n_embd, kMaxDim}},
      {"block_count", {&s.n_layer, 4096}},
      {"feed_forward_length", {&s.n_ff, kMaxDim}},
      {"attention.head_count", {&s.n_head, 65536}},
      {"context_length", {&s.context, 1u << 24}}};
  // Per-layer arrays (gemma4's head counts and widths, lfm2's head_count_kv) are read apart.
  const bool per_layer = s.traits().per_layer_attention || s.traits().short_conv ||
                         s.traits().mamba2 || s.traits().per_layer_heads;
  auto is_array = [&](const std::string& key) {
    const MetaValue* m = info.meta(key);
    return m != nullptr && m->type == MetaType::array;
  };
  for (const auto& [key, target] : required) {
    // Per-layer arrays are read with the rest of gemma4's keys.
    if (per_layer && is_array(p + key)) continue;
    auto v = required_u32(info, p + key, target.second);
    if (!v) return v.error();
    *target.first = *v;
  }
  // nextn_predict_layers (llama_model::load_hparams, any architecture): MTP blocks after the
  // trunk, counted in block_count (validate_shape says which architectures this reads them for).
  if (info.meta(p + "nextn_predict_layers") != nullptr) {
    auto nextn = required_u32(info, p + "nextn_predict_layers", s.n_layer);
    if (!nextn) return nextn.error();
    s.n_layer_nextn = *nextn;
    s.n_layer -= *nextn;
  }
  s.n_head_kv = s.n_head;
  const std::pair<const char*, uint32_t*> optional[] = {
      {"attention.head_count_kv", &s.n_head_kv},
      {"attention.key_length", &s.key_length},
      {"rope.dimension_count", &s.rope_dim},
      {"attention.sliding_window", &s.sliding_window}};
  for (const auto& [key, target] : optional) {
    if (!info.meta(p + key) || (per_layer && is_array(p + key))) continue;
    auto v = required_u32(info, p + key, kMaxDim);
    if (!v) return v.error();
    *target = *v;
  }
  GAUNTLET_TRY(read_experts(info, p, s));
  GAUNTLET_TRY(read_recurrent(info, p, s));
  GAUNTLET_TRY(read_rope_sections(info, p, s));
  GAUNTLET_TRY(read_per_layer_attention(info, p, s));
  GAUNTLET_TRY(read_per_layer_heads(info, p, s));
  GAUNTLET_TRY(read_short_conv(info, p, s));
  if (s.traits().mamba2) GAUNTLET_TRY(read_hybrid_layers(info, p, s));
  GAUNTLET_TRY(read_expert_gating(info, p, s));
  GAUNTLET_TRY(read_expert_weights(info, p, s));
  GAUNTLET_TRY(read_granite_keys(info, p, s));
  // llama.cpp's graphs for these architectures assert n_embd_head_k == n_embd_head_v.
  if (auto value_length = info.get_uint(p + "attention.value_length");
      value_length && *value_length != s.head_dim()) {
    return bad_model("metadata '" + p +
                     "attention.value_length' = " + std::to_string(*value_length) +
                     " differs from the key length " + std::to_string(s.head_dim()));
  }
  const std::pair<const char*, float*> floats[] = {{"rope.freq_base", &s.rope_freq_base},
                                                   {"attention.layer_norm_rms_epsilon", &s.rms_eps},
                                                   {"attn_logit_softcapping", &s.attn_softcap},
                                                   {"final_logit_softcapping", &s.final_softcap}};
  // nemotron_h requires attention.layer_norm_epsilon and takes it for the RMS norms unless
  // layer_norm_rms_epsilon is given (llama_model_nemotron_h::load_arch_hparams).
  if (s.traits().one_branch_layers) {
    auto eps = info.get_float(p + "attention.layer_norm_epsilon");
    if (!eps || !(*eps > 0)) {
      return bad_model("metadata '" + p +
                       "attention.layer_norm_epsilon' is missing or not a positive float");
    }
    s.rms_eps = static_cast<float>(*eps);
  }
  for (const auto& [key, target] : floats) {
    if (!info.meta(p + key)) continue;
    auto f = info.get_float(p + key);
    if (!f) return bad_model("metadata '" + p + key + "' is not a float");
    *target = static_cast<float>(*f);
  }
  // llama.cpp src/llama-model.cpp (load_hparams): freq_scale = 1 / rope.scaling.factor for
  // linear scaling; YaRN's factor may be absent (1), its original context is
  // rope.scaling.original_context_length or the training context; rope.scaling.attn_factor scales
  // every model's rotation (src/llama-context.cpp).
  const std::string scaling = info.get_string(p + "rope.scaling.type").value_or("none");
  s.yarn = scaling == "yarn";
  if (scaling == "linear" || (s.yarn && info.meta(p + "rope.scaling.factor"))) {
    auto factor = info.get_float(p + "rope.scaling.factor");
    if (!factor || !(*factor > 0)) {
      return bad_model("metadata '" + p + "rope.scaling.factor' is missing or not positive");
    }
    s.rope_freq_scale = static_cast<float>(1.0 / *factor);
  }
  if (info.meta(p + "rope.scaling.original_context_length")) {
    auto v = required_u32(info, p + "rope.scaling.original_context_length", 1u << 24);
    if (!v) return v.error();
    s.yarn_orig_context = *v;
  }
  GAUNTLET_TRY(read_mistral3_keys(info, p, s));
  if (info.meta(p + "rope.scaling.attn_factor")) {
    auto f = info.get_float(p + "rope.scaling.attn_factor");
    if (!f || !(*f > 0)) {
      return bad_model("metadata '" + p + "rope.scaling.attn_factor' is not a positive float");
    }
    s.rope_attn_factor = static_cast<float>(*f);
  }
  const TensorInfo* embd_t = info.find("token_embd.weight");
  if (embd_t == nullptr) return bad_model("tensor 'token_embd.weight' is missing");
  if (embd_t->ne.size() != 2 || embd_t->ne[1] > std::numeric_limits<uint32_t>::max()) {
    return bad_model("tensor 'token_embd.weight' has dimensions " + dims_text(embd_t->ne) +
                     ", expected [n_embd, n_vocab]");
  }
  s.n_vocab = static_cast<uint32_t>(embd_t->ne[1]);
  s.tied_output = info.find("output.weight") == nullptr;
  s.rope_freqs = info.find("rope_freqs.weight") != nullptr;
  s.fused_expert_gate_up = info.find("blk.0.ffn_gate_up_exps.weight") != nullptr;
  apply_architecture_defaults(s);
  auto valid = validate_shape(s);
  if (!valid) return bad_model(valid.error().message);
  return s;
}

core::Result<ModelWeights> bind_weights(const GgufInfo& info, const ModelShape& shape,
                                        const std::function<const std::byte*(size_t)>& data_of) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < info.tensors.size(); ++i) index[info.tensors[i].name] = i;
  std::map<std::string, TensorView> views;
  for (const auto& want : model_tensors(shape, FileType::f32)) {
    auto it = index.find(want.name);
    if (it == index.end() && want.optional) continue;
    if (it == index.end()) {
      return bad_model("tensor '" + want.name + "' is missing (architecture " +
                       shape.traits().name + " needs it)");
    }
    const TensorInfo& have = info.tensors[it->second];
    if (have.ne != want.ne) {
      return bad_model("tensor '" + want.name + "' has dimensions " + dims_text(have.ne) +
                       ", the shape needs " + dims_text(want.ne));
    }
    if ((want.is_vector || want.name.ends_with("ssm_conv1d.weight") ||
         want.name.ends_with("shortconv.conv.weight")) &&
        have.type != TensorType::f32) {
      return bad_model("tensor '" + want.name + "' is " + to_string(have.type) +
                       "; norms, biases, sinks, RoPE factors and conv1d kernels must be f32");
    }
    TensorView v;
    v.type = have.type;
    v.n_in = have.ne[0];
    v.n_out = have.ne.size() > 1 ? have.ne[1] : 1;
    v.n_matrices = have.ne.size() > 2 ? have.ne[2] : 1;
    v.data = data_of(it->second);
    if (v.data == nullptr) return bad_model("tensor '" + want.name + "' has no data");
    views[want.name] = v;
  }
  auto view = [&views](const std::string& name) {
    auto it = views.find(name);
    return it == views.end() ? TensorView{} : it->second;
  };
  ModelWeights w;
  w.token_embd = view("token_embd.weight");
  w.output_norm = view(shape.traits().output_norm);
  w.output = shape.tied_output ? w.token_embd : view("output.weight");
  w.rope_freqs = view("rope_freqs.weight");
  w.per_layer_token_embd = view("per_layer_token_embd.weight");
  w.per_layer_model_proj = view("per_layer_model_proj.weight");
  w.per_layer_proj_norm = view("per_layer_proj_norm.weight");
  for (uint32_t l = 0; l < shape.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    w.layers.push_back(bind_layer<TensorView>(shape, l, view));
  }
  return w;
}

std::vector<TensorDesc> tensors_of(const GgufInfo& info, const ModelShape& shape) {
  std::vector<TensorDesc> out;
  for (auto want : model_tensors(shape, FileType::f32)) {
    if (const TensorInfo* have = info.find(want.name)) {
      want.type = have->type;
      out.push_back(std::move(want));
    }
  }
  return out;
}

core::Result<LoadedModel> load_model(const GgufInfo& info, std::span<const std::byte> file_bytes) {
  auto shape = read_model_shape(info);
  if (!shape) return shape.error();
  auto weights = bind_weights(info, *shape, [&](size_t i) -> const std::byte* {
    const TensorInfo& t = info.tensors[i];
    // parse_gguf checked the bounds against the same bytes; this guards a mismatched pair.
    if (info.data_offset + t.offset + t.bytes > file_bytes.size()) return nullptr;
    return file_bytes.data() + info.data_offset + t.offset;
  });
  if (!weights) return weights.error();
  LoadedModel m;
  m.shape = *shape;
  m.weights = std::move(*weights);
  m.tensors = tensors_of(info, m.shape);
  auto named = file_type_from_id(
      static_cast<uint32_t>(info.get_uint("general.file_type").value_or(UINT32_MAX)));
  if (named) {
    m.file_type = *named;
  } else {
    std::map<TensorType, uint64_t> bytes;
    for (const auto& t : m.tensors) bytes[t.type] += t.bytes();
    TensorType most = TensorType::f32;
    for (const auto& [type, b] : bytes) {
      if (b > bytes[most]) most = type;
    }
    m.file_type = file_type_for(most).value_or(FileType::f32);
    m.file_type_guessed = true;
  }
  return m;
}

}  // namespace gauntlet::engine::model
