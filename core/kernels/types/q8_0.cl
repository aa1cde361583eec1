// q8_0: 32 elements in 34 bytes {f16 d, i8 qs[32]}; value = q * d. Follows ggml's
// dequantize_row_q8_0.
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 34

// The block starts with its f16 scale and its values are codes16 times it (the matvec applies
// the scale once per block).
#define BLOCK_F16_SCALE 1

// The codes of elements [16c, 16c + 16), c in {0, 1}.
GAUNTLET_INLINE float16 codes16(const __global uchar* blk, uint c) {
  return convert_float16(vload16(0, (const __global char*)(blk + 2 + 16 * c)));
}

// Elements [16c, 16c + 16), c in {0, 1}.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return codes16(blk, c) * load_f16(blk);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  return (float)((const __global char*)(blk + 2))[j] * load_f16(blk);
}

#ifdef GAUNTLET_KV_ENCODE
// The KV cache's writer (engine_kv_store.cl): 32 floats into one block as ggml-cpu's x86
// quantize_row_q8_0 (AVX) does: d = amax / 127, codes x * (127 / amax) rounded to nearest even.
GAUNTLET_INLINE void encode_block(const float* x, __global uchar* blk) {
  float amax = 0.0f;
  for (uint j = 0; j < 32; ++j) amax = fmax(amax, fabs(x[j]));
  vstore_half_rte(amax / 127.0f, 0, (__global half*)blk);
  const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
  for (uint j = 0; j < 32; ++j) ((__global char*)(blk + 2))[j] = (char)rint(x[j] * id);
}
#endif
