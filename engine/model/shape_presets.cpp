// The presets: published models' dimensions as data (one row of Preset a model), the gemma4
// family built from its 31B.
#include <algorithm>
#include <vector>

#include "engine/model/shape.h"

namespace gauntlet::engine::model {

namespace {

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
      // Ministral 3 (mistralai/Ministral-3-{3B,8B,14B}-Instruct-2512's text_config): head_dim 128,
      // rope_theta 1e6, rope_scaling yarn factor 16 over 16384 positions (beta_fast 32, beta_slow
      // 1, mscale_all_dim 1) with llama_4_scaling_beta 0.1, 262144 positions, vocab 131072; the
      // 3B ties its embeddings.
      {"ministral-3-3b",  mistral3,  3072, 26, 32, 8, 128, 9216,  131072, 262144, 1000000.0f,  1e-5f, true,  false, 0, 1.0f, 0, 0, 0, 16.0f, 16384},
      {"ministral-3-8b",  mistral3,  4096, 34, 32, 8, 128, 14336, 131072, 262144, 1000000.0f,  1e-5f, false, false, 0, 1.0f, 0, 0, 0, 16.0f, 16384},
      {"ministral-3-14b", mistral3,  5120, 40, 32, 8, 128, 16384, 131072, 262144, 1000000.0f,  1e-5f, false, false, 0, 1.0f, 0, 0, 0, 16.0f, 16384},
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
      // LiquidAI/LFM2.5-1.2B-Instruct's config.json (as LFM2-1.2B's): block_dim 2048, 16 layers
      // of which full_attn_idxs [2, 5, 8, 10, 12, 14] attend, 32 heads and 8 KV heads, block_ff_dim
      // 12288 auto-adjusted to 8192 (int(2 * 12288 / 3), a multiple of 256), conv_L_cache 3, tied.
      {"lfm2.5-1.2b",     lfm2,      2048, 16, 32, 8, 64,  8192,  65536,  128000, 1000000.0f,  1e-5f, true,  false},
      // LiquidAI/LFM2-8B-A1B's config.json: block_dim 2048, 24 layers (6 attend), 32 heads and 8
      // KV heads, the first num_dense_layers 2 with a 7168-wide SwiGLU, the rest 32 experts of
      // moe_intermediate_size 1792, 4 per token, sigmoid-gated with an expert bias, tied.
      {"lfm2-8b-a1b",     lfm2moe,   2048, 24, 32, 8, 64,  7168,  65536,  128000, 1000000.0f,  1e-5f, true,  false, 0, 1.0f, 32, 4, 1792},
      // nvidia/Nemotron-H-8B-Base-8K's config.json: hidden 4096, 52 layers by
      // hybrid_override_pattern (mamba2_hybrids below), 32 heads and 8 KV heads of 128, a
      // squared-ReLU feed-forward of 21504, vocab 131072, 8192 positions, untied.
      {"nemotron-h-8b",   nemotron_h, 4096, 52, 32, 8, 128, 21504, 131072, 8192, 10000.0f,    1e-5f, false, false},
      // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B's config.json: hidden 2688, 52 layers, 32 heads and 2
      // KV heads of 128, 128 ungated experts of 1856 (6 a token, norm_topk_prob, routed scaling
      // 2.5) and a shared one of 3712, vocab 131072, 262144 positions.
      {"nemotron-3-nano-30b-a3b", nemotron_h_moe, 2688, 52, 32, 2, 128, 1856, 131072, 262144, 10000.0f, 1e-5f, false, false, 0, 1.0f, 128, 6, 1856},
      // ibm-granite/granite-4.0-h-tiny's config.json: hidden 1536, 40 layers (attention at 5, 15,
      // 25 and 35; mamba2_hybrids below), 12 heads and 4 KV heads of 128, 64 experts of 512 (6 a
      // token) and a shared one of 1024, vocab 100352, 131072 positions, tied; no RoPE (the
      // converter's rope.scaling.finetuned false). Its multipliers change no size: left out.
      {"granite-4.0-h-tiny", granitehybrid, 1536, 40, 12, 4, 128, 512, 100352, 131072, 10000.0f, 1e-5f, true, false, 0, 1.0f, 64, 6, 512},
      // ibm-granite/granite-4.0-h-small, as its GGUF's metadata gives it (granitehybrid.*): hidden
      // 4096, 40 layers (attention at 5, 15, 25 and 35), 32 heads of 128 and 8 KV heads, 72
      // experts of 768 (10 a token) and a shared one of 1536, vocab 100352, tied, no RoPE.
      {"granite-4.0-h-small", granitehybrid, 4096, 40, 32, 8, 128, 768, 100352, 131072, 10000.0f, 1e-5f, true, false, 0, 1.0f, 72, 10, 768},
      // poolside/Laguna-XS.2's config.json: hidden 2048, 40 layers (full_attention where i % 4 ==
      // 0, else sliding_attention over sliding_window 512), num_attention_heads_per_layer 48 on the
      // full layers and 64 on the sliding ones (laguna below), 8 KV heads of 128, intermediate_size
      // 8192, 256 experts of 512 (8 a token), vocab 100352, untied; rope_parameters.full_attention:
      // YaRN theta 500000, factor 32 over 4096 positions.
      {"laguna-xs.2",     laguna,    2048, 40, 48, 8, 128, 8192,  100352, 131072, 500000.0f,   1e-6f, false, false, 512, 1.0f, 256, 8, 512, 32.0f, 4096},
      // Small shapes for tests and benchmarks.
      {"test-tiny",       llama, 64,   2,  4,  2,  16,  128,   256,    128,    10000.0f,   1e-5f, false, false},
      {"test-small",      llama, 128,  3,  4,  4,  32,  352,   512,    256,    10000.0f,   1e-5f, false, false},
      {"test-gqa",        llama, 256,  2,  8,  2,  32,  512,   1000,   512,    10000.0f,   1e-5f, false, false},
      {"test-lfm2",       lfm2,  64,   4,  4,  2,  16,  128,   256,    256,    10000.0f,   1e-5f, true,  false},
      {"test-nemotron-h", nemotron_h, 64, 6, 4, 2, 16,  128,   256,    256,    10000.0f,   1e-5f, false, false},
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
  // The short-convolution hybrids' attention layers (full_attn_idxs); the others convolve.
  struct ShortConv {
    const char* name;
    std::vector<uint32_t> attends;
  };
  static const ShortConv short_convs[] = {{"lfm2.5-1.2b", {2, 5, 8, 10, 12, 14}},
                                          {"lfm2-8b-a1b", {2, 6, 10, 14, 18, 21}},
                                          {"test-lfm2", {1, 3}}};
  // The Mamba2 hybrids' layers (hybrid_override_pattern: M Mamba2, * attention, - feed-forward)
  // and Mamba2 blocks (mamba_num_heads of mamba_head_dim, n_groups, ssm_state_size), and the
  // shared expert's width (moe_shared_expert_intermediate_size, shared_intermediate_size).
  struct Mamba2Hybrid {
    const char* name;
    const char* pattern;
    uint32_t heads, head_dim, groups, state, shared_ff = 0;
  };
  static const Mamba2Hybrid mamba2_hybrids[] = {
      {"nemotron-h-8b", "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", 128, 64, 8, 128},
      {"nemotron-3-nano-30b-a3b", "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME", 64, 64, 8,
       128, 3712},
      {"test-nemotron-h", "M-M*M-", 4, 32, 2, 32},
      // mamba_n_heads 48 of mamba_d_head 64, mamba_n_groups 1, mamba_d_state 128.
      {"granite-4.0-h-tiny", "MMMMM*MMMMMMMMM*MMMMMMMMM*MMMMMMMMM*MMMM", 48, 64, 1, 128, 1024},
      // ssm.inner_size 8192 in ssm.time_step_rank 128 heads of 64, ssm.group_count 1,
      // ssm.state_size 128.
      {"granite-4.0-h-small", "MMMMM*MMMMMMMMM*MMMMMMMMM*MMMMMMMMM*MMMM", 128, 64, 1, 128, 1536}};
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
      for (const auto& c : short_convs) {
        if (s.name != c.name) continue;
        for (uint32_t l = 0; l < s.n_layer; ++l) {
          const bool attends = std::find(c.attends.begin(), c.attends.end(), l) != c.attends.end();
          s.layer_heads_kv.push_back(attends ? s.n_head_kv : 0);
        }
        s.ssm_conv = 3;  // conv_L_cache
      }
      for (const auto& b : mamba2_hybrids) {
        if (s.name != b.name) continue;
        (void)apply_layer_pattern(s, b.pattern);  // the table's patterns are tested
        s.ssm_conv = kSsmConvWidth;
        s.ssm_heads = b.heads;
        s.ssm_inner = b.heads * b.head_dim;
        s.ssm_groups = b.groups;
        s.ssm_state = b.state;
        s.n_ff_shexp = b.shared_ff;
      }
      if (s.arch == Arch::granitehybrid) s.rope = false;
      if (s.arch == Arch::nemotron_h_moe) {
        s.expert_weights_norm = true;
        s.expert_weights_scale = 2.5f;
      }
      if (s.arch == Arch::lfm2moe) {
        s.n_layer_dense_lead = 2;  // num_dense_layers
        s.expert_gating_func = 2;  // sigmoid
      }
      if (s.arch == Arch::laguna) {
        for (uint32_t l = 0; l < s.n_layer; ++l) s.layer_heads.push_back(s.sliding(l) ? 64 : 48);
        s.rope_dim = 64;       // full_attention's partial_rotary_factor 0.5
        s.rope_dim_swa = 128;  // sliding_attention: the whole head
        s.rope_freq_base_swa = 10000.0f;
        s.n_ff_shexp = 512;             // shared_expert_intermediate_size
        s.n_layer_dense_lead = 1;       // mlp_layer_types: one dense layer first
        s.expert_weights_norm = true;   // norm_topk_prob
        s.expert_weights_scale = 2.5f;  // moe_routed_scaling_factor
      }
      if (s.arch == Arch::mistral3) {
        s.yarn_log_mul = 1.0f;     // mscale_all_dim
        s.attn_temp_scale = 0.1f;  // llama_4_scaling_beta
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

}  // namespace

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

}  // namespace gauntlet::engine::model
