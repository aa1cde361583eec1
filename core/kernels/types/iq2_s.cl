// iq2_s: 256 elements in 82 bytes {f16 d, u8 qs[64], u8 qh[8], u8 scales[8]}: group k = 4i + l
// (8 elements) has the 10-bit index qs[k] | bits 2l, 2l + 1 of qh[i] (as bits 8, 9) into
// iq2s_grid and the sign byte qs[32 + k]; the steps as iq2_xs's (scales at byte 74). value =
// step * magnitude, negated by its sign bit. Follows ggml's dequantize_row_iq2_s
// (core/types/iq2.cpp). Blocks are 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 82

// The step of elements [16h, 16h + 16) (h 0..15).
GAUNTLET_INLINE float iq2_s_step(const __global uchar* blk, uint h) {
  const uint level = (blk[74 + (h >> 1)] >> (4 * (h & 1))) & 15u;
  return load_f16(blk) * (0.5f + (float)level) * 0.25f;
}

GAUNTLET_INLINE uint iq2_s_index(const __global uchar* blk, uint k) {
  return blk[2 + k] | (((uint)blk[66 + (k >> 2)] << (8 - 2 * (k & 3))) & 0x300u);
}

GAUNTLET_INLINE float8 iq2_s_group(const __global uchar* blk, uint k) {
  return iq2_group(iq2s_grid, iq2_s_index(blk, k), blk[34 + k]);
}

// Elements [16c, 16c + 16), c in 0..15: groups 2c and 2c + 1.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return iq2_s_step(blk, c) * (float16)(iq2_s_group(blk, 2 * c), iq2_s_group(blk, 2 * c + 1));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint k = j >> 3, e = j & 7u;
  const uint c = (iq_codes8(iq2s_grid, iq2_s_index(blk, k)) >> (2 * e)) & 3u;
  const int magnitude = (int)(c * 17 + 8 + (c >> 1));
  const uint negative = (blk[34 + k] >> e) & 1u;
  return iq2_s_step(blk, j >> 4) * (float)(negative ? -magnitude : magnitude);
}
