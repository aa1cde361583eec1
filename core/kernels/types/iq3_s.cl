// iq3_s: 256 elements in 110 bytes {f16 d, u8 qs[64], u8 qh[8], u8 signs[32], u8 scales[4]}:
// group k of 4 elements has the 9-bit index qs[k] | bit k % 8 of qh[k / 8] (as bit 8) into
// iq3s_grid (4 magnitudes 1..15 each); elements 8m..8m+7 take their signs from the byte
// signs[m]; the nibble i % 2 of scales[i / 2] is the level s of elements 32i..32i+31, step
// d * (1 + 2s). value = step * magnitude, negated by its sign bit. Follows ggml's
// dequantize_row_iq3_s (core/types/iq3.cpp). Blocks are 2-byte aligned.
#include "iq_tables.cl"
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 110

GAUNTLET_INLINE float iq3_s_step(const __global uchar* blk, uint i) {
  const uint level = (blk[106 + (i >> 1)] >> (4 * (i & 1))) & 15u;
  return load_f16(blk) * (float)(1 + 2 * level);
}

GAUNTLET_INLINE uint iq3_s_grid(const __global uchar* blk, uint k) {
  return iq3s_grid[blk[2 + k] | (((uint)blk[66 + (k >> 3)] >> (k & 7) & 1u) << 8)];
}

// Elements 8m..8m+7.
GAUNTLET_INLINE float8 iq3_s_group(const __global uchar* blk, uint m) {
  const uint signs = blk[74 + m];
  return (float8)(iq3_quad(iq3_s_grid(blk, 2 * m), signs), iq3_quad(iq3_s_grid(blk, 2 * m + 1), signs >> 4));
}

// Elements [16c, 16c + 16), c in 0..15: groups 2c and 2c + 1 of 8.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return iq3_s_step(blk, c >> 1) * (float16)(iq3_s_group(blk, 2 * c), iq3_s_group(blk, 2 * c + 1));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint e = j & 7u;
  const int magnitude = (int)((iq3_s_grid(blk, j >> 2) >> (8 * (j & 3))) & 0xffu);
  const uint negative = (blk[74 + (j >> 3)] >> e) & 1u;
  return iq3_s_step(blk, j >> 5) * (float)(negative ? -magnitude : magnitude);
}
