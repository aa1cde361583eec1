// Bandwidth: device-side write of `count` 16-byte vectors.
typedef struct {
  uint count;
} BwParams;

__kernel void stress_write(__global uint4* dst, BwParams p) {
  size_t stride = get_global_size(0);
  for (size_t i = get_global_id(0); i < p.count; i += stride) dst[i] = (uint4)((uint)i ^ 0x5a5a5a5au);
}
