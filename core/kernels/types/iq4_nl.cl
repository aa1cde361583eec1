// iq4_nl: 32 elements in 18 bytes {f16 d, u8 qs[16]}; byte i holds element i's code in its low
// nibble and element i + 16's in its high nibble; value = d * kvalues_iq4nl[code]. Follows ggml's
// dequantize_row_iq4_nl.
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 18

// Elements [16c, 16c + 16), c in {0, 1}: the low nibbles (c = 0) or the high ones (c = 1).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  const uchar16 q = (vload16(0, blk + 2) >> (uchar)(4 * c)) & (uchar)0x0f;
  return load_f16(blk) * iq4nl_values16(q);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const uint q = (blk[2 + (j & 15)] >> (4 * (j >> 4))) & 0x0fu;
  return load_f16(blk) * (float)kvalues_iq4nl[q];
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_iq4_nl_ref (quantize_row_iq4_nl_impl with ntry -1
// and weights x * x: codes at d = max / -127, then d = sum(w q x) / sum(w q q)).
GAUNTLET_INLINE void encode_block(const float* x, __global uchar* blk) {
  float amax = 0.0f, max = 0.0f;
  for (uint j = 0; j < 32; ++j) {
    if (fabs(x[j]) > amax) {
      amax = fabs(x[j]);
      max = x[j];
    }
  }
  uchar codes[32];
  float d = 0.0f;
  for (uint j = 0; j < 32; ++j) codes[j] = 0;
  if (amax >= 1e-15f) {
    const float id = 1.0f / (max / -127.0f);
    float sumqx = 0.0f, sumq2 = 0.0f;
    for (uint j = 0; j < 32; ++j) {
      codes[j] = (uchar)iq4nl_nearest(id * x[j]);
      const float q = kvalues_iq4nl[codes[j]], w = x[j] * x[j];
      sumqx += w * q * x[j];
      sumq2 += w * q * q;
    }
    d = sumq2 > 0 ? sumqx / sumq2 : 0.0f;
  }
  vstore_half_rte(d, 0, (__global half*)blk);
  for (uint j = 0; j < 16; ++j) blk[2 + j] = codes[j] | (codes[j + 16] << 4);
}
#endif
