// q8_0: 32 elements in 34 bytes {f16 d, i8 qs[32]}; value = q * d. Follows ggml's
// dequantize_row_q8_0.
#define BLOCK_ELEMS 32
#define BLOCK_BYTES 34

// Elements [16c, 16c + 16), c in {0, 1}.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return convert_float16(vload16(0, (const __global char*)(blk + 2 + 16 * c))) * load_f16(blk);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  return (float)((const __global char*)(blk + 2))[j] * load_f16(blk);
}
