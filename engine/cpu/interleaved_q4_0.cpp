#include "engine/cpu/interleaved_q4_0.h"

#include <array>
#include <cstring>
#include <string>

namespace gauntlet::engine::cpu {

bool interleaves_q4_0(std::string_view name, uint64_t n_out, uint64_t n_matrices) {
  if (n_matrices != 1 || n_out == 0 || n_out % kGroupRows != 0) return false;
  if (name == "output.weight") return true;
  static constexpr std::array<std::string_view, 8> kProjections = {
      ".attn_q.weight",      ".attn_k.weight",   ".attn_v.weight", ".attn_qkv.weight",
      ".attn_output.weight", ".ffn_gate.weight", ".ffn_up.weight", ".ffn_down.weight"};
  if (!name.starts_with("blk.")) return false;
  for (auto suffix : kProjections) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

void interleave_q4_0(const std::byte* rows, uint64_t n_rows, uint64_t n_in, std::byte* out) {
  constexpr uint64_t kBlockBytes = 18;  // ggml's block_q4_0: f16 d, then 16 code bytes
  const uint64_t blocks = n_in / 32;
  const auto* src = reinterpret_cast<const uint8_t*>(rows);
  auto* dst = reinterpret_cast<uint8_t*>(out);
  for (uint64_t g = 0; g < n_rows / kGroupRows; ++g) {
    for (uint64_t b = 0; b < blocks; ++b, dst += kGroupBlockBytes) {
      for (uint64_t r = 0; r < kGroupRows; ++r) {
        const uint8_t* blk = src + ((g * kGroupRows + r) * blocks + b) * kBlockBytes;
        std::memcpy(dst + 2 * r, blk, 2);
        for (uint64_t c = 0; c < 4; ++c) std::memcpy(dst + 16 + 32 * c + 4 * r, blk + 2 + 4 * c, 4);
      }
    }
  }
}

}  // namespace gauntlet::engine::cpu
