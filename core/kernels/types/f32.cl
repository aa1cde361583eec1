// f32 weights: one element per "block", stored as is (ggml's GGML_TYPE_F32).
#define BLOCK_ELEMS 1
#define BLOCK_BYTES 4

// The 16 elements [16c, 16c + 16) from blk (blk 4-byte aligned).
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return vload16(c, (const __global float*)blk);
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  return ((const __global float*)blk)[j];
}
