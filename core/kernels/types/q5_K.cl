// q5_K: 256 elements in 176 bytes {f16 d, f16 dmin, u8 scales[12], u8 qh[32], u8 qs[128]}: the
// sub-blocks, scales, mins and nibbles of q4_K (qs at byte 48), and bit s of qh[l] is the fifth
// bit of element 32s + l; value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q5_K
// (the products are exact, so a fused multiply-add gives the same value).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 176

// The matvec's code-word form (engine_matvec.cl's BLOCK_CODE_WORDS), per sub-block g of 32: byte
// l of the words holds q4_K's nibble of element l (the 32 bytes at 48 + 32(g / 2), the high
// nibbles for g odd) and bit g of qh[l] above it; the values are step * q - offset.
#define BLOCK_CODE_WORDS 1
#define CODE_MASK 31u
GAUNTLET_INLINE float16 block_steps(const __global uchar* blk) { return k_sub_scales(blk); }
GAUNTLET_INLINE uint8 group_words(const __global uchar* blk, uint g) {
  const uint8 lo = (load_words8(blk + 48 + 32 * (g >> 1)) >> (4u * (g & 1))) & 0x0f0f0f0fu;
  return lo | (((load_words8(blk + 16) >> g) & 0x01010101u) << 4u);
}
GAUNTLET_INLINE float8 group_steps(float16 steps, uint g) { return k_group_steps(steps, g); }
GAUNTLET_INLINE float8 block_offsets(float16 steps, float8 first, float8 second) {
  return k_block_offsets(steps, first, second);
}

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
