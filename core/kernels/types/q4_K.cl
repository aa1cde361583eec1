// q4_K: 256 elements in 144 bytes {f16 d, f16 dmin, u8 scales[12], u8 qs[128]}: 8 sub-blocks of
// 32 with a 6-bit scale sc and min m each (k_scale_min); 64 elements [64i, 64i + 64) come from
// qs[32i .. 32i + 32), the first 32 from the low nibbles, the next 32 from the high ones;
// value = (d * sc) * q - dmin * m. Follows ggml's dequantize_row_q4_K (the products are exact, so
// a fused multiply-add gives the same value).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 144

// The matvec's nibble-word form (engine_matvec.cl's BLOCK_NIBBLE_WORDS): the codes of sub-blocks
// 2p and 2p + 1 are the low and high nibbles of the 32 bytes at 16 + 32p, read as eight words,
// and each sub-block's values are step * q - offset (sub_steps: steps s0..s7, offsets s8..sf).
#define BLOCK_NIBBLE_WORDS 1
GAUNTLET_INLINE uint8 nibble_words(const __global uchar* blk, uint p) {
  const __global uchar* q = blk + 16 + 32 * p;
  return (uint8)(as_uint4(vload16(0, q)), as_uint4(vload16(0, q + 16)));
}
GAUNTLET_INLINE float16 sub_steps(const __global uchar* blk) { return k_sub_scales(blk); }

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
