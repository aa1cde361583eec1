// ggml's 1-bit lattice types (ggml-common.h block_iq1_s, block_iq1_m): 256 elements in groups of
// 8, each group an 11-bit index into iq1s_grid (8 values -1, 0 or +1), shifted by a delta of
// +-0.125 (IQ1S_DELTA) and times a step.
//   iq1_s: 50 bytes {f16 d, u8 qs[32], u16 qh[8]}: group 4i + l's index is qs[4i + l] and bits
//          3l..3l+2 of qh[i]; qh[i]'s bits 12..14 are the level s of elements 32i..32i+31 (step
//          d * (2s + 1)) and its top bit the delta's sign.
//   iq1_m: 56 bytes {u8 qs[32], u8 qh[16], u8 scales[8]}: group 4i + l's index is qs[4i + l]
//          and the low (l even) or high (l odd) 3 bits of the nibble of qh[2i + l / 2], whose top
//          bit is the group's delta sign; the four u16 words of scales hold 3-bit levels (word
//          i / 2, bits 6(i % 2) for elements 32i..32i+15 and 6(i % 2) + 3 for the next 16: step
//          d * (2s + 1)) and, in their top nibbles, the f16 d (word k's top nibble is d's
//          bits 4k..4k+3).
// value = step * (grid value + delta): the decoders follow ggml-quants.c's dequantize_row_iq1_s
// and dequantize_row_iq1_m. The encoders are ggml's quantize_iq1_* (core/types/iq_encode.h).
// Blocks are 2-byte aligned.
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

// 8 values of iq1s_grid entry `index`: step * (value + delta).
void put_group(uint32_t index, float step, float delta, float* y) {
  const uint64_t entry = iq::iq1s_grid[index];
  for (uint32_t j = 0; j < 8; ++j) {
    const auto value = static_cast<int8_t>((entry >> (8 * j)) & 0xff);
    y[j] = step * (static_cast<float>(value) + delta);
  }
}

}  // namespace

void quantize_iq1_s(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq1_s(src, dst, n, importance);
}

void dequantize_iq1_s(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 50) {
    const float d = f16_to_f32(u16_at(src));
    for (uint32_t i = 0; i < 8; ++i) {
      const uint32_t qh = u16_at(src + 34 + 2 * i);
      const float step = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
      const float delta = qh & 0x8000 ? -iq::kIq1Delta : iq::kIq1Delta;
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        put_group(u8_at(src + 2 + 4 * i + l) | (((qh >> (3 * l)) & 7) << 8), step, delta, dst);
      }
    }
  }
}

void quantize_iq1_m(const float* src, std::byte* dst, uint64_t n, const float* importance) {
  iq::encode_iq1_m(src, dst, n, importance);
}

void dequantize_iq1_m(const std::byte* src, float* dst, uint64_t n) {
  for (uint64_t b = 0; b < n / QK; ++b, src += 56) {
    uint16_t sc[4];
    for (uint32_t k = 0; k < 4; ++k) sc[k] = u16_at(src + 48 + 2 * k);
    const auto d_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) |
                                              ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    const float d = f16_to_f32(d_bits);
    for (uint32_t i = 0; i < 8; ++i) {
      const uint32_t word = sc[i / 2] >> (6 * (i % 2));
      const float steps[2] = {d * static_cast<float>(2 * (word & 7) + 1),
                              d * static_cast<float>(2 * ((word >> 3) & 7) + 1)};
      for (uint32_t l = 0; l < 4; ++l, dst += 8) {
        const uint32_t nibble = u8_at(src + 32 + 2 * i + l / 2) >> (4 * (l % 2));
        const float delta = nibble & 8 ? -iq::kIq1Delta : iq::kIq1Delta;
        put_group(u8_at(src + 4 * i + l) | ((nibble & 7) << 8), steps[l / 2], delta, dst);
      }
    }
  }
}

}  // namespace gauntlet::core::types
