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

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q5_0_ref (d = max / -16; codes
// min(31, (char)(x / d + 16.5)), the fifth bits in qh).
GAUNTLET_INLINE void encode_block(const float* x, __global uchar* blk) {
  float amax = 0.0f, max = 0.0f;
  for (uint j = 0; j < 32; ++j) {
    if (amax < fabs(x[j])) {
      amax = fabs(x[j]);
      max = x[j];
    }
  }
  const float d = max / -16;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  vstore_half_rte(d, 0, (__global half*)blk);
  uint qh = 0;
  for (uint j = 0; j < 16; ++j) {
    const uint a = min(31, (int)(char)(x[j] * id + 16.5f));
    const uint b = min(31, (int)(char)(x[j + 16] * id + 16.5f));
    blk[6 + j] = (uchar)((a & 15u) | ((b & 15u) << 4));
    qh |= ((a >> 4) << j) | ((b >> 4) << (j + 16));
  }
  for (uint k = 0; k < 4; ++k) blk[2 + k] = (uchar)(qh >> (8 * k));
}
#endif
