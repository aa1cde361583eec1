// q3_K: 256 elements in 110 bytes {u8 hmask[32], u8 qs[64], u8 scales[12], f16 d} (blocks are
// only 2-byte aligned): 16 sub-blocks of 16 with 6-bit scales; scale j's low 4 bits are the low
// nibble of scales[j] (j < 8) or the high nibble of scales[j - 8], its top 2 bits are bits
// 2 (j / 4) of scales[8 + j % 4]; in half h of 128, element 32k + l (k 0..3, l 0..31) takes its
// low 2 bits from bits 2k of qs[32h + l] and its third bit from bit 4h + k of hmask[l];
// value = (d * (sc - 32)) * (q - 4). Follows ggml's dequantize_row_q3_K (every product is exact).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 110

// Sub-block j's step d * (sc - 32).
GAUNTLET_INLINE float q3_K_step(const __global uchar* blk, uint j) {
  const __global uchar* sc = blk + 96;
  const uint low = j < 8 ? sc[j] & 15u : (uint)sc[j - 8] >> 4;
  const uint high = (sc[8 + (j & 3)] >> (2 * (j >> 2))) & 3u;
  return load_f16(blk + 108) * (float)((int)(low | (high << 4)) - 32);
}

// Elements [16c, 16c + 16), c in 0..15: sub-block c.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uchar16 lo =
      (vload16(0, blk + 32 + 32 * (c >> 3) + 16 * (c & 1)) >> (uchar)(2 * ((c >> 1) & 3))) &
      (uchar)3;
  const uchar16 hi = ((vload16(0, blk + 16 * (c & 1)) >> (uchar)(c >> 1)) & (uchar)1) << (uchar)2;
  return q3_K_step(blk, c) * convert_float16(convert_int16(lo | hi) - 4);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint lo = (blk[32 + 32 * (j >> 7) + (j & 31)] >> (2 * ((j >> 5) & 3))) & 3u;
  const uint hi = (blk[j & 31] >> (j >> 5)) & 1u;
  return q3_K_step(blk, j >> 4) * (float)((int)(lo | (hi << 2)) - 4);
}
