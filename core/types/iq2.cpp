// ggml's 2-bit lattice types (ggml-common.h block_iq2_xxs, block_iq2_xs, block_iq2_s): 256
// elements in groups of 8, each group a grid entry of 8 magnitudes (8, 25 or 43) and 8 signs,
// times a step per 16 or 32 elements.
//   iq2_xxs: 66 bytes {f16 d, u16 qs[32]}: per 32 elements two u32 words a, b (qs[4i..4i+3]):
//            the 4 bytes of a index iq2xxs_grid; b holds four 7-bit sign codes (bits 7l) and the
//            4-bit level s (bits 28..31): step d * (0.5 + s) * 0.25.
//   iq2_xs:  74 bytes {f16 d, u16 qs[32], u8 scales[8]}: qs[k] is a 9-bit index into iq2xs_grid
//            and a 7-bit sign code (its top 7 bits); scales[i] has the levels of elements
//            32i..32i+15 (low nibble) and 32i+16..32i+31 (high).
//   iq2_s:   82 bytes {f16 d, u8 qs[64], u8 qh[8], u8 scales[8]}: the 10-bit index of group
//            4i + l into iq2s_grid is qs[4i + l] and bits 2l, 2l + 1 of qh[i]; its 8 signs are
//            the byte qs[32 + 4i + l]; the levels as iq2_xs.
// A 7-bit sign code s stands for ggml's ksigns_iq2xs[s], s and its parity as the 8th sign. Each
// value is (step * magnitude), negated where its sign bit is set: the decoders follow
// ggml-quants.c's dequantize_row_iq2_xxs, _xs and _s (the step is computed first, as there). The
// encoders are ggml's quantize_iq2_* (core/types/iq_encode.h). Blocks are 2-byte aligned.
#include <cstring>

#include "core/half.h"
#include "core/types/codecs.h"
#include "core/types/iq_encode.h"
#include "core/types/iq_tables.h"

namespace gauntlet::core::types {

namespace {

constexpr uint32_t QK = 256;

uint32_t u32_at(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint16_t u16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

uint8_t u8_at(const std::byte* p) { return static_cast<uint8_t>(*p); }

// 8 values of a grid entry: magnitude j (byte j of the entry) times the step, negated where bit j
// of signs is set.
void put_group(uint64_t entry, uint8_t signs, float step, float* y) {
  for (uint32_t j = 0; j < 8; ++j) {
    const float magnitude = static_cast<float>((entry >> (8 * j)) & 0xff);
    y[j] = step * magnitude * ((signs >> j) & 1 ? -1.f : 1.f);
  }
}

// The two steps of 32 elements whose 4-bit levels are the byte's nibbles.
void nibble_steps(float d, uint8_t levels, float steps[2]) {
  steps[0] = d * (0.5f + static_cast<float>(levels & 0xf)) * 0.25f;
  steps[1] = d * (0.5f + static_cast<float>(levels >> 4)) * 0.25f;
}

}  // namespace

void quantize_iq2_xxs(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq2_xxs(src, dst, n, importance);
}

void dequantize_iq2_xxs(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 66) {
    const float d = f16_to_f32(u16_at(src));
    for (uint32_t i = 0; i < 8; ++i) {
      const std::byte* words = src + 2 + 8 * i;
      const uint32_t signs_and_level = u32_at(words + 4);
      const float step = d * (0.5f + static_cast<float>(signs_and_level >> 28)) * 0.25f;
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        put_group(iq::iq2xxs_grid[u8_at(words + l)], iq::sign_byte(signs_and_level >> (7 * l)),
                  step, dst);
      }
    }
  }
}

void quantize_iq2_xs(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq2_xs(src, dst, n, importance);
}

void dequantize_iq2_xs(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 74) {
    const float d = f16_to_f32(u16_at(src));
    for (uint32_t i = 0; i < 8; ++i) {
      float steps[2];
      nibble_steps(d, u8_at(src + 66 + i), steps);
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        const uint16_t q = u16_at(src + 2 + 2 * (4 * i + l));
        put_group(iq::iq2xs_grid[q & 511], iq::sign_byte(q >> 9), steps[l / 2], dst);
      }
    }
  }
}

void quantize_iq2_s(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq2_s(src, dst, n, importance);
}

void dequantize_iq2_s(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 82) {
    const float d = f16_to_f32(u16_at(src));
    const std::byte* qs = src + 2;
    const std::byte* qh = src + 66;
    for (uint32_t i = 0; i < 8; ++i) {
      float steps[2];
      nibble_steps(d, u8_at(src + 74 + i), steps);
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        const uint32_t index = u8_at(qs + 4 * i + l) | ((u8_at(qh + i) << (8 - 2 * l)) & 0x300);
        put_group(iq::iq2s_grid[index], u8_at(qs + 32 + 4 * i + l), steps[l / 2], dst);
      }
    }
  }
}

}  // namespace gauntlet::core::types
