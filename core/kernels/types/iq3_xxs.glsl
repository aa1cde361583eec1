// iq3_xxs: 256 elements in 98 bytes {f16 d, u8 qs[96]}: qs[0..63] index iq3xxs_grid (4
// magnitudes each), one byte per 4 elements; per 32 elements i the u32 at byte 66 + 4i holds four
// 7-bit sign codes (bits 7l, for elements 32i + 8l ..) and the level s (bits 28..31); value =
// (d * (0.5 + s) * 0.5) * magnitude, negated by its sign bit. Follows ggml's
// dequantize_row_iq3_xxs (core/types/iq3.cpp). Blocks are 2-byte aligned.
#define IQ_GRID_IQ3XXS
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 98u;

float iq3_xxs_step(uint off, uint word) {
  return f16_at(off) * (0.5 + float(word >> 28)) * 0.5;
}

// Values 4q..4q+3 (q 0..63) of the block.
vec4 iq3_xxs_quad(uint off, uint q, uint word) {
  const uint signs = iq_sign_byte((word >> (7u * ((q >> 1) & 3u))) & 127u) >> (4u * (q & 1u));
  return iq3_quad(iq_grid[u8_at(off + 2u + q)], signs);
}

// Elements [16c, 16c + 16), c in 0..15; column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint word = u32_at(off + 66u + 4u * (c >> 1));
  const float step = iq3_xxs_step(off, word);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = step * iq3_xxs_quad(off, 4u * c + k, word);
  return r;
}

float value_at(uint off, uint j) {
  const uint word = u32_at(off + 66u + 4u * (j >> 5));
  return iq3_xxs_step(off, word) * iq3_xxs_quad(off, j >> 2, word)[j & 3u];
}
