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

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q5_1_ref (d = (max - min) / 31, m = min; codes
// (uchar)((x - min) / d + 0.5), the fifth bits in qh).
GAUNTLET_INLINE void encode_block(const float* x, __global uchar* blk) {
  float lo = x[0], hi = x[0];
  for (uint j = 1; j < 32; ++j) {
    lo = fmin(lo, x[j]);
    hi = fmax(hi, x[j]);
  }
  const float d = (hi - lo) / 31;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  vstore_half_rte(d, 0, (__global half*)blk);
  vstore_half_rte(lo, 0, (__global half*)(blk + 2));
  uint qh = 0;
  for (uint j = 0; j < 16; ++j) {
    const uint a = (uchar)((x[j] - lo) * id + 0.5f);
    const uint b = (uchar)((x[j + 16] - lo) * id + 0.5f);
    blk[8 + j] = (uchar)((a & 15u) | ((b & 15u) << 4));
    qh |= (((a >> 4) & 1u) << j) | (((b >> 4) & 1u) << (j + 16));
  }
  for (uint k = 0; k < 4; ++k) blk[4 + k] = (uchar)(qh >> (8 * k));
}
#endif
