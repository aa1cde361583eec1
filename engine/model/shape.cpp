#include "engine/model/shape.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "engine/model/tokenizer_meta.h"

namespace gauntlet::engine::model {

namespace {

core::Error bad_shape(const std::string& what) {
  return core::make_error(core::ErrorKind::invalid_argument, "invalid model shape: " + what);
}

// One preset: dimensions as the model's own config.json gives them (hidden_size, num_hidden_layers,
// num_attention_heads, num_key_value_heads, head_dim, intermediate_size, vocab_size,
// max_position_embeddings, rope_theta, rms_norm_eps, tie_word_embeddings).
struct Preset {
  const char* name;
  Arch arch;
  uint32_t embd, layers, heads, kv, head_dim, ff, vocab, ctx;
  float freq_base, rms_eps;
  bool tied, rope_freqs;
  uint32_t window = 0;      // sliding window; 0: the architecture's default
  float rope_scale = 1.0f;  // linear RoPE scaling (1 / rope_scaling.factor)
  // num_experts, num_experts_per_tok, moe_intermediate_size (0: a dense model)
  uint32_t experts = 0, experts_used = 0, expert_ff = 0;
  // rope_scaling {"rope_type": "yarn", "factor", "original_max_position_embeddings"}; 0: none
  float yarn_factor = 0.0f;
  uint32_t yarn_orig_ctx = 0;
};

ModelShape make(const Preset& p) {
  ModelShape s;
  s.name = p.name;
  s.arch = p.arch;
  s.n_embd = p.embd;
  s.n_layer = p.layers;
  s.n_head = p.heads;
  s.n_head_kv = p.kv;
  s.key_length = p.head_dim == p.embd / p.heads ? 0 : p.head_dim;
  s.n_ff = p.ff;
  s.n_vocab = p.vocab;
  s.context = p.ctx;
  s.rope_freq_base = p.freq_base;
  s.rms_eps = p.rms_eps;
  s.tied_output = p.tied;
  s.rope_freqs = p.rope_freqs;
  s.sliding_window = p.window;
  s.rope_freq_scale = p.rope_scale;
  s.n_expert = p.experts;
  s.n_expert_used = p.experts_used;
  s.n_ff_exp = p.expert_ff;
  if (p.yarn_factor != 0) {
    s.yarn = true;
    s.rope_freq_scale = 1.0f / p.yarn_factor;
    s.yarn_orig_context = p.yarn_orig_ctx;
  }
  apply_architecture_defaults(s);
  return s;
}

// Gemma 4 (the text_config of google/gemma-4-31B, and the smaller ones below): sliding layers of
// 256-wide heads (16 KV heads, window 1024, RoPE base 10000), every sixth layer global with
// 512-wide heads (4 KV heads, K as V, proportional RoPE over a quarter of the head at base 1e6),
// hidden 5376, 60 layers, 32 heads, feed-forward 21504, vocabulary 262144, context 262144, final
// soft-cap 30 (30.7B parameters).
std::vector<ModelShape> gemma4_presets() {
  ModelShape s;
  s.name = "gemma-4-31b";
  s.arch = Arch::gemma4;
  s.n_embd = 5376;
  s.n_layer = 60;
  s.n_head = 32;
  s.n_head_kv = 16;
  s.key_length = 512;
  s.key_length_swa = 256;
  s.n_ff = 21504;
  s.n_vocab = 262144;
  s.context = 262144;
  s.rope_freq_base = 1000000.0f;
  s.rms_eps = 1e-6f;
  s.tied_output = true;
  s.sliding_window = 1024;
  s.k_as_v = true;
  apply_architecture_defaults(s);
  for (uint32_t l = 0; l < s.n_layer; ++l) s.layer_heads_kv.push_back(s.swa_layer(l) ? 16 : 4);
  std::vector<ModelShape> out = {s};
  // The E2B and E4B (text_config of google/gemma-4-E2B / -E4B): 256-wide sliding heads (window
  // 512) and 512-wide global ones with attn_v (attention_k_eq_v false; the global layers' KV heads
  // fall back to num_key_value_heads), per-layer embeddings of 256 per layer, the last
  // num_kv_shared_layers layers reading earlier KV; the E2B's pattern is four sliding layers then
  // a global one and its shared layers' feed-forward twice as wide (use_double_wide_mlp).
  auto small = [&](const char* name, uint32_t embd, uint32_t layers, uint32_t kv, uint32_t ff,
                   uint32_t period, uint32_t shared, bool double_wide) {
    ModelShape e = s;
    e.name = name;
    e.n_embd = embd;
    e.n_layer = layers;
    e.n_head = 8;
    e.n_head_kv = kv;
    e.n_ff = ff;
    e.context = 131072;
    e.sliding_window = 512;
    e.k_as_v = false;
    e.shared_kv_layers = shared;
    e.n_embd_per_layer = 256;
    e.layer_heads_kv.clear();
    e.swa_layers.clear();
    for (uint32_t l = 0; l < layers; ++l) e.swa_layers.push_back(l % period < period - 1);
    if (double_wide) {
      for (uint32_t l = 0; l < layers; ++l) e.layer_ff.push_back(e.has_kv(l) ? ff : 2 * ff);
    }
    return e;
  };
  out.push_back(small("gemma-4-e2b", 1536, 35, 1, 6144, 5, 20, true));
  out.push_back(small("gemma-4-e4b", 2560, 42, 2, 10240, 6, 18, false));
  // The 16-head models: 8 KV heads on the sliding layers, 2 on the global ones, K as V, window
  // 1024.
  auto sixteen_heads = [&](const char* name, uint32_t embd, uint32_t layers, uint32_t ff) {
    ModelShape e = s;
    e.name = name;
    e.n_embd = embd;
    e.n_layer = layers;
    e.n_head = 16;
    e.n_head_kv = 8;
    e.n_ff = ff;
    e.layer_heads_kv.clear();
    e.swa_layers.clear();
    apply_architecture_defaults(e);
    for (uint32_t l = 0; l < layers; ++l) e.layer_heads_kv.push_back(e.swa_layer(l) ? 8 : 2);
    return e;
  };
  // The 26B-A4B (google/gemma-4-26B-A4B): hidden 2816, 30 layers, a dense feed-forward of 2112
  // beside 128 experts of 704, 8 picked (25.2B parameters, 3.8B active).
  ModelShape m = sixteen_heads("gemma-4-26b-a4b", 2816, 30, 2112);
  m.n_expert = 128;
  m.n_expert_used = 8;
  m.n_ff_exp = 704;
  out.push_back(m);
  // The dense 12B (google/gemma-4-12B's model card): hidden 3840, 48 layers, 16 heads, window
  // 1024, every sixth layer global with 512-wide heads, vocabulary 262144, tied, 11.95B
  // parameters. Its feed-forward width and KV heads are not in what we could read; they are
  // derived: with the 26B-A4B's layout and a feed-forward of 4 x 3840 the text decoder holds
  // 11.92B, the card's 11.95B less its ~35M vision embedder.
  out.push_back(sixteen_heads("gemma-4-12b", 3840, 48, 15360));
  return out;
}

const std::vector<ModelShape>& presets() {
  using enum Arch;
  // Llama 3.1+ ship rope_freqs (their rope_scaling "llama3"), written by llama.cpp's converter as
  // the rope_freqs.weight tensor; Mistral converts to `llama`.
  // clang-format off
  static const Preset table[] = {
      // name               arch   embd  L   H   KV  hd   ff     vocab   ctx     freq_base   eps    tied   freqs
      {"llama-3.2-1b",    llama, 2048, 16, 32, 8,  64,  8192,  128256, 131072, 500000.0f,  1e-5f, true,  true},
      {"llama-3.2-3b",    llama, 3072, 28, 24, 8,  128, 8192,  128256, 131072, 500000.0f,  1e-5f, true,  true},
      {"llama-3.1-8b",    llama, 4096, 32, 32, 8,  128, 14336, 128256, 131072, 500000.0f,  1e-5f, false, true},
      {"qwen2.5-0.5b",    qwen2, 896,  24, 14, 2,  64,  4864,  151936, 32768,  1000000.0f, 1e-6f, true,  false},
      {"qwen2.5-1.5b",    qwen2, 1536, 28, 12, 2,  128, 8960,  151936, 32768,  1000000.0f, 1e-6f, true,  false},
      {"qwen2.5-7b",      qwen2, 3584, 28, 28, 4,  128, 18944, 152064, 131072, 1000000.0f, 1e-6f, false, false},
      {"qwen3-0.6b",      qwen3, 1024, 28, 16, 8,  128, 3072,  151936, 40960,  1000000.0f, 1e-6f, true,  false},
      {"qwen3-4b",        qwen3, 2560, 36, 32, 8,  128, 9728,  151936, 40960,  1000000.0f, 1e-6f, true,  false},
      {"qwen3-8b",        qwen3, 4096, 36, 32, 8,  128, 12288, 151936, 40960,  1000000.0f, 1e-6f, false, false},
      {"phi-3-mini-4k",   phi3,  3072, 32, 32, 32, 96,  8192,  32064,  4096,   10000.0f,   1e-5f, false, false},
      {"mistral-7b-v0.3", llama, 4096, 32, 32, 8,  128, 14336, 32768,  32768,  1000000.0f, 1e-5f, false, false},
      {"tinyllama-1.1b",  llama, 2048, 22, 32, 4,  64,  5632,  32000,  2048,   10000.0f,   1e-5f, false, false},
      {"llama-7b",        llama, 4096, 32, 32, 32, 128, 11008, 32000,  4096,   10000.0f,   1e-5f, false, false},
      // Gemma: the sliding window and, for Gemma 3 4B/12B, the linear RoPE scaling (factor 8) of
      // the global layers; soft-caps are llama.cpp's gemma2 defaults (50, 30), Gemma 3's sliding
      // layers take RoPE base 10000 (architecture.cpp).
      {"gemma-2-2b",      gemma2, 2304, 26, 8, 4,  256, 9216,  256000, 8192,   10000.0f,   1e-6f, true,  false, 4096},
      {"gemma-2-9b",      gemma2, 3584, 42, 16, 8, 256, 14336, 256000, 8192,   10000.0f,   1e-6f, true,  false, 4096},
      {"gemma-3-1b",      gemma3, 1152, 26, 4, 1,  256, 6912,  262144, 32768,  1000000.0f, 1e-6f, true,  false, 512},
      {"gemma-3-4b",      gemma3, 2560, 34, 8, 4,  256, 10240, 262208, 131072, 1000000.0f, 1e-6f, true,  false, 1024, 0.125f},
      {"gemma-3-12b",     gemma3, 3840, 48, 16, 8, 256, 15360, 262208, 131072, 1000000.0f, 1e-6f, true,  false, 1024, 0.125f},
      // Mixtures of experts: every expert counts in the bytes, only the used ones in the speed.
      {"qwen3-30b-a3b",       qwen3moe, 2048, 48, 32, 4, 128, 6144,  151936, 40960,  1000000.0f,  1e-6f, false, false, 0, 1.0f, 128, 8, 768},
      {"qwen3-coder-30b-a3b", qwen3moe, 2048, 48, 32, 4, 128, 6144,  151936, 262144, 10000000.0f, 1e-6f, false, false, 0, 1.0f, 128, 8, 768},
      {"qwen3-235b-a22b",     qwen3moe, 4096, 94, 64, 4, 128, 12288, 151936, 40960,  1000000.0f,  1e-6f, false, false, 0, 1.0f, 128, 8, 1536},
      {"mixtral-8x7b",        llama,    4096, 32, 32, 8, 128, 14336, 32000,  32768,  1000000.0f,  1e-5f, false, false, 0, 1.0f, 8,   2, 0},
      // gpt-oss (openai/gpt-oss-20b and -120b config.json): sliding_window 128 on alternate layers,
      // rope_scaling yarn factor 32 over 4096 positions, experts 2880 wide.
      {"gpt-oss-20b",         gpt_oss,  2880, 24, 64, 8, 64,  2880,  201088, 131072, 150000.0f,   1e-5f, false, false, 128, 1.0f, 32, 4, 2880, 32.0f, 4096},
      {"gpt-oss-120b",        gpt_oss,  2880, 36, 64, 8, 64,  2880,  201088, 131072, 150000.0f,   1e-5f, false, false, 128, 1.0f, 128, 4, 2880, 32.0f, 4096},
      // Qwen3.5 / 3.6, the gated-DeltaNet hybrids (text_config): head_dim 256, rope on a quarter of
      // it (partial_rotary_factor 0.25), the DeltaNet's dims in kHybrids below.
      {"qwen3.5-0.8b",    qwen35,    1024, 24, 8,  2, 256, 3584,  248320, 262144, 10000000.0f, 1e-6f, true,  false},
      {"qwen3.5-4b",      qwen35,    2560, 32, 16, 4, 256, 9216,  248320, 262144, 10000000.0f, 1e-6f, true,  false},
      {"qwen3.5-9b",      qwen35,    4096, 32, 16, 4, 256, 12288, 248320, 262144, 10000000.0f, 1e-6f, false, false},
      {"qwen3.6-27b",     qwen35,    5120, 64, 24, 4, 256, 17408, 248320, 262144, 10000000.0f, 1e-6f, false, false},
      {"qwen3.6-35b-a3b", qwen35moe, 2048, 40, 16, 2, 256, 512,   248320, 262144, 10000000.0f, 1e-6f, false, false, 0, 1.0f, 256, 8, 512},
      // Qwen3-VL's text decoders (text_config of Qwen/Qwen3-VL-2B-Instruct and -8B-Instruct):
      // IMROPE over the whole 128-wide head, mrope_section [24, 20, 20], deepstack after the first
      // three layers (vision_config.deepstack_visual_indexes has three).
      {"qwen3-vl-2b",     qwen3vl,   2048, 28, 16, 8, 128, 6144,  151936, 262144, 5000000.0f,  1e-6f, true,  false},
      {"qwen3-vl-8b",     qwen3vl,   4096, 36, 32, 8, 128, 12288, 151936, 262144, 5000000.0f,  1e-6f, false, false},
      // Small shapes for tests and benchmarks.
      {"test-tiny",       llama, 64,   2,  4,  2,  16,  128,   256,    128,    10000.0f,   1e-5f, false, false},
      {"test-small",      llama, 128,  3,  4,  4,  32,  352,   512,    256,    10000.0f,   1e-5f, false, false},
      {"test-gqa",        llama, 256,  2,  8,  2,  32,  512,   1000,   512,    10000.0f,   1e-5f, false, false},
      {"bench-110m",      llama, 768,  12, 12, 12, 64,  2048,  32000,  1024,   10000.0f,   1e-5f, false, false},
  };
  // The hybrids' DeltaNet (text_config's linear_* keys): conv kernel 4, key heads of 128
  // (linear_num_key_heads 16), value heads of 128; mrope_section [11, 11, 10] of the 32 rotated
  // pairs; the shared expert's width (shared_expert_intermediate_size).
  struct Hybrid {
    const char* name;
    uint32_t key_heads, value_heads, shared_ff;
  };
  static const Hybrid hybrids[] = {{"qwen3.5-0.8b", 16, 16, 0},
                                   {"qwen3.5-4b", 16, 32, 0},
                                   {"qwen3.5-9b", 16, 32, 0},
                                   {"qwen3.6-27b", 16, 48, 0},
                                   {"qwen3.6-35b-a3b", 16, 32, 512}};
  // clang-format on
  static const std::vector<ModelShape> all = [] {
    std::vector<ModelShape> v;
    for (const auto& p : table) {
      ModelShape s = make(p);
      for (const auto& h : hybrids) {
        if (s.name != h.name) continue;
        s.rope_dim = s.head_dim() / 4;
        s.rope_sections = {11, 11, 10, 0};
        s.ssm_conv = kSsmConvWidth;
        s.ssm_state = 128;
        s.ssm_groups = h.key_heads;
        s.ssm_heads = h.value_heads;
        s.ssm_inner = h.value_heads * 128;
        s.full_attention_interval = 4;
        s.n_ff_shexp = h.shared_ff;
      }
      if (s.arch == Arch::qwen3vl) {
        s.rope_sections = {24, 20, 20, 0};
        s.n_deepstack_layers = 3;
      }
      v.push_back(s);
    }
    for (const auto& s : gemma4_presets()) v.push_back(s);
    return v;
  }();
  return all;
}

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
    if (s.ff(l) == 0 || s.ff(l) % 32 != 0) {
      return bad_shape("feed_forward_length " + std::to_string(s.ff(l)) + at +
                       " must be a positive multiple of 32");
    }
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

// The gated DeltaNet's dimensions, as llama.cpp's qwen35 graph needs them (src/models/qwen35.cpp:
// head_v_dim = inner_size / time_step_rank must equal state_size, the value heads a multiple of
// the key heads) and the recurrent kernels take them (conv width 4, heads up to kMaxSsmState).
core::Status validate_recurrent(const ModelShape& s) {
  if (!s.traits().gated_delta_net) return core::Status::ok();
  if (s.ssm_conv != kSsmConvWidth) {
    return bad_shape("ssm.conv_kernel " + std::to_string(s.ssm_conv) +
                     " is not a conv1d width the recurrent kernels support (" +
                     std::to_string(kSsmConvWidth) + ")");
  }
  const std::pair<const char*, uint32_t> dims[] = {{"ssm.state_size", s.ssm_state},
                                                   {"ssm.group_count", s.ssm_groups},
                                                   {"ssm.time_step_rank", s.ssm_heads},
                                                   {"ssm.inner_size", s.ssm_inner}};
  for (const auto& [name, value] : dims) {
    if (value == 0) return bad_shape(std::string(name) + " must be positive");
  }
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

// Dims for a small hybrid where the text leaves them out: Qwen3.5's proportions (two value heads
// per key head, sections of a quarter-rotated head split 11:11:10 as Qwen's [11, 11, 10]).
void default_recurrent_dims(ModelShape& s) {
  if (!s.traits().gated_delta_net) return;
  if (s.ssm_conv == 0) s.ssm_conv = kSsmConvWidth;
  if (s.ssm_state == 0) s.ssm_state = 32;
  if (s.ssm_groups == 0) s.ssm_groups = 2;
  if (s.ssm_heads == 0) s.ssm_heads = 2 * s.ssm_groups;
  if (s.ssm_inner == 0) s.ssm_inner = s.ssm_heads * s.ssm_state;
}

// IMROPE's sections (ggml-cpu's rope_multi asserts that the first three are not all 0; rope_table
// says which pairs they turn). Where the text leaves them out: the rotated pairs split nearly
// evenly, as Qwen's [11, 11, 10] and [24, 20, 20].
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

void default_rope_sections(ModelShape& s) {
  auto& r = s.rope_sections;
  if (!s.traits().rope_sections || r[0] + r[1] + r[2] + r[3] != 0) return;
  const uint32_t n = s.rope_dims() / 2;
  r = {(n + 2) / 3, (n + 1) / 3, n / 3, 0};
}

}  // namespace

void apply_architecture_defaults(ModelShape& s) {
  const Architecture& a = s.traits();
  if (s.sliding_window == 0) s.sliding_window = a.default_window;
  if (s.attn_softcap == 0) s.attn_softcap = a.attn_softcap;
  if (s.final_softcap == 0) s.final_softcap = a.final_softcap;
  if (!a.per_layer_attention) return;
  // gemma4's files carry the pattern; a shape without one takes the architecture's period.
  if (s.swa_layers.empty()) {
    const uint32_t pattern = a.swa_pattern;
    for (uint32_t l = 0; l < s.n_layer; ++l) s.swa_layers.push_back(l % pattern < pattern - 1);
  }
  // Its global layers always take rope_freqs (src/models/gemma4.cpp creates it for the first
  // global layer without TENSOR_NOT_REQUIRED).
  for (uint32_t l = 0; l < s.n_layer; ++l) s.rope_freqs = s.rope_freqs || !s.swa_layer(l);
}

uint32_t ModelShape::max_n_embd_q() const {
  uint32_t m = n_embd_q();
  for (uint32_t l = 0; l < n_layer; ++l) m = std::max(m, n_embd_q(l));
  return m;
}

uint32_t ModelShape::max_n_embd_kv() const {
  uint32_t m = n_embd_kv();
  for (uint32_t l = 0; l < n_layer; ++l) m = std::max(m, n_embd_kv(l));
  return m;
}

uint32_t ModelShape::max_ff() const {
  uint32_t m = n_ff;
  for (uint32_t ff : layer_ff) m = std::max(m, ff);
  return m;
}

uint32_t ModelShape::max_heads() const {
  uint32_t m = n_head;
  for (uint32_t l = 0; l < n_layer; ++l) m = std::max(m, heads(l));
  return m;
}

core::Status validate_shape(const ModelShape& s) {
  const std::pair<const char*, uint32_t> dims[] = {
      {"n_embd", s.n_embd},       {"n_layer", s.n_layer}, {"n_head", s.n_head},
      {"n_head_kv", s.n_head_kv}, {"n_ff", s.n_ff},       {"n_vocab", s.n_vocab},
      {"context", s.context}};
  for (const auto& [name, value] : dims) {
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

core::Result<ModelShape> preset_shape(const std::string& name) {
  for (const auto& s : presets()) {
    if (s.name == name) return s;
  }
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  return core::make_error(core::ErrorKind::not_found,
                          "unknown model shape '" + name + "' (known: " + known + ")");
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& s : presets()) names.push_back(s.name);
  return names;
}

core::Result<ModelShape> parse_shape(const std::string& text) {
  return text.find('=') != std::string::npos ? parse_dims(text) : preset_shape(text);
}

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
                                           {"n_embd_per_layer", &s.n_embd_per_layer}};
  // gemma4: the global layers' KV heads, and the period of the sliding pattern (P - 1 sliding
  // layers, then a global one).
  uint32_t n_head_kv_global = 0, swa_period = 0, double_wide = 0;
  ints["n_head_kv_global"] = &n_head_kv_global;
  ints["double_wide_mlp"] = &double_wide;
  ints["swa_pattern"] = &swa_period;
  std::stringstream in(text);
  std::string item;
  bool tied_given = false;
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
    if (key == "tied" || key == "rope_freqs" || key == "fused_gate_up" || key == "k_as_v") {
      (key == "tied"            ? s.tied_output
       : key == "rope_freqs"    ? s.rope_freqs
       : key == "fused_gate_up" ? s.fused_expert_gate_up
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
  // Gemma4Model.set_gguf_parameters: n_ff before the first shared-KV layer, 2 n_ff from it.
  if (double_wide != 0) {
    for (uint32_t l = 0; l < s.n_layer; ++l)
      s.layer_ff.push_back(s.has_kv(l) ? s.n_ff : 2 * s.n_ff);
  }
  default_recurrent_dims(s);
  default_rope_sections(s);
  return s;
}

}  // namespace gauntlet::engine::model
