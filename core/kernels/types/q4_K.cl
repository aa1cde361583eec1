// q4_K: 256 elements in 144 bytes {f16 d, f16 dmin, u8 scales[12], u8 qs[128]}: 8 sub-blocks of
// 32 with a 6-bit scale sc and min m each (k_scale_min); 64 elements [64i, 64i + 64) come from
// qs[32i .. 32i + 32), the first 32 from the low nibbles, the next 32 from the high ones;
// value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q4_K (the products are exact, so
// a fused multiply-add gives the same value).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 144

// The matvec's code-word form (engine_matvec.cl's BLOCK_CODE_WORDS), per group g of 32 (sub-block
// g): byte k of word j of group_words holds, under CODE_MASK, the code of element 4j + k; the
// group's values are step * q - offset (block_steps: steps s0..s7, offsets s8..sf).
#define BLOCK_CODE_WORDS 1
#define CODE_MASK 15u
GAUNTLET_INLINE float16 block_steps(const __global uchar* blk) { return k_sub_scales(blk); }
// Sub-blocks 2p and 2p + 1 are the low and high nibbles of the 32 bytes at 16 + 32p.
GAUNTLET_INLINE uint8 group_words(const __global uchar* blk, uint g) {
  return load_words8(blk + 16 + 32 * (g >> 1)) >> (4u * (g & 1));
}
GAUNTLET_INLINE float8 group_steps(float16 steps, uint g) { return k_group_steps(steps, g); }
GAUNTLET_INLINE float8 block_offsets(float16 steps, float8 first, float8 second) {
  return k_block_offsets(steps, first, second);
}

// Elements [16c, 16c + 16), c in 0..15: sub-block c / 2.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint sub = c >> 1;
  const float2 dm = shuffle(k_sub_scales(blk), (uint2)(sub, 8 + sub));
  const uchar16 q =
      (vload16(0, blk + 16 + 32 * (c >> 2) + 16 * (c & 1)) >> (uchar)(4 * (sub & 1))) & (uchar)15;
  return dm.x * convert_float16(q) - dm.y;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint sub = j >> 5;
  const float2 dm = k_sub_scale(blk, sub);
  const uint q = (blk[16 + 32 * (j >> 6) + (j & 31)] >> (4 * (sub & 1))) & 15u;
  return dm.x * (float)q - dm.y;
}
