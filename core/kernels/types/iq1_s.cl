// iq1_s: 256 elements in 50 bytes {f16 d, u8 qs[32], u16 qh[8]}: group 4i + l of 8 elements is
// entry qs[4i + l] | bits 3l..3l+2 of qh[i] (as bits 8..10) of iq1s_grid (-1, 0, +1 each); qh[i]'s
// bits 12..14 are the level s of elements 32i..32i+31 and its top bit the sign of their delta
// (0.125); value = (d * (2s + 1)) * (grid value + delta). Follows ggml's dequantize_row_iq1_s
// (core/types/iq1.cpp). Blocks are 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 50

GAUNTLET_INLINE float iq1_s_step(const __global uchar* blk, uint qh) {
  return load_f16(blk) * (float)(2 * ((qh >> 12) & 7u) + 1);
}

GAUNTLET_INLINE float iq1_s_delta(uint qh) { return qh & 0x8000u ? -0.125f : 0.125f; }

GAUNTLET_INLINE uint iq1_s_index(const __global uchar* blk, uint i, uint l, uint qh) {
  return blk[2 + 4 * i + l] | (((qh >> (3 * l)) & 7u) << 8);
}

// Elements [16c, 16c + 16), c in 0..15: groups 2(c % 2) and 2(c % 2) + 1 of 32-block c / 2.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint i = c >> 1, l = 2 * (c & 1);
  const uint qh = load_u16(blk + 34 + 2 * i);
  const float delta = iq1_s_delta(qh);
  return iq1_s_step(blk, qh) * (float16)(iq1_group(iq1_s_index(blk, i, l, qh), delta),
                                         iq1_group(iq1_s_index(blk, i, l + 1, qh), delta));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint i = j >> 5, l = (j >> 3) & 3u;
  const uint qh = load_u16(blk + 34 + 2 * i);
  const uint c = (iq_codes8(iq1s_grid, iq1_s_index(blk, i, l, qh)) >> (2 * (j & 7u))) & 3u;
  return iq1_s_step(blk, qh) * ((float)((int)c - 1) + iq1_s_delta(qh));
}
