// q2_K: 256 elements in 84 bytes {u8 scales[16], u8 qs[64], f16 d, f16 dmin}: 16 sub-blocks of
// 16; byte c of scales holds sub-block c's 4-bit scale (low nibble) and min (high nibble); in
// half h of 128, element 32k + l (k 0..3, l 0..31) is bits 2k, 2k + 1 of qs[32h + l];
// value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q2_K (the products are exact,
// so a fused multiply-add gives the same value).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 84

// Sub-block c's step d * sc and offset dmin * m.
GAUNTLET_INLINE float2 q2_K_scale(const __global uchar* blk, uint c) {
  const uint sm = blk[c];
  return (float2)(load_f16(blk + 80) * (float)(sm & 15u), load_f16(blk + 82) * (float)(sm >> 4));
}

// Elements [16c, 16c + 16), c in 0..15: sub-block c.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const float2 dm = q2_K_scale(blk, c);
  const uchar16 q =
      (vload16(0, blk + 16 + 32 * (c >> 3) + 16 * (c & 1)) >> (uchar)(2 * ((c >> 1) & 3))) &
      (uchar)3;
  return dm.x * convert_float16(q) - dm.y;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const float2 dm = q2_K_scale(blk, j >> 4);
  const uint q = (blk[16 + 32 * (j >> 7) + (j & 31)] >> (2 * ((j >> 5) & 3))) & 3u;
  return dm.x * (float)q - dm.y;
}
