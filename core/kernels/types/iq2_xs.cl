// iq2_xs: 256 elements in 74 bytes {f16 d, u16 qs[32], u8 scales[8]}: qs[k] (group k of 8
// elements) is a 9-bit index into iq2xs_grid and a 7-bit sign code; scales[i]'s low nibble s
// gives elements 32i..32i+15 the step d * (0.5 + s) * 0.25, its high nibble the next 16. value =
// step * magnitude, negated by its sign bit. Follows ggml's dequantize_row_iq2_xs
// (core/types/iq2.cpp). Blocks are 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 74

// The step of elements [16h, 16h + 16) (h 0..15).
GAUNTLET_INLINE float iq2_xs_step(const __global uchar* blk, uint h) {
  const uint level = (blk[66 + (h >> 1)] >> (4 * (h & 1))) & 15u;
  return load_f16(blk) * (0.5f + (float)level) * 0.25f;
}

GAUNTLET_INLINE float8 iq2_xs_group(const __global uchar* blk, uint k) {
  const uint q = load_u16(blk + 2 + 2 * k);
  return iq2_group(iq2xs_grid, q & 511u, iq_sign_byte(q >> 9));
}

// Elements [16c, 16c + 16), c in 0..15: groups 2c and 2c + 1.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return iq2_xs_step(blk, c) * (float16)(iq2_xs_group(blk, 2 * c), iq2_xs_group(blk, 2 * c + 1));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint q = load_u16(blk + 2 + 2 * (j >> 3)), e = j & 7u;
  const uint c = (iq_codes8(iq2xs_grid, q & 511u) >> (2 * e)) & 3u;
  const int magnitude = (int)(c * 17 + 8 + (c >> 1));
  const uint negative = (iq_sign_byte(q >> 9) >> e) & 1u;
  return iq2_xs_step(blk, j >> 4) * (float)(negative ? -magnitude : magnitude);
}
