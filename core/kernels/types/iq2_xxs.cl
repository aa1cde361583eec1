// iq2_xxs: 256 elements in 66 bytes {f16 d, u16 qs[32]}: per 32 elements i two u32 words at byte
// 2 + 8i: the first's 4 bytes index iq2xxs_grid (8 magnitudes each), the second holds four 7-bit
// sign codes (bits 7l) and the level s (bits 28..31); value = (d * (0.5 + s) * 0.25) * magnitude,
// negated by its sign bit. Follows ggml's dequantize_row_iq2_xxs (core/types/iq2.cpp). Blocks are
// 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 66

GAUNTLET_INLINE float iq2_xxs_step(const __global uchar* blk, uint word) {
  return load_f16(blk) * (0.5f + (float)(word >> 28)) * 0.25f;
}

// Group l (8 elements) of the 32 whose second word is `word`.
GAUNTLET_INLINE float8 iq2_xxs_group(const __global uchar* blk, uint i, uint l, uint word) {
  return iq2_group(iq2xxs_grid, blk[2 + 8 * i + l], iq_sign_byte((word >> (7 * l)) & 127u));
}

// Elements [16c, 16c + 16), c in 0..15: groups 2(c % 2) and 2(c % 2) + 1 of 32-block c / 2.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint i = c >> 1, l = 2 * (c & 1);
  const uint word = load_u32(blk + 6 + 8 * i);
  return iq2_xxs_step(blk, word) *
         (float16)(iq2_xxs_group(blk, i, l, word), iq2_xxs_group(blk, i, l + 1, word));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint i = j >> 5, l = (j >> 3) & 3u, e = j & 7u;
  const uint word = load_u32(blk + 6 + 8 * i);
  const uint c = (iq_codes8(iq2xxs_grid, blk[2 + 8 * i + l]) >> (2 * e)) & 3u;
  const int magnitude = (int)(c * 17 + 8 + (c >> 1));
  const uint negative = (iq_sign_byte((word >> (7 * l)) & 127u) >> e) & 1u;
  return iq2_xxs_step(blk, word) * (float)(negative ? -magnitude : magnitude);
}
