// parse_dims: a shape from --dims text ("n_embd=64,n_layer=2,...").
#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <string>

#include "engine/model/shape.h"
#include "engine/model/shape_error.h"

namespace gauntlet::engine::model {

using detail::bad_shape;

namespace {

// Dims for a small hybrid where the text leaves them out: Qwen3.5's proportions (two value heads
// per key head, sections of a quarter-rotated head split 11:11:10 as Qwen's [11, 11, 10]).
void default_recurrent_dims(ModelShape& s) {
  if (s.traits().short_conv && s.ssm_conv == 0) s.ssm_conv = 3;  // LFM2's l_cache
  if (s.traits().mamba2) {
    // Nemotron-H's proportions: heads of 64 (here 32) values, 8 (here 2) groups, state 128 (32).
    if (s.ssm_conv == 0) s.ssm_conv = kSsmConvWidth;
    if (s.ssm_state == 0) s.ssm_state = 32;
    if (s.ssm_groups == 0) s.ssm_groups = 2;
    if (s.ssm_heads == 0) s.ssm_heads = 2 * s.n_embd / 32;
    if (s.ssm_inner == 0) s.ssm_inner = 2 * s.n_embd;
    return;
  }
  if (!s.traits().gated_delta_net) return;
  if (s.ssm_conv == 0) s.ssm_conv = kSsmConvWidth;
  if (s.ssm_state == 0) s.ssm_state = 32;
  if (s.ssm_groups == 0) s.ssm_groups = 2;
  if (s.ssm_heads == 0) s.ssm_heads = 2 * s.ssm_groups;
  if (s.ssm_inner == 0) s.ssm_inner = s.ssm_heads * s.ssm_state;
}

// IMROPE's sections where the text leaves them out: the rotated pairs split nearly evenly, as
// Qwen's [11, 11, 10] and [24, 20, 20].
void default_rope_sections(ModelShape& s) {
  auto& r = s.rope_sections;
  if (!s.traits().rope_sections || r[0] + r[1] + r[2] + r[3] != 0) return;
  const uint32_t n = s.rope_dims() / 2;
  r = {(n + 2) / 3, (n + 1) / 3, n / 3, 0};
}

}  // namespace

core::Result<ModelShape> parse_dims(const std::string& text) {
  ModelShape s;
  std::map<std::string, uint32_t*> ints = {{"n_embd", &s.n_embd},
                                           {"n_layer", &s.n_layer},
                                           {"n_head", &s.n_head},
                                           {"n_head_kv", &s.n_head_kv},
                                           {"n_ff", &s.n_ff},
                                           {"n_vocab", &s.n_vocab},
                                           {"context", &s.context},
                                           {"rope_dim", &s.rope_dim},
                                           {"head_dim", &s.key_length},
                                           {"window", &s.sliding_window},
                                           {"n_expert", &s.n_expert},
                                           {"n_expert_used", &s.n_expert_used},
                                           {"n_ff_exp", &s.n_ff_exp},
                                           {"n_ff_shexp", &s.n_ff_shexp},
                                           {"yarn_orig_ctx", &s.yarn_orig_context},
                                           {"ssm_conv", &s.ssm_conv},
                                           {"ssm_state", &s.ssm_state},
                                           {"ssm_groups", &s.ssm_groups},
                                           {"ssm_heads", &s.ssm_heads},
                                           {"ssm_inner", &s.ssm_inner},
                                           {"full_attention_interval", &s.full_attention_interval},
                                           {"head_dim_swa", &s.key_length_swa},
                                           {"rope_dim_swa", &s.rope_dim_swa},
                                           {"shared_kv", &s.shared_kv_layers},
                                           {"deepstack", &s.n_deepstack_layers},
                                           {"nextn", &s.n_layer_nextn},
                                           {"n_embd_per_layer", &s.n_embd_per_layer},
                                           {"dense_lead", &s.n_layer_dense_lead},
                                           {"gating", &s.expert_gating_func}};
  // gemma4: the global layers' KV heads, and the period of the sliding pattern (P - 1 sliding
  // layers, then a global one).
  uint32_t n_head_kv_global = 0, swa_period = 0, double_wide = 0;
  // laguna: the sliding layers' query heads (n_head: the global layers').
  uint32_t n_head_swa = 0;
  ints["n_head_kv_global"] = &n_head_kv_global;
  ints["n_head_swa"] = &n_head_swa;
  ints["double_wide_mlp"] = &double_wide;
  ints["swa_pattern"] = &swa_period;
  std::stringstream in(text);
  std::string item;
  bool tied_given = false;
  std::vector<uint32_t> attn_layers;  // lfm2: the attention layers; the others are convolutions
  std::string layer_pattern;          // nemotron_h: M, * and - per layer
  while (std::getline(in, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) return bad_shape("'" + item + "' is not name=value");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "arch") {
      auto arch = parse_architecture(value);
      if (!arch) return bad_shape(arch.error().message);
      s.arch = *arch;
      continue;
    }
    if (key == "rope_sections") {
      std::stringstream parts(value);
      std::string part;
      for (uint32_t i = 0; i < 4; ++i) {
        if (!std::getline(parts, part, ':')) break;
        auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), s.rope_sections[i]);
        if (ec != std::errc() || p != part.data() + part.size()) {
          return bad_shape("'" + value + "' is not T:H:W:E whole numbers for rope_sections");
        }
      }
      continue;
    }
    if (key == "layers") {
      layer_pattern = value;
      continue;
    }
    if (key == "attn_layers") {
      std::stringstream parts(value);
      std::string part;
      while (std::getline(parts, part, ':')) {
        uint32_t layer = 0;
        auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), layer);
        if (ec != std::errc() || p != part.data() + part.size()) {
          return bad_shape("'" + value + "' is not layer numbers A:B:... for attn_layers");
        }
        attn_layers.push_back(layer);
      }
      continue;
    }
    const std::map<std::string, float*> floats = {
        {"expert_scale", &s.expert_weights_scale}, {"embedding_scale", &s.embedding_scale},
        {"residual_scale", &s.residual_scale},     {"attention_scale", &s.attention_scale},
        {"logit_scale", &s.logit_scale},           {"yarn_beta_fast", &s.yarn_beta_fast},
        {"yarn_beta_slow", &s.yarn_beta_slow},     {"yarn_log_mul", &s.yarn_log_mul},
        {"attn_temp_scale", &s.attn_temp_scale}};
    if (auto f = floats.find(key); f != floats.end()) {
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), *f->second);
      if (ec != std::errc() || p != value.data() + value.size()) {
        return bad_shape("'" + value + "' is not a number for " + key);
      }
      continue;
    }
    if (key == "rope_freq_base" || key == "rms_eps" || key == "attn_softcap" ||
        key == "final_softcap" || key == "yarn_factor" || key == "rope_freq_base_swa") {
      float f = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), f);
      if (ec != std::errc() || p != value.data() + value.size()) {
        return bad_shape("'" + value + "' is not a number for " + key);
      }
      if (key == "yarn_factor") {
        if (!(f > 0)) return bad_shape("yarn_factor must be positive");
        s.yarn = true;
        s.rope_freq_scale = 1.0f / f;
        continue;
      }
      float* target = key == "rms_eps"              ? &s.rms_eps
                      : key == "attn_softcap"       ? &s.attn_softcap
                      : key == "final_softcap"      ? &s.final_softcap
                      : key == "rope_freq_base_swa" ? &s.rope_freq_base_swa
                                                    : &s.rope_freq_base;
      *target = f;
      continue;
    }
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || p != value.data() + value.size()) {
      return bad_shape("'" + value + "' is not a whole number for " + key);
    }
    tied_given = tied_given || key == "tied";
    if (key == "tied" || key == "rope_freqs" || key == "fused_gate_up" || key == "k_as_v" ||
        key == "expert_norm" || key == "rope") {
      (key == "tied"            ? s.tied_output
       : key == "rope_freqs"    ? s.rope_freqs
       : key == "fused_gate_up" ? s.fused_expert_gate_up
       : key == "expert_norm"   ? s.expert_weights_norm
       : key == "rope"          ? s.rope
                                : s.k_as_v) = v != 0;
      continue;
    }
    auto it = ints.find(key);
    if (it == ints.end()) return bad_shape("unknown dimension '" + key + "'");
    *it->second = v;
  }
  if (s.n_head_kv == 0) s.n_head_kv = s.n_head;
  if (s.traits().always_tied && !tied_given) s.tied_output = true;
  if (swa_period != 0) {
    for (uint32_t l = 0; l < s.n_layer; ++l)
      s.swa_layers.push_back(l % swa_period < swa_period - 1);
  }
  apply_architecture_defaults(s);
  if (n_head_kv_global != 0) {
    for (uint32_t l = 0; l < s.n_layer; ++l) {
      s.layer_heads_kv.push_back(s.swa_layer(l) ? s.n_head_kv : n_head_kv_global);
    }
  }
  if (n_head_swa != 0 && !s.traits().per_layer_heads) {
    return bad_shape(std::string(s.traits().name) +
                     " has one query head count for every layer (n_head_swa is laguna's)");
  }
  if (n_head_swa != 0) {
    for (uint32_t l = 0; l < s.n_layer; ++l) {
      s.layer_heads.push_back(s.sliding(l) ? n_head_swa : s.n_head);
    }
  }
  // Gemma4Model.set_gguf_parameters: n_ff before the first shared-KV layer, 2 n_ff from it.
  if (double_wide != 0) {
    for (uint32_t l = 0; l < s.n_layer; ++l)
      s.layer_ff.push_back(s.has_kv(l) ? s.n_ff : 2 * s.n_ff);
  }
  if (!attn_layers.empty()) {
    for (uint32_t layer : attn_layers) {
      if (layer >= s.n_layer) {
        return bad_shape("attn_layers names layer " + std::to_string(layer) + " of " +
                         std::to_string(s.n_layer));
      }
    }
    for (uint32_t l = 0; l < s.n_layer; ++l) {
      const bool attends =
          std::find(attn_layers.begin(), attn_layers.end(), l) != attn_layers.end();
      s.layer_heads_kv.push_back(attends ? s.n_head_kv : 0);
    }
  }
  if (!layer_pattern.empty()) GAUNTLET_TRY(apply_layer_pattern(s, layer_pattern));
  default_recurrent_dims(s);
  default_rope_sections(s);
  return s;
}

core::Status apply_layer_pattern(ModelShape& s, std::string_view pattern) {
  const bool one_branch = s.traits().one_branch_layers;
  if (!s.traits().mamba2 || pattern.size() != s.n_layer) {
    return bad_shape("layers='" + std::string(pattern) + "' must give one letter for each of the " +
                     std::to_string(s.n_layer) + " layers of a Mamba2 hybrid");
  }
  s.layer_heads_kv.clear();
  s.layer_ff.clear();
  for (char c : pattern) {
    // E, as the converters' patterns write a mixture's layers, is a feed-forward too: its
    // experts are the model's (nemotron_h_moe's every feed-forward layer).
    const bool feeds_forward = c == '-' || c == 'E';
    if (c != 'M' && c != '*' && !(one_branch && feeds_forward)) {
      return bad_shape(std::string("layers: '") + c + "' is not M (Mamba2), * (attention)" +
                       (one_branch ? ", - or E (feed-forward)" : ""));
    }
    s.layer_heads_kv.push_back(c == '*' ? s.n_head_kv : 0);
    if (one_branch) s.layer_ff.push_back(feeds_forward ? s.n_ff : 0);
  }
  return core::Status::ok();
}

}  // namespace gauntlet::engine::model
