// q4_1: 32 elements in 20 bytes {f16 d, f16 m, u8 qs[16]}; nibbles as in q4_0;
// value = q * d + m. Follows ggml's dequantize_row_q4_1 (q * d is exact, so a fused
// multiply-add gives the same value).
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 20

// Elements [16c, 16c + 16), c in {0, 1}: the low nibbles (c = 0) or the high ones (c = 1).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const float d = load_f16(blk);
  const float m = load_f16(blk + 2);
  const uchar16 q = (vload16(0, blk + 4) >> (uchar)(4 * c)) & (uchar)0x0f;
  return convert_float16(q) * d + m;
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint q = (blk[4 + (j & 15)] >> (4 * (j >> 4))) & 0x0f;
  return (float)q * load_f16(blk) + load_f16(blk + 2);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q4_1_ref (d = (max - min) / 15, m = min; codes
// min(15, (char)((x - min) / d + 0.5))).
GAUNTLET_INLINE void encode_block(const float* x, __global uchar* blk) {
  float lo = x[0], hi = x[0];
  for (uint j = 1; j < 32; ++j) {
    lo = fmin(lo, x[j]);
    hi = fmax(hi, x[j]);
  }
  const float d = (hi - lo) / 15;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  vstore_half_rte(d, 0, (__global half*)blk);
  vstore_half_rte(lo, 0, (__global half*)(blk + 2));
  for (uint j = 0; j < 16; ++j) {
    const uchar a = min(15, (int)(char)((x[j] - lo) * id + 0.5f));
    const uchar b = min(15, (int)(char)((x[j + 16] - lo) * id + 0.5f));
    blk[4 + j] = a | (b << 4);
  }
}
#endif
