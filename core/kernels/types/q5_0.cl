// q5_0: 32 elements in 22 bytes {f16 d, u8 qh[4], u8 qs[16]}; nibbles as in q4_0, and bit j of
// the little-endian u32 qh is the fifth bit of element j; value = (q - 16) * d. Follows ggml's
// dequantize_row_q5_0.
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 22

// Elements [16c, 16c + 16), c in {0, 1}: low nibbles and qh bits 0..15 (c = 0), or high nibbles
// and qh bits 16..31 (c = 1).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const float d = load_f16(blk);
  const uint qh = load_u32(blk + 2) >> (16 * c);
  const uint16 hi = (((uint16)(qh) >> (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)) &
                     (uint16)1u)
                    << 4;
  const uint16 lo = convert_uint16((vload16(0, blk + 6) >> (uchar)(4 * c)) & (uchar)0x0f);
  return convert_float16(convert_int16(lo | hi) - 16) * d;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint lo = (blk[6 + (j & 15)] >> (4 * (j >> 4))) & 0x0f;
  const uint hi = ((load_u32(blk + 2) >> j) & 1u) << 4;
  return (float)((int)(lo | hi) - 16) * load_f16(blk);
}
