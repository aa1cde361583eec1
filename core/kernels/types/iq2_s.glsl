// iq2_s: 256 elements in 82 bytes {f16 d, u8 qs[64], u8 qh[8], u8 scales[8]}: group k = 4i + l
// (8 elements) has the 10-bit index qs[k] | bits 2l, 2l + 1 of qh[i] (as bits 8, 9) into
// iq2s_grid and the sign byte qs[32 + k]; the steps as iq2_xs's (scales at byte 74). value =
// step * magnitude, negated by its sign bit. Follows ggml's dequantize_row_iq2_s
// (core/types/iq2.cpp). Blocks are 2-byte aligned.
#define IQ_GRID_IQ2S
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 82u;

// The step of elements [16h, 16h + 16) (h 0..15).
float iq2_s_step(uint off, uint h) {
  const uint level = (u8_at(off + 74u + (h >> 1)) >> (4u * (h & 1u))) & 15u;
  return f16_at(off) * (0.5 + float(level)) * 0.25;
}

// Values 4q..4q+3 of group k.
vec4 iq2_s_quad(uint off, uint k, uint q) {
  const uint index = u8_at(off + 2u + k) | ((u8_at(off + 66u + (k >> 2)) << (8u - 2u * (k & 3u))) & 0x300u);
  return iq2_quad(iq_codes8(index), q, u8_at(off + 34u + k));
}

// Elements [16c, 16c + 16), c in 0..15: groups 2c and 2c + 1; column k holds
// [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float step = iq2_s_step(off, c);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = step * iq2_s_quad(off, 2u * c + (k >> 1), k & 1u);
  return r;
}

float value_at(uint off, uint j) {
  return iq2_s_step(off, j >> 4) * iq2_s_quad(off, j >> 3, (j >> 2) & 1u)[j & 3u];
}
