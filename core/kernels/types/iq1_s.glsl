// iq1_s: 256 elements in 50 bytes {f16 d, u8 qs[32], u16 qh[8]}: group 4i + l of 8 elements is
// entry qs[4i + l] | bits 3l..3l+2 of qh[i] (as bits 8..10) of iq1s_grid (-1, 0, +1 each); qh[i]'s
// bits 12..14 are the level s of elements 32i..32i+31 and its top bit the sign of their delta
// (0.125); value = (d * (2s + 1)) * (grid value + delta). Follows ggml's dequantize_row_iq1_s
// (core/types/iq1.cpp). Blocks are 2-byte aligned.
#define IQ_GRID_IQ1S
#include "iq_tables.glsl"
const uint BLOCK_ELEMS = 256u;
const uint BLOCK_BYTES = 50u;

// Values 4q..4q+3 of group k, without the step.
vec4 iq1_s_quad(uint off, uint k, uint q, uint qh) {
  const uint index = u8_at(off + 2u + k) | (((qh >> (3u * (k & 3u))) & 7u) << 8);
  return iq1_quad(iq_codes8(index), q, (qh & 0x8000u) != 0u ? -0.125 : 0.125);
}

float iq1_s_step(uint off, uint qh) { return f16_at(off) * float(2u * ((qh >> 12) & 7u) + 1u); }

// Elements [16c, 16c + 16), c in 0..15; column k holds [16c + 4k, 16c + 4k + 4).
mat4 decode16(uint off, uint c) {
  const uint qh = u16_at(off + 34u + 2u * (c >> 1));
  const float step = iq1_s_step(off, qh);
  mat4 r;
  for (uint k = 0u; k < 4u; ++k) r[k] = step * iq1_s_quad(off, 2u * c + (k >> 1), k & 1u, qh);
  return r;
}

float value_at(uint off, uint j) {
  const uint qh = u16_at(off + 34u + 2u * (j >> 5));
  return iq1_s_step(off, qh) * iq1_s_quad(off, j >> 3, (j >> 2) & 1u, qh)[j & 3u];
}
