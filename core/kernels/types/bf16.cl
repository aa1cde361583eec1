// bf16 weights: the top 16 bits of an f32 per "block" (ggml's GGML_TYPE_BF16,
// ggml_bf16_to_fp32).
#define BLOCK_ELEMS 1
#define BLOCK_BYTES 2

// The 16 elements [16c, 16c + 16) from blk.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return bf16_to_f32x16(convert_uint16(vload16(c, (const __global ushort*)blk)));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  return bf16_to_f32(((const __global ushort*)blk)[j]);
}
