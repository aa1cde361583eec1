#include "engine/cpu/interleaved.h"

#include <array>
#include <cstring>
#include <string>

namespace gauntlet::engine::cpu {

bool has_interleaved_layout(core::TensorType type) {
  return type == core::TensorType::q4_0 || type == core::TensorType::q8_0 ||
         type == core::TensorType::mxfp4 || type == core::TensorType::q4_K;
}

bool interleaves(core::TensorType type, std::string_view name, uint64_t n_out,
                 uint64_t n_matrices) {
  if (!has_interleaved_layout(type)) return false;
  if (n_matrices != 1 || n_out == 0 || n_out % kGroupRows != 0) return false;
  if (name == "output.weight") return true;
  // The recurrent layers' projections too: Mamba2's ssm_in and ssm_out, the gated DeltaNet's gate,
  // beta and alpha, the short convolution's in_proj and out_proj.
  // clang-format off
  static constexpr std::array<std::string_view, 15> kProjections = {
      ".attn_q.weight", ".attn_k.weight", ".attn_v.weight", ".attn_qkv.weight",
      ".attn_output.weight", ".ffn_gate.weight", ".ffn_up.weight", ".ffn_down.weight",
      ".ssm_in.weight", ".ssm_out.weight", ".attn_gate.weight", ".ssm_beta.weight",
      ".ssm_alpha.weight", ".shortconv.in_proj.weight", ".shortconv.out_proj.weight"};
  // clang-format on
  if (!name.starts_with("blk.")) return false;
  for (auto suffix : kProjections) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

void interleave(core::TensorType type, const std::byte* rows, uint64_t n_rows, uint64_t n_in,
                std::byte* out) {
  const uint64_t scale = block_scale_bytes(type), codes = block_code_bytes(type);
  const uint64_t block_bytes = scale + codes, codes_at = kGroupRows * scale;
  const uint64_t blocks = n_in / core::block_elements(type);
  const auto* src = reinterpret_cast<const uint8_t*>(rows);
  auto* dst = reinterpret_cast<uint8_t*>(out);
  for (uint64_t g = 0; g < n_rows / kGroupRows; ++g) {
    for (uint64_t b = 0; b < blocks; ++b, dst += group_block_bytes(type)) {
      for (uint64_t r = 0; r < kGroupRows; ++r) {
        const uint8_t* blk = src + ((g * kGroupRows + r) * blocks + b) * block_bytes;
        std::memcpy(dst + scale * r, blk, scale);
        for (uint64_t c = 0; c < codes / 4; ++c) {
          std::memcpy(dst + codes_at + 32 * c + 4 * r, blk + scale + 4 * c, 4);
        }
      }
    }
  }
}

}  // namespace gauntlet::engine::cpu
