// tq2_0: 256 elements in 66 bytes {u8 qs[64], f16 d}: one trit a 2-bit code (0, 1, 2 for -1, 0,
// +1); as q2_K's codes, in half h of 128 element 32l + m is bits 2l, 2l + 1 of qs[32h + m];
// value = (float)(code - 1) * d. Follows ggml's dequantize_row_tq2_0 (the products are exact, and
// a zero trit times a negative d is -0 as on the host). Blocks are 2-byte aligned.
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 66

// Elements [16c, 16c + 16), c in 0..15.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uchar16 q =
      (vload16(0, blk + 32 * (c >> 3) + 16 * (c & 1)) >> (uchar)(2 * ((c >> 1) & 3))) & (uchar)3;
  return convert_float16(convert_int16(q) - 1) * load_f16(blk + 64);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const int q = (blk[32 * (j >> 7) + (j & 31)] >> (2 * ((j >> 5) & 3))) & 3;
  return (float)(q - 1) * load_f16(blk + 64);
}
