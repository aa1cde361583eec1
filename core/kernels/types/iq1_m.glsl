// iq1_m: 256 elements in 56 bytes {u8 qs[32], u8 qh[16], u8 scales[8]}: group k = 4i + l of 8
// elements is entry qs[k] | the low 3 bits of nibble l % 2 of qh[2i + l / 2] (as bits 8..10) of
// iq1s_grid (-1, 0, +1 each), that nibble's top bit the sign of its delta (0.125); the u16 word
// i / 2 of scales holds at bit 6(i % 2) the 3-bit level s of elements 32i..32i+15 and 3 bits
// above it that of the next 16 (step d * (2s + 1)); the top nibbles of the four words are the
// f16 d, word w's holding its bits 4w..4w+3. value = step * (grid value + delta). Follows ggml's
// dequantize_row_iq1_m (core/types/iq1.cpp). Blocks are 2-byte aligned.
#define IQ_GRID_IQ1S
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 56u;

// The step of elements [16h, 16h + 16) (h 0..15).
float iq1_m_step(uint off, uint h) {
  const uint s01 = u32_at(off + 48u), s23 = u32_at(off + 52u);
  const uint d_bits = ((s01 >> 12) & 0x000fu) | ((s01 >> 24) & 0x00f0u) | ((s23 >> 4) & 0x0f00u) |
                      ((s23 >> 16) & 0xf000u);
  const uint i = h >> 1;
  const uint level = (u16_at(off + 48u + 2u * (i >> 1)) >> (6u * (i & 1u) + 3u * (h & 1u))) & 7u;
  return f16_bits_to_f32(d_bits) * float(2u * level + 1u);
}

// Values 4q..4q+3 of group k, without the step.
vec4 iq1_m_quad(uint off, uint k, uint q) {
  const uint nibble = (u8_at(off + 32u + (k >> 1)) >> (4u * (k & 1u))) & 15u;
  const uint index = u8_at(off + k) | ((nibble & 7u) << 8);
  return iq1_quad(iq_codes8(index), q, (nibble & 8u) != 0u ? -0.125 : 0.125);
}

// Elements [16c, 16c + 16), c in 0..15; column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float step = iq1_m_step(off, c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = step * iq1_m_quad(off, 2u * c + (k >> 1), k & 1u);
  return r;
}

float value_at(uint off, uint j) {
  return iq1_m_step(off, j >> 4) * iq1_m_quad(off, j >> 3, (j >> 2) & 1u)[j & 3u];
}
