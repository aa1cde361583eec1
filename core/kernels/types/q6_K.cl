// q6_K: 256 elements in 210 bytes {u8 ql[128], u8 qh[64], i8 scales[16], f16 d}: two halves of
// 128; in half h, element 32k + l (k 0..3, l 0..31) takes its low 4 bits from
// ql[64h + 32(k & 1) + l] (low nibble for k < 2, high for k >= 2) and its top 2 bits from bits
// 2k, 2k + 1 of qh[32h + l]; sub-block e / 16 has the signed scale sc;
// value = (d * sc) * (q - 32). Follows ggml's dequantize_row_q6_K (every product is exact).
#define BLOCK_ELEMS 256
#define BLOCK_BYTES 210

// The matvec's code-word form (engine_matvec.cl's BLOCK_CODE_WORDS), per group g = 4h + k of 32:
// byte l of the eight ql words at 64h + 32(k & 1) gives the low 4 bits (its high nibble for
// k >= 2), byte l of the qh words at 128 + 32h the top 2 (bits 2k, 2k + 1), four bytes a word at
// once; words j 0..3 are the group's first 16 (scale 2g), 4..7 its last 16 (scale 2g + 1). The
// values are step * q - 32 * step (block_steps: the 16 steps d * sc).
#define BLOCK_CODE_WORDS 1
#define CODE_MASK 63u
// The 16 steps d * sc (decode16 takes a lane of them too).
GAUNTLET_INLINE float16 block_steps(const __global uchar* blk) {
  return load_f16(blk + 208) * convert_float16(vload16(0, (const __global char*)(blk + 192)));
}
GAUNTLET_INLINE uint8 group_words(const __global uchar* blk, uint g) {
  const uint h = g >> 2, k = g & 3;
  const uint8 lo = (load_words8(blk + 64 * h + 32 * (k & 1)) >> (4u * (k >> 1))) & 0x0f0f0f0fu;
  const uint8 hi = (load_words8(blk + 128 + 32 * h) >> (2u * k)) & 0x03030303u;
  return lo | (hi << 4u);
}
GAUNTLET_INLINE float8 group_steps(float16 steps, uint g) {
  return shuffle(steps, (uint8)(2 * g, 2 * g, 2 * g, 2 * g, 2 * g + 1, 2 * g + 1, 2 * g + 1,
                                2 * g + 1));
}
GAUNTLET_INLINE float8 block_offsets(float16 steps, float8 first, float8 second) {
  return 32.0f * (steps.even * first + steps.odd * second);
}

// Elements [16c, 16c + 16), c in 0..15: scale c.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uint h = c >> 3, k = (c >> 1) & 3, l = 16 * (c & 1);
  const uchar16 lo = (vload16(0, blk + 64 * h + 32 * (k & 1) + l) >> (uchar)(4 * (k >> 1))) &
                     (uchar)15;
  const uchar16 hi = ((vload16(0, blk + 128 + 32 * h + l) >> (uchar)(2 * k)) & (uchar)3)
                     << (uchar)4;
  // The block's 16 steps as one vector (computed once per block in the unrolled matvec).
  const float16 steps = block_steps(blk);
  // q - 32 on the bytes (it fits a char): one subtraction per 16 codes rather than per 8 lanes.
  return shuffle(steps, (uint2)(c)).s0 * convert_float16(as_char16((lo | hi) - (uchar)32));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint h = j >> 7, k = (j >> 5) & 3, l = j & 31;
  const uint lo = (blk[64 * h + 32 * (k & 1) + l] >> (4 * (k >> 1))) & 15u;
  const uint hi = (blk[128 + 32 * h + l] >> (2 * k)) & 3u;
  const float ds = load_f16(blk + 208) * (float)((const __global char*)(blk + 192))[j >> 4];
  return ds * (float)((int)(lo | (hi << 4)) - 32);
}
