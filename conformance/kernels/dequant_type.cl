// GGUF dequantization through a weight type's block decoder (core/kernels/types/common.cl and
// <type>.cl come before this file): work-item g decodes elements [16g, 16g + 16) with decode16
// into out16, and the same elements one at a time with value_at into out1.
// fault (test-only): 1 writes one element past the end of out16, 2 flips the low bit of
// out16[n / 2].
typedef struct {
  uint n;  // elements, a multiple of 16 and of BLOCK_ELEMS
  uint type_id;
  uint k;
  uint fault;
} DequantParams;

__kernel void dequant_type(__global const uchar* blocks, __global float* out16,
                           __global float* out1, DequantParams p) {
  const uint e = 16 * (uint)get_global_id(0);
  if (e >= p.n) return;
  float16 v = decode16(blocks + (e / BLOCK_ELEMS) * BLOCK_BYTES, (e % BLOCK_ELEMS) / 16);
  if (p.fault == 2 && e == (p.n / 2) / 16 * 16) {
    v.s0 = as_float(as_uint(v.s0) ^ 1u);
  }
  vstore16(v, 0, out16 + e);
  for (uint t = 0; t < 16; ++t) {
    const uint i = e + t;
    out1[i] = value_at(blocks + (i / BLOCK_ELEMS) * BLOCK_BYTES, i % BLOCK_ELEMS);
  }
  if (p.fault == 1 && e == 0) out16[p.n] = 1.0f;
}
