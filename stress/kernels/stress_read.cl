// Bandwidth: device-side read of `count` 16-byte vectors; one xor per thread is kept so that the
// reads cannot be optimised away.
typedef struct {
  uint count;
} BwParams;

__kernel void stress_read(__global const uint4* src, __global uint* out, BwParams p) {
  size_t stride = get_global_size(0);
  uint4 acc = (uint4)(0);
  for (size_t i = get_global_id(0); i < p.count; i += stride) acc ^= src[i];
  out[get_global_id(0)] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
