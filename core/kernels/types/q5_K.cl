// q5_K: 256 elements in 176 bytes {f16 d, f16 dmin, u8 scales[12], u8 qh[32], u8 qs[128]}: the
// sub-blocks, scales, mins and nibbles of q4_K (qs at byte 48), and bit s of qh[l] is the fifth
// bit of element 32s + l; value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q5_K
// (the products are exact, so a fused multiply-add gives the same value).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 176

// Elements [16c, 16c + 16), c in 0..15: sub-block c / 2.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint sub = c >> 1;
  const float2 dm = shuffle(k_sub_scales(blk), (uint2)(sub, 8 + sub));
  const uchar16 lo =
      (vload16(0, blk + 48 + 32 * (c >> 2) + 16 * (c & 1)) >> (uchar)(4 * (sub & 1))) & (uchar)15;
  const uchar16 hi = ((vload16(0, blk + 16 + 16 * (c & 1)) >> (uchar)sub) & (uchar)1) << (uchar)4;
  return dm.x * convert_float16(lo | hi) - dm.y;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint sub = j >> 5;
  const float2 dm = k_sub_scale(blk, sub);
  const uint lo = (blk[48 + 32 * (j >> 6) + (j & 31)] >> (4 * (sub & 1))) & 15u;
  const uint hi = ((blk[16 + (j & 31)] >> sub) & 1u) << 4;
  return dm.x * (float)(lo | hi) - dm.y;
}
