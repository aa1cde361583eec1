// q4_1: 32 elements in 20 bytes {f16 d, f16 m, u8 qs[16]}; nibbles as in q4_0;
// value = q * d + m. Follows ggml's dequantize_row_q4_1 (q * d is exact, so a fused
// multiply-add gives the same value).
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 20

// Elements [16c, 16c + 16), c in {0, 1}: the low nibbles (c = 0) or the high ones (c = 1).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const float d = load_f16(blk);
  const float m = load_f16(blk + 2);
  const uchar16 q = (vload16(0, blk + 4) >> (uchar)(4 * c)) & (uchar)0x0f;
  return convert_float16(q) * d + m;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint q = (blk[4 + (j & 15)] >> (4 * (j >> 4))) & 0x0f;
  return (float)q * load_f16(blk) + load_f16(blk + 2);
}
