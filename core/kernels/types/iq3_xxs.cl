// iq3_xxs: 256 elements in 98 bytes {f16 d, u8 qs[96]}: qs[0..63] index iq3xxs_grid (4
// magnitudes each), one byte per 4 elements; per 32 elements i the u32 at byte 66 + 4i holds four
// 7-bit sign codes (bits 7l, for elements 32i + 8l ..) and the level s (bits 28..31); value =
// (d * (0.5 + s) * 0.5) * magnitude, negated by its sign bit. Follows ggml's
// dequantize_row_iq3_xxs (core/types/iq3.cpp). Blocks are 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 98

GAUNTLET_INLINE float iq3_xxs_step(const __global uchar* blk, uint word) {
  return load_f16(blk) * (0.5f + (float)(word >> 28)) * 0.5f;
}

// Elements 8l..8l+7 of 32-block i.
GAUNTLET_INLINE float8 iq3_xxs_group(const __global uchar* blk, uint i, uint l, uint word) {
  const uint signs = iq_sign_byte((word >> (7 * l)) & 127u);
  const uint q = 2 + 8 * i + 2 * l;
  return (float8)(iq3_quad(iq3xxs_grid[blk[q]], signs), iq3_quad(iq3xxs_grid[blk[q + 1]], signs >> 4));
}

// Elements [16c, 16c + 16), c in 0..15: groups 2(c % 2) and 2(c % 2) + 1 of 32-block c / 2.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint i = c >> 1, l = 2 * (c & 1);
  const uint word = load_u32(blk + 66 + 4 * i);
  return iq3_xxs_step(blk, word) *
         (float16)(iq3_xxs_group(blk, i, l, word), iq3_xxs_group(blk, i, l + 1, word));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint i = j >> 5, l = (j >> 3) & 3u, e = j & 7u;
  const uint word = load_u32(blk + 66 + 4 * i);
  const int magnitude = (int)((iq3xxs_grid[blk[2 + (j >> 2)]] >> (8 * (e & 3))) & 0xffu);
  const uint negative = (iq_sign_byte((word >> (7 * l)) & 127u) >> e) & 1u;
  return iq3_xxs_step(blk, word) * (float)(negative ? -magnitude : magnitude);
}
