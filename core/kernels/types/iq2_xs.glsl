// iq2_xs: 256 elements in 74 bytes {f16 d, u16 qs[32], u8 scales[8]}: qs[k] (group k of 8
// elements) is a 9-bit index into iq2xs_grid and a 7-bit sign code; scales[i]'s low nibble s
// gives elements 32i..32i+15 the step d * (0.5 + s) * 0.25, its high nibble the next 16. value =
// step * magnitude, negated by its sign bit. Follows ggml's dequantize_row_iq2_xs
// (core/types/iq2.cpp). Blocks are 2-byte aligned.
#define IQ_GRID_IQ2XS
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 74u;

// The step of elements [16h, 16h + 16) (h 0..15).
float iq2_xs_step(uint off, uint h) {
  const uint level = (u8_at(off + 66u + (h >> 1)) >> (4u * (h & 1u))) & 15u;
  return f16_at(off) * (0.5 + float(level)) * 0.25;
}

// Values 4q..4q+3 of group k.
vec4 iq2_xs_quad(uint off, uint k, uint q) {
  const uint code = u16_at(off + 2u + 2u * k);
  return iq2_quad(iq_codes8(code & 511u), q, iq_sign_byte(code >> 9));
}

// Elements [16c, 16c + 16), c in 0..15: groups 2c and 2c + 1; column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float step = iq2_xs_step(off, c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = step * iq2_xs_quad(off, 2u * c + (k >> 1), k & 1u);
  return r;
}

float value_at(uint off, uint j) {
  return iq2_xs_step(off, j >> 4) * iq2_xs_quad(off, j >> 3, (j >> 2) & 1u)[j & 3u];
}
