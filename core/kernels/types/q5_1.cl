// q5_1: 32 elements in 24 bytes {f16 d, f16 m, u8 qh[4], u8 qs[16]}; nibbles and fifth bits as
// in q5_0; value = q * d + m. Follows ggml's dequantize_row_q5_1 (q * d is exact, so a fused
// multiply-add gives the same value).
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 24

// Elements [16c, 16c + 16), c in {0, 1}: low nibbles and qh bits 0..15 (c = 0), or high nibbles
// and qh bits 16..31 (c = 1).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const float d = load_f16(blk);
  const float m = load_f16(blk + 2);
  const uint qh = load_u32(blk + 4) >> (16 * c);
  const uint16 hi = (((uint16)(qh) >> (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)) &
                     (uint16)1u)
                    << 4;
  const uint16 lo = convert_uint16((vload16(0, blk + 8) >> (uchar)(4 * c)) & (uchar)0x0f);
  return convert_float16(lo | hi) * d + m;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint lo = (blk[8 + (j & 15)] >> (4 * (j >> 4))) & 0x0f;
  const uint hi = ((load_u32(blk + 4) >> j) & 1u) << 4;
  return (float)(lo | hi) * load_f16(blk) + load_f16(blk + 2);
}
