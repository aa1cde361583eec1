// q4_0: 32 elements in 18 bytes {f16 d, u8 qs[16]}; byte i holds element i in its low nibble and
// element i + 16 in its high nibble; value = (q - 8) * d. Follows ggml's dequantize_row_q4_0.
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 18

// The block starts with its f16 scale and its values are codes16 times it (the matvec applies
// the scale once per block).
#define BLOCK_F16_SCALE 1

// The codes (q - 8) of elements [16c, 16c + 16), c in {0, 1}: the low nibbles (c = 0) or the
// high ones (c = 1).
GAUNTLET_INLINE float16 codes16(const __global uchar* blk, uint c) {
  const uchar16 q = (vload16(0, blk + 2) >> (uchar)(4 * c)) & (uchar)0x0f;
  return convert_float16(as_char16(q - (uchar)8));  // q - 8 fits a char
}

// Elements [16c, 16c + 16), c in {0, 1}.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return codes16(blk, c) * load_f16(blk);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  const int q = (blk[2 + (j & 15)] >> (4 * (j >> 4))) & 0x0f;
  return (float)(q - 8) * load_f16(blk);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer: ggml's quantize_row_q4_0_ref (d = max / -8, max the element of largest
// magnitude; codes min(15, (char)(x / d + 8.5))).
GAUNTLET_INLINE void encode_block(const float* x, __global uchar* blk) {
  float amax = 0.0f, max = 0.0f;
  for (uint j = 0; j < 32; ++j) {
    if (amax < fabs(x[j])) {
      amax = fabs(x[j]);
      max = x[j];
    }
  }
  const float d = max / -8;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  vstore_half_rte(d, 0, (__global half*)blk);
  for (uint j = 0; j < 16; ++j) {
    const uchar lo = min(15, (int)(char)(x[j] * id + 8.5f));
    const uchar hi = min(15, (int)(char)(x[j + 16] * id + 8.5f));
    blk[2 + j] = lo | (hi << 4);
  }
}
#endif
