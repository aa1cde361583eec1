// ggml's 3-bit lattice types (ggml-common.h block_iq3_xxs, block_iq3_s): 256 elements in groups
// of 4, each group a grid entry of 4 magnitudes and signs per 8 elements, times a step per 32.
//   iq3_xxs: 98 bytes {f16 d, u8 qs[96]}: qs[0..63] index iq3xxs_grid (magnitudes 4..62), one
//            byte per 4 elements; then per 32 elements a u32 word (qs[64 + 4i..]) of four 7-bit
//            sign codes (bits 7l) and the 4-bit level s (bits 28..31): step d * (0.5 + s) * 0.5.
//   iq3_s:   110 bytes {f16 d, u8 qs[64], u8 qh[8], u8 signs[32], u8 scales[4]}: the 9-bit index
//            of group k into iq3s_grid (magnitudes 1..15) is qs[k] and bit k % 8 of qh[k / 8];
//            elements 8m..8m+7 take their signs from the byte signs[m]; 64 elements share
//            scales[i]: the low nibble s gives elements 64i..64i+31 the step d * (1 + 2s), the
//            high nibble the next 32.
// A 7-bit sign code s stands for ggml's ksigns_iq2xs[s], s and its parity as the 8th sign. Each
// value is (step * magnitude), negated where its sign bit is set: the decoders follow
// ggml-quants.c's dequantize_row_iq3_xxs and _s. The encoders are ggml's quantize_iq3_*
// (core/types/iq_encode.h). Blocks are 2-byte aligned.
#include <cstring>

#include "core/half.h"
#include "core/types/codecs.h"
#include "core/types/iq_encode.h"
#include "core/types/iq_tables.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 256;

uint16_t u16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

uint8_t u8_at(const std::byte* p) { return static_cast<uint8_t>(*p); }

// 4 values of a grid entry: magnitude j (byte j) times the step, negated where bit j of signs is
// set.
void put_quad(uint32_t entry, uint32_t signs, float step, float* y) {
  for (uint32_t j = 0; j < 4; ++j) {
    const float magnitude = static_cast<float>((entry >> (8 * j)) & 0xff);
    y[j] = step * magnitude * ((signs >> j) & 1 ? -1.f : 1.f);
  }
}

}  // namespace

void quantize_iq3_xxs(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq3_xxs(src, dst, n, importance);
}

void dequantize_iq3_xxs(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 98) {
    const float d = f16_to_f32(u16_at(src));
    const std::byte* qs = src + 2;
    for (uint32_t i = 0; i < 8; ++i) {
      uint32_t signs_and_level;
      std::memcpy(&signs_and_level, qs + 64 + 4 * i, 4);
      const float step = d * (0.5f + static_cast<float>(signs_and_level >> 28)) * 0.5f;
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        const uint8_t signs = iq::sign_byte(signs_and_level >> (7 * l));
        put_quad(iq::iq3xxs_grid[u8_at(qs + 8 * i + 2 * l)], signs, step, dst);
        put_quad(iq::iq3xxs_grid[u8_at(qs + 8 * i + 2 * l + 1)], signs >> 4, step, dst + 4);
      }
    }
  }
}

void quantize_iq3_s(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq3_s(src, dst, n, importance);
}

void dequantize_iq3_s(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 110) {
    const float d = f16_to_f32(u16_at(src));
    const std::byte* qs = src + 2;
    const std::byte* qh = src + 66;
    const std::byte* signs = src + 74;
    const std::byte* scales = src + 106;
    for (uint32_t i = 0; i < 8; ++i) {
      const uint32_t level = (u8_at(scales + i / 2) >> (4 * (i % 2))) & 0xf;
      const float step = d * static_cast<float>(1 + 2 * level);
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        const uint32_t k = 8 * i + 2 * l;  // the group of 4 elements
        const uint32_t high = u8_at(qh + i);
        const uint32_t lo = u8_at(qs + k) | ((high << (8 - 2 * l)) & 256);
        const uint32_t hi = u8_at(qs + k + 1) | ((high << (7 - 2 * l)) & 256);
        const uint8_t s = u8_at(signs + 4 * i + l);
        put_quad(iq::iq3s_grid[lo], s, step, dst);
        put_quad(iq::iq3s_grid[hi], s >> 4, step, dst + 4);
      }
    }
  }
}

}  // namespace gauntlet::core::types
