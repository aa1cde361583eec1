// iq2_xxs: 256 elements in 66 bytes {f16 d, u16 qs[32]}: per 32 elements i two u32 words at byte
// 2 + 8i: the first's 4 bytes index iq2xxs_grid (8 magnitudes each), the second holds four 7-bit
// sign codes (bits 7l) and the level s (bits 28..31); value = (d * (0.5 + s) * 0.25) * magnitude,
// negated by its sign bit. Follows ggml's dequantize_row_iq2_xxs (core/types/iq2.cpp). Blocks are
// 2-byte aligned.
#define IQ_GRID_IQ2XXS
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 66u;

float iq2_xxs_step(uint off, uint word) {
  return f16_at(off) * (0.5 + float(word >> 28)) * 0.25;
}

// Elements [16c, 16c + 16), c in 0..15: groups 2(c % 2) and 2(c % 2) + 1 of 32-block c / 2;
// column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint i = c >> 1, l = 2u * (c & 1u);
  const uint word = u32_at(off + 6u + 8u * i);
  const float step = iq2_xxs_step(off, word);
  mat4 r;
  for (uint g = 0u; g < 2u; ++g) {
    const uint codes = iq_codes8(u8_at(off + 2u + 8u * i + l + g));
    const uint signs = iq_sign_byte((word >> (7u * (l + g))) & 127u);
    r[2u * g] = step * iq2_quad(codes, 0u, signs);
    r[2u * g + 1u] = step * iq2_quad(codes, 1u, signs);
  }
  return r;
}

float value_at(uint off, uint j) {
  const uint i = j >> 5, l = (j >> 3) & 3u, e = j & 7u;
  const uint word = u32_at(off + 6u + 8u * i);
  const uint codes = iq_codes8(u8_at(off + 2u + 8u * i + l));
  const uint signs = iq_sign_byte((word >> (7u * l)) & 127u);
  return iq2_xxs_step(off, word) * iq2_quad(codes, e >> 2, signs)[e & 3u];
}
