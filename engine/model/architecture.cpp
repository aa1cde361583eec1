#include "engine/model/architecture.h"

namespace gauntlet::engine::model {

namespace {

// Rotary styles: llama.cpp src/llama-model.cpp, llama_model_rope_type (LLM_ARCH_LLAMA is NORM;
// QWEN2, QWEN3 and PHI3 are NEOX).
constexpr Architecture kArchitectures[] = {
    // src/models/llama.cpp: separate Q/K/V without bias, SwiGLU of ffn_gate and ffn_up
    // (LLM_FFN_SILU, LLM_FFN_PAR), rope_freqs factors where the file has them.
    {.arch = Arch::llama, .name = "llama", .graph = "src/models/llama.cpp"},
    // src/models/qwen2.cpp: Qcur = wq * cur + bq (likewise K and V), then RoPE.
    {.arch = Arch::qwen2,
     .name = "qwen2",
     .graph = "src/models/qwen2.cpp",
     .rope = RopeStyle::neox,
     .qkv_bias = true},
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
     .fused_gate_up = true},
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

std::string known_architectures() {
  std::string s;
  for (const auto& a : kArchitectures) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

}  // namespace gauntlet::engine::model
