// f16 weights: one IEEE binary16 per "block" (ggml's GGML_TYPE_F16, ggml_fp16_to_fp32), widened
// by integer operations (common.cl), exact for every value.
#define BLOCK_ELEMS 1
#define BLOCK_BYTES 2

// The 16 elements [16c, 16c + 16) from blk.
GAUNTLET_INLINE float16 decode16(const __global uchar* blk, uint c) {
  return f16_to_f32x16(convert_uint16(vload16(c, (const __global ushort*)blk)));
}

GAUNTLET_INLINE float value_at(const __global uchar* blk, uint j) {
  return f16_to_f32(((const __global ushort*)blk)[j]);
}
