// iq3_s: 256 elements in 110 bytes {f16 d, u8 qs[64], u8 qh[8], u8 signs[32], u8 scales[4]}:
// group k of 4 elements has the 9-bit index qs[k] | bit k % 8 of qh[k / 8] (as bit 8) into
// iq3s_grid (4 magnitudes 1..15 each); elements 8m..8m+7 take their signs from the byte
// signs[m]; the nibble i % 2 of scales[i / 2] is the level s of elements 32i..32i+31, step
// d * (1 + 2s). value = step * magnitude, negated by its sign bit. Follows ggml's
// dequantize_row_iq3_s (core/types/iq3.cpp). Blocks are 2-byte aligned.
#define IQ_GRID_IQ3S
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 110u;

float iq3_s_step(uint off, uint i) {
  const uint level = (u8_at(off + 106u + (i >> 1)) >> (4u * (i & 1u))) & 15u;
  return f16_at(off) * float(1u + 2u * level);
}

// Values 4q..4q+3 (q 0..63) of the block.
vec4 iq3_s_quad(uint off, uint q) {
  const uint index = u8_at(off + 2u + q) | (((u8_at(off + 66u + (q >> 3)) >> (q & 7u)) & 1u) << 8);
  return iq3_quad(iq_grid[index], u8_at(off + 74u + (q >> 1)) >> (4u * (q & 1u)));
}

// Elements [16c, 16c + 16), c in 0..15; column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const float step = iq3_s_step(off, c >> 1);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = step * iq3_s_quad(off, 4u * c + k);
  return r;
}

float value_at(uint off, uint j) {
  return iq3_s_step(off, j >> 5) * iq3_s_quad(off, j >> 2)[j & 3u];
}
