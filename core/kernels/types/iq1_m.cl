// iq1_m: 256 elements in 56 bytes {u8 qs[32], u8 qh[16], u8 scales[8]}: group k = 4i + l of 8
// elements is entry qs[k] | the low 3 bits of nibble l % 2 of qh[2i + l / 2] (as bits 8..10) of
// iq1s_grid (-1, 0, +1 each), that nibble's top bit the sign of its delta (0.125); the u16 word
// i / 2 of scales holds at bit 6(i % 2) the 3-bit level s of elements 32i..32i+15 and 3 bits
// above it that of the next 16 (step d * (2s + 1)); the top nibbles of the four words are the
// f16 d, word w's holding its bits 4w..4w+3. value = step * (grid value + delta). Follows ggml's
// dequantize_row_iq1_m (core/types/iq1.cpp). Blocks are 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 56

// The step of elements [16h, 16h + 16) (h 0..15).
GAUNTLET_INLINE float iq1_m_step(const __global uchar* blk, uint h) {
  const uint s0 = load_u16(blk + 48), s1 = load_u16(blk + 50);
  const uint s2 = load_u16(blk + 52), s3 = load_u16(blk + 54);
  const float d = f16_to_f32((s0 >> 12) | ((s1 >> 8) & 0x00f0u) | ((s2 >> 4) & 0x0f00u) |
                             (s3 & 0xf000u));
  const uint i = h >> 1;
  const uint level = (load_u16(blk + 48 + 2 * (i >> 1)) >> (6 * (i & 1) + 3 * (h & 1))) & 7u;
  return d * (float)(2 * level + 1);
}

// Group k's nibble of qh: its index's top 3 bits and its delta's sign.
GAUNTLET_INLINE uint iq1_m_nibble(const __global uchar* blk, uint k) {
  return (blk[32 + (k >> 1)] >> (4 * (k & 1))) & 15u;
}

GAUNTLET_INLINE float8 iq1_m_group(const __global uchar* blk, uint k) {
  const uint nibble = iq1_m_nibble(blk, k);
  return iq1_group(blk[k] | ((nibble & 7u) << 8), nibble & 8u ? -0.125f : 0.125f);
}

// Elements [16c, 16c + 16), c in 0..15: groups 2c and 2c + 1.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return iq1_m_step(blk, c) * (float16)(iq1_m_group(blk, 2 * c), iq1_m_group(blk, 2 * c + 1));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint k = j >> 3, nibble = iq1_m_nibble(blk, k);
  const uint c = (iq_codes8(iq1s_grid, blk[k] | ((nibble & 7u) << 8)) >> (2 * (j & 7u))) & 3u;
  return iq1_m_step(blk, j >> 4) * ((float)((int)c - 1) + (nibble & 8u ? -0.125f : 0.125f));
}
